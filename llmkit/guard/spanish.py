"""Spanish tables of the level-0 guard: request verbs, target nouns, the rules built
from them and the capabilities question."""

from __future__ import annotations

from llmkit.guard.blocks import (
    END,
    ES_POSS2,
    NOT_COMPOUND,
    _alt,
    _Rule,
    _rule,
    _verb_target,
    _words,
)

ES_VERB_WORDS = (
    r"muestra muestrame muestre muestreme muestranos ensena ensename revela revelame revele "
    r"repite repiteme repita imprime imprima dime digame dinos di escribe escribeme escriba "
    r"dame deme danos copia copie cita traduce traduzca lista enumera comparte compartir "
    r"envia enviame cuales cual que ver conocer saber codifica mostrar decir"
)
ES_VERB = _words(ES_VERB_WORDS)
ES_NOUN = (
    r"(?:instrucciones|indicaciones|reglas|directrices|directivas|prompt|configuracion"
    r"|programacion|ordenes|normas)"
)
ES_STRONG = _alt(
    r"\bprompt\s+(?:del|de)\s+sistema\b",
    r"\bprompt\s+(?:inicial|original|oculto|secreto|interno|del\s+desarrollador)\b",
    r"\b(?:mensaje|instrucciones?|indicaciones?|configuracion|directrices)\s+(?:del|de)\s+"
    r"sistema\b" + END,
    r"\b(?:instrucciones?|indicaciones?|directrices|configuracion)\s+(?:iniciales?"
    r"|originales?|ocult[ao]s?|secret[ao]s?|intern[ao]s?|del\s+desarrollador|de\s+inicio)\b" + END,
)
ES_IGNORE = (
    r"\b(?:ignora|ignore|ignorad|ignoren|olvida|olvide|olvidate\s+de|olvidense\s+de"
    r"|no\s+hagas\s+caso\s+(?:a|de)|descarta|descarte|omite|omita|pasa\s+por\s+alto)\s+"
    r"(?:(?:las|los|todas|todos|tus|sus|esas|estas|de|a)\s+)*"
    + _alt(
        r"(?:(?:todas|todos|tus)\s+(?:las\s+|los\s+|tus\s+)?)"
        + ES_NOUN
        + r"(?:\s+(?:anteriores|previas|previos|iniciales))?",
        ES_NOUN + r"\s+(?:anteriores|previas|previos|de\s+arriba|iniciales|originales"
        r"|del\s+sistema|de\s+antes)",
    )
    + END
)
ES_TOLD = _alt(
    r"\bque\s+te\s+(?:dijeron|indicaron|ordenaron|pidieron|programaron|dieron)\s+(?:\w+\s+)"
    r"{0,3}?(?:antes|al\s+principio|al\s+inicio|inicialmente|originalmente)\b",
    r"\b(?:que|cuales)\s+(?:instrucciones|indicaciones|reglas)\s+(?:te\s+(?:dieron|han\s+dado"
    r"|dio)|recibiste)\b",
)
ES_ABOVE = _alt(
    r"\b(?:el\s+)?texto\s+(?:de\s+arriba|anterior|de\s+antes|previo)\b",
    r"\btodo\s+lo\s+(?:que\s+(?:esta|estaba|hay|se\s+escribio)\s+)?(?:escrito\s+)?(?:de\s+)?"
    r"arriba\b",
    r"\blo\s+que\s+(?:esta|estaba|se\s+escribio|hay)\s+(?:escrito\s+)?(?:arriba|antes)\b",
)

ES_NOUNS = (
    "sistema instrucciones indicaciones reglas directrices directivas prompt configuracion "
    "programacion ordenes normas mensaje"
)


RULES: tuple[_Rule, ...] = (
    _rule(
        "es:ignore_instructions",
        ES_IGNORE,
        "ignora ignore ignorad ignoren olvida olvide "
        "olvidate olvidense hagas descarta descarte omite omita alto",
    ),
    _rule(
        "es:what_you_were_told",
        ES_TOLD,
        "dijeron indicaron ordenaron pidieron programaron dieron dado dio recibiste",
    ),
    _rule(
        "es:request_system_prompt",
        _verb_target(ES_VERB, _alt(ES_STRONG + NOT_COMPOUND, ES_POSS2 + r"\s+" + ES_NOUN + END)),
        ES_NOUNS,
        verbs=ES_VERB_WORDS,
        owner=True,
        media=True,
    ),
    _rule("es:your_system_prompt", ES_POSS2 + r"\s+(?P<t>" + ES_STRONG + ")", ES_NOUNS),
    _rule(
        "es:text_above",
        _verb_target(ES_VERB, ES_ABOVE),
        "arriba anterior antes previo",
        verbs=ES_VERB_WORDS,
        media=True,
    ),
)

CAPABILITIES = _alt(
    r"(?:que|en\s+que)\s+(?:puedes|sabes|podes)\s+(?:hacer|ayudarme|ayudar)(?:\s+por\s+mi)?",
    r"que\s+(?:puede|sabe)\s+(?:usted\s+)?hacer",
    r"(?:en\s+que|como)\s+(?:me\s+)?(?:puedes|puede)\s+(?:ayudar(?:me)?)",
    r"quien\s+(?:eres|es\s+usted|sos)(?:\s+tu)?",
    r"para\s+que\s+(?:sirves|sirve\s+usted|estas\s+aqui|existes)",
    r"cuales\s+son\s+tus\s+(?:capacidades|funciones|habilidades)",
    r"(?:que\s+haces|a\s+que\s+te\s+dedicas|hablame\s+de\s+ti)",
)
