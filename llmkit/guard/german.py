"""German tables of the level-0 guard: request verbs, target nouns, the rules built
from them and the capabilities question."""

from __future__ import annotations

from llmkit.guard.blocks import (
    DE_POSS2,
    END,
    NOT_COMPOUND,
    _alt,
    _Rule,
    _rule,
    _verb_target,
    _words,
)

DE_VERB_WORDS = (
    r"zeig zeige zeigen zeigt gib gebt geben nenne nenn nennen wiederhole wiederhol "
    r"wiederholen drucke druck drucken schreib schreibe schreiben verrate verrat verraten "
    r"teile teil teilen sag sage sagen kopiere kopier ubersetze ubersetz ubersetzen zitiere "
    r"zitier lies liste offenbare offenbaren enthulle poste ausgeben ausgabe was welche "
    r"welches lautet lauten kodiere sehen anzeigen ausgeben"
)
DE_VERB = _words(DE_VERB_WORDS)
DE_NOUN = (
    r"(?:anweisung\w*|instruktion\w*|regeln|vorgaben|prompt\w*|richtlinien|konfiguration"
    r"|programmierung|befehle)"
)
DE_STRONG = _alt(
    r"\b(?:system|anfangs|ausgangs|start|initial|einstiegs|grund)\s*prompt\w*",
    r"\b(?:initial\w*|ursprunglich\w*|versteckt\w*|geheim\w*|intern\w*|verborgen\w*"
    r"|vorgegeben\w*|anfanglich\w*)\s+prompt\w*",
    r"\bsystem\s*(?:nachricht|anweisung|instruktion|vorgabe|regel|konfiguration|meldung)\w*" + END,
    r"\b(?:anfangs|ausgangs|start|initial|einstiegs|grund)\s*(?:anweisung|instruktion"
    r"|konfiguration)\w*" + END,
    r"\b(?:initial\w*|ursprunglich\w*|versteckt\w*|geheim\w*|intern\w*|verborgen\w*"
    r"|vorgegeben\w*|anfanglich\w*)\s+(?:anweisung|instruktion|vorgabe|richtlinie"
    r"|konfiguration|programmierung)\w*" + END,
)
DE_IGNORE = (
    r"\b(?:ignorier\w*|vergiss|vergessen\s+sie|vergesst|missachte\w*|uberspring\w*|verwirf"
    r"|verwerfen\s+sie)\s+(?:(?:alle|alles|die|der|deine|ihre|eure|bisherigen|vorherigen"
    r"|vorigen|obigen|fruheren|ursprunglichen|vorangegangenen|vorangehenden|anfanglichen"
    r"|samtliche|system)\s+)*(?:(?:alle|deine|bisherigen|vorherigen|vorigen|obigen|fruheren"
    r"|ursprunglichen|vorangegangenen|vorangehenden|anfanglichen|samtliche)\s+)"
    r"(?:\w+\s+)?(?:anweisungen|instruktionen|regeln|vorgaben|befehle|prompts?|richtlinien"
    r"|einschrankungen)\b" + END
)
DE_TOLD = _alt(
    r"\bwas\s+(?:wurde|hat\s+man|haben\s+sie|hat\s+dein\s+\w+)\s+dir\s+(?:\w+\s+){0,3}?"
    r"(?:gesagt|aufgetragen|vorgegeben|befohlen|mitgegeben|gegeben)\b",
    r"\b(?:anweisungen|instruktionen|regeln|vorgaben)\s+(?:hast\s+du|hat\s+man\s+dir"
    r"|wurden\s+dir)\s+(?:\w+\s+){0,3}?(?:bekommen|erhalten|gegeben|vorgegeben)\b",
    r"\bvergiss\s+alles\s*,?\s+was\s+(?:dir|man\s+dir)\b",
)
DE_ABOVE = _alt(
    r"\b(?:den\s+)?text\s+(?:oben|daruber|oberhalb)\b",
    r"\b(?:alles|was)\s+(?:oben|daruber|vorher|oberhalb)\s+(?:steht|stand|geschrieben)\b",
    r"\b(?:den\s+)?(?:obigen|vorherigen|vorangehenden)\s+text\b",
)

DE_NOUNS = (
    "system anfangs ausgangs start initial einstieg grund ursprung versteck geheim intern "
    "verborgen vorgegeben anweisung instruktion regeln vorgaben prompt richtlinien konfig "
    "programm befehle"
)

RULES: tuple[_Rule, ...] = (
    _rule(
        "de:ignore_instructions",
        DE_IGNORE,
        "ignorier vergiss vergessen vergesst missachte uberspring verwirf verwerfen",
    ),
    _rule(
        "de:what_you_were_told",
        DE_TOLD,
        "gesagt aufgetragen vorgegeben befohlen mitgegeben gegeben bekommen erhalten vergiss",
    ),
    _rule(
        "de:request_system_prompt",
        _verb_target(DE_VERB, _alt(DE_STRONG + NOT_COMPOUND, DE_POSS2 + r"\s+" + DE_NOUN + END)),
        DE_NOUNS,
        verbs=DE_VERB_WORDS,
        owner=True,
        media=True,
    ),
    _rule(
        "de:your_system_prompt",
        DE_POSS2 + r"\s+(?:\w+\s+)?(?P<t>" + DE_STRONG + ")",
        DE_NOUNS,
    ),
    _rule(
        "de:text_above",
        _verb_target(DE_VERB, DE_ABOVE),
        "oben daruber oberhalb obigen vorher vorherigen vorangehenden",
        verbs=DE_VERB_WORDS,
        media=True,
    ),
)

CAPABILITIES = _alt(
    r"was\s+(?:kannst|konnen)\s+(?:du|sie)(?:\s+(?:alles|so|genau|denn))*(?:\s+(?:machen"
    r"|tun))?(?:\s+fur\s+(?:mich|uns))?",
    r"(?:wer|was)\s+(?:bist\s+du|sind\s+sie)(?:\s+(?:genau|denn))?",
    r"(?:wobei|womit|wie)\s+(?:kannst\s+du|konnen\s+sie)\s+(?:mir|uns)\s+helfen",
    r"wofur\s+(?:bist\s+du|sind\s+sie)(?:\s+(?:da|gut))?",
    r"was\s+(?:machst\s+du|machen\s+sie)(?:\s+(?:genau|so))?",
    r"(?:was\s+sind\s+deine|welche)\s+(?:fahigkeiten|funktionen)(?:\s+hast\s+du)?",
    r"erzahl\w*\s+(?:mir\s+)?(?:etwas\s+)?uber\s+dich",
)
