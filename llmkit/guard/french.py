"""French tables of the level-0 guard: request verbs, target nouns, the rules built
from them and the capabilities question."""

from __future__ import annotations

from llmkit.guard.blocks import (
    END,
    FR_POSS2,
    NOT_COMPOUND,
    _alt,
    _Rule,
    _rule,
    _verb_target,
    _words,
)

FR_VERB_WORDS = (
    r"montre montrez montrer affiche affichez afficher repete repetez repeter revele revelez "
    r"reveler donne donnez ecris ecrivez ecrire imprime imprimez dis dites cite citez copie "
    r"copiez traduis traduisez liste listez recopie reproduis partage partagez divulgue "
    r"envoie envoyez quelles quel quels quelle voir connaitre encode encodez"
)
FR_VERB = _words(FR_VERB_WORDS)
FR_NOUN = r"(?:instructions?|consignes?|regles|directives?|prompt|configuration|programmation)"
FR_STRONG = _alt(
    r"\b(?:prompt|invite)\s+(?:du\s+)?systeme\b",
    r"\bprompt\s+(?:initial|d'origine|original|cache|secret|interne|de\s+depart"
    r"|du\s+developpeur)\b",
    r"\b(?:message|instructions?|consignes?|configuration|parametres)\s+(?:du\s+)?systeme\b" + END,
    r"\b(?:instructions?|consignes?|directives?)\s+(?:initiales?|d'origine|originales?"
    r"|cachees?|secretes?|internes?|de\s+depart|du\s+developpeur)\b" + END,
)
FR_IGNORE = (
    r"\b(?:ignore|ignorez|ignorer|oublie|oubliez|oublier|contourne|contournez"
    r"|ne\s+tiens\s+pas\s+compte|ne\s+tenez\s+pas\s+compte|fais\s+abstraction"
    r"|faites\s+abstraction)\s+(?:(?:de|des|d'|du|les|la|le|toutes|tous|tes|vos|ces)\s*)*"
    + _alt(
        r"(?:(?:toutes|tous|tes|vos)\s+(?:les\s+|tes\s+|vos\s+|ces\s+)?)"
        + FR_NOUN
        + r"(?:\s+(?:precedentes|anterieures|initiales))?",
        FR_NOUN + r"\s+(?:precedentes|anterieures|ci\s+dessus|d'avant|initiales|d'origine"
        r"|du\s+systeme|systeme)",
    )
    + END
)
FR_TOLD = _alt(
    r"\b(?:qu'est\s+ce\s+qu'on|que|ce\s+qu'on)\s+(?:t'a|vous\s+a)\s+(?:t\s+on\s+)?(?:dit"
    r"|donne|demande|ordonne|indique|programme)\s+(?:\w+\s+){0,3}?(?:avant|au\s+debut"
    r"|initialement|au\s+depart)\b",
    r"\bquelles\s+(?:instructions|consignes|regles)\s+(?:as\s+tu|t'a\s+t\s+on|on\s+t'a)\s+"
    r"(?:\w+\s+)?(?:recues?|donnees?|eues?)\b",
)
FR_ABOVE = _alt(
    r"\b(?:le\s+)?texte\s+(?:ci\s+dessus|au\s+dessus|precedent|d'avant)\b",
    r"\btout\s+ce\s+qui\s+(?:precede|est\s+(?:ecrit\s+)?(?:ci\s+dessus|au\s+dessus"
    r"|plus\s+haut))\b",
    r"\bce\s+qui\s+(?:est|etait)\s+ecrit\s+(?:au\s+dessus|ci\s+dessus|plus\s+haut|avant)\b",
)

FR_NOUNS = (
    "systeme instruction consignes prompt directive regles configuration programmation "
    "parametres invite message"
)

RULES: tuple[_Rule, ...] = (
    _rule(
        "fr:ignore_instructions",
        FR_IGNORE,
        "ignore ignorez ignorer oublie oubliez oublier "
        "contourne contournez tiens tenez fais faites",
    ),
    _rule(
        "fr:what_you_were_told",
        FR_TOLD,
        "dit donne demande ordonne indique programme recue recues donnees eues eue",
    ),
    _rule(
        "fr:request_system_prompt",
        _verb_target(FR_VERB, _alt(FR_STRONG + NOT_COMPOUND, FR_POSS2 + r"\s+" + FR_NOUN + END)),
        FR_NOUNS,
        verbs=FR_VERB_WORDS,
        owner=True,
        media=True,
    ),
    _rule("fr:your_system_prompt", FR_POSS2 + r"\s+(?P<t>" + FR_STRONG + ")", FR_NOUNS),
    _rule(
        "fr:text_above",
        _verb_target(FR_VERB, FR_ABOVE),
        "dessus precede precedent haut avant",
        verbs=FR_VERB_WORDS,
        media=True,
    ),
)

CAPABILITIES = _alt(
    r"(?:que|qu'est\s+ce\s+que)\s+(?:peux|sais|pouvez|savez)\s+(?:tu|vous)\s+faire"
    r"(?:\s+pour\s+(?:moi|nous))?",
    r"qu'est\s+ce\s+que\s+(?:tu|vous)\s+(?:peux|sais|pouvez|savez)\s+faire",
    r"(?:tu|vous)\s+(?:peux|sais|pouvez|savez)\s+faire\s+quoi",
    r"(?:qui\s+(?:es\s+tu|etes\s+vous)|t'es\s+qui|tu\s+es\s+qui|vous\s+etes\s+qui)",
    r"(?:a\s+quoi\s+(?:sers\s+tu|servez\s+vous)|tu\s+sers\s+a\s+quoi|vous\s+servez\s+a\s+quoi)",
    r"(?:comment|en\s+quoi)\s+(?:peux\s+tu|pouvez\s+vous|tu\s+peux|vous\s+pouvez)\s+"
    r"(?:m'aider|nous\s+aider)",
    r"quelles\s+sont\s+(?:tes|vos)\s+(?:capacites|fonctions|competences|fonctionnalites)",
    r"parle\s+moi\s+de\s+toi",
)
