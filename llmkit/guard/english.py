"""English tables of the level-0 guard: request verbs, target nouns, the rules built
from them and the capabilities question."""

from __future__ import annotations

from llmkit.guard.blocks import (
    EN_POSS,
    END,
    GAP,
    MODE_GAP,
    NOT_COMPOUND,
    _alt,
    _Rule,
    _rule,
    _verb_target,
    _words,
)

EN_VERB_WORDS = (
    r"show showing display print output reveal repeat recite tell give share write dump list "
    r"quote leak disclose expose paste copy echo spell encode translate paraphrase read state "
    r"type return render reproduce describe explain see view access know continue complete "
    r"what what's whats which opposite reverse rewrite convert decode unveil divulge post emit "
    r"export fetch retrieve reiterate restate base64 rot13 summarize summarise"
)
EN_VERB = _words(EN_VERB_WORDS)
EN_INSTR = (
    r"(?:prompt|instructions?|directives?|guidelines?|rules|programming|configuration|config"
    r"|preamble)"
)
# Targets that can only mean the assistant's setup. A prompt is always that; "system
# configuration" or "internal guidelines" only when the noun phrase ends there (END), since
# "the internal guidelines for the brand" or "system settings of our app" are the client's.
EN_STRONG = _alt(
    r"\bsys(?:tem)?[\s_-]*(?:prompt|preamble)s?\b",
    r"\b(?:systemprompt|sysprompt|pre\s*prompt|meta\s*prompt)\b",
    r"\b(?:initial|starting|start\s+up|startup|hidden|secret|internal|underlying|confidential"
    r"|developer|dev|initiali[sz]ation|preset|pre\s+set|predefined|pre\s+defined|bootstrap"
    r"|boot|original|first|very\s+first|opening)\s+(?:system\s+)?prompts?\b",
    r"\binitiali[sz]ation\s+(?:string|text|message)\b",
    r"\bdeveloper\s+message\b",
    r"\b(?:initial|original|hidden|secret|first|very\s+first)\s+system\s+(?:message|text)\b",
    r"\b(?:system|initial|starting|start\s+up|startup|hidden|secret|internal|underlying"
    r"|confidential|developer|dev|initiali[sz]ation|preset|pre\s+set|predefined|pre\s+defined"
    r"|bootstrap|boot)\s+(?:system\s+)?" + EN_INSTR + r"s?\b" + END,
    r"\bsys(?:tem)?[\s_-]*(?:message|instructions?|directives?|guidelines?|rules"
    r"|configuration|config)\b" + END,
    r"\b(?:original|first|very\s+first|opening)\s+(?:system\s+)?programming\b" + END,
)
EN_POSS_WEAK = (
    EN_POSS
    + r"\s+(?:(?:own|full|entire|whole|exact|complete|current|actual|real|original|core|base"
    r"|main|previous|prior|earlier)\s+)?(?:prompt|instructions?|directives?|programming"
    r"|configuration|config)\b" + END
)
EN_ABOVE = _alt(
    r"\b(?:the\s+)?(?:text|everything|all|words|content|contents|stuff|lines?|instructions)\s+"
    r"(?:that\s+(?:is|was|were|are)\s+)?(?:written\s+|shown\s+|given\s+|stated\s+|said\s+)?"
    r"(?:above|before\s+(?:this|my)\s+(?:message|line|sentence)|preceding\s+this)\b",
    r"\bthe\s+above\b",
    r"\babove\s+(?:text|content|instructions|prompt)\b",
    r"\b(?:what|everything)\s+(?:is|was|'s)\s+(?:written|said|stated)\s+above\b",
)
EN_ABOVE_VERB_WORDS = (
    "output print repeat show copy paste reproduce write echo dump display recite translate "
    "return encode reveal spell quote"
)
EN_ABOVE_VERB = _words(EN_ABOVE_VERB_WORDS)
# "ignore all instructions" is an attack; "forget all the rules, be bold" is a creative
# brief, so the looser nouns (rules, guidelines ...) need a determiner that points at
# the assistant's setup ("your", "previous", "system"), not just "all".
_EN_IGNORE_VERB = (
    r"\b(?:ignore|disregard|forget|override|bypass|discard|skip|abandon|dismiss|neglect)\s+"
    r"(?:about\s+)?(?:(?:the|of|these|those|a|any|every)\s+)*"
)
_EN_IGNORE_POINTER = (
    r"(?:your|ur|previous|prior|above|earlier|preceding|foregoing|initial|original|system"
    r"|developer|safety|hidden|internal|aforementioned|above\s+mentioned)"
)
_EN_IGNORE_MORE = (
    r"(?:\s+(?:of|the|your|previous|prior|above|earlier|preceding|initial|original|system"
    r"|developer|safety|other|given|existing|current|default)){0,3}\s+"
)
EN_IGNORE = (
    _EN_IGNORE_VERB
    + _alt(
        r"(?:all|"
        + _EN_IGNORE_POINTER
        + ")"
        + _EN_IGNORE_MORE
        + r"(?:instructions?|prompts?|directives?|programming|guardrails|system\s+prompt)\b",
        _EN_IGNORE_POINTER + _EN_IGNORE_MORE + r"(?:rules|guidelines?|constraints|restrictions"
        r"|commands|orders|policies|filters)\b",
        r"all\s+(?:of\s+)?(?:the\s+)?"
        + _EN_IGNORE_POINTER
        + _EN_IGNORE_MORE
        + r"(?:rules|guidelines?|constraints|restrictions|commands|orders|policies|filters)\b",
        # "ignore the instructions above", "... the rules you were given"
        r"(?:all\s+(?:of\s+)?(?:the\s+)?)?(?:instructions?|prompts?|directives?|rules"
        r"|guidelines?)\s+(?:above|before\s+this(?:\s+\w+)?|(?:that\s+)?you\s+(?:were|have\s+"
        r"been|'ve\s+been|got)\s+given|given\s+(?:to\s+you\s+)?(?:before|above|earlier))",
    )
    + END
)
EN_FORGET_TOLD = (
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+|anything\s+|what\s+)+"
    r"(?:that\s+)?you(?:'ve|\s+have|\s+were|\s+had)?\s+(?:been\s+)?"
    r"(?:told|taught|given|instructed|programmed)\b"
)
EN_TOLD = _alt(
    r"\bwhat\s+(?:were|was|have|had|did)\s+you\s+(?:been\s+)?(?:told|given|instructed"
    r"|programmed|asked|trained|configured|set\s+up)\b(?:\s+\w+){0,4}?\s+(?:before|at\s+the"
    r"\s+(?:very\s+)?(?:start|beginning)|initially|originally|first|by\s+(?:your|the)\s+"
    r"(?:developers?|creators?|admins?|operators?|makers?|company|system))\b",
    r"\b(?:instructions?|text|prompt|rules|message|words|directives?|everything|what)\s+"
    r"(?:that\s+)?you\s+(?:were|have\s+been|'ve\s+been|got|received)\s*(?:given|told|provided"
    r"|fed|instructed|programmed|sent|shown)?(?:\s+\w+){0,4}?\s+(?:initially|originally|at\s+"
    r"the\s+(?:very\s+)?(?:start|beginning)|before\s+(?:this|the|our)\s+(?:conversation|chat"
    r"|session)|by\s+(?:your|the)\s+(?:developers?|creators?|operators?|admins?|system))\b",
    r"\bwhat\s+(?:are|were)\s+you\s+(?:not\s+(?:supposed|allowed|permitted)|forbidden|told\s+"
    r"not|instructed\s+not|programmed\s+not)\s+to\s+(?:tell|say|reveal|share|disclose"
    r"|discuss|talk)\b",
    r"\bwho\s+(?:wrote|gave\s+you|set)\s+your\s+(?:instructions|prompt|rules)\b",
    r"\b(?:what|which)\s+(?:instructions|rules|prompt|directives|guidelines)\s+(?:were|have"
    r"|did)\s+you\s+(?:been\s+)?(?:given|told|provided|fed|programmed|get|receive)\b",
)
EN_PREFILL = _alt(
    r"\b(?:start|begin|prefix|open)\w*\s+(?:your\s+)?(?:(?:answer|reply|response|output"
    r"|message)\s+)?with\s*[\"']?\s*(?:my\s+(?:instructions|prompt|rules|system\s+prompt)"
    r"|i\s+was\s+(?:instructed|told|programmed)|you\s+are\b|the\s+system\s+prompt)",
    r"\b(?:complete|continue|finish)\b[^.!?\n]{0,40}?[\"':]\s*[\"']?\s*(?:i\s+was\s+"
    r"(?:instructed|told|programmed|asked)|my\s+(?:instructions|rules|prompt|system\s+prompt)"
    r"|the\s+system\s+prompt|you\s+are\b)",
)
EN_CODE = _alt(
    r"(?:console\.log|print|printf|echo|puts|cat|system\.out\.println|alert|dump)\s*\(?\s*"
    r"[\"'$]?\{?\s*(?:system[_\s-]?prompt|system[_\s-]?message|sys[_\s-]?prompt"
    r"|initial[_\s-]?prompt|instructions)\b",
    r"<\s*/?\s*(?:system[_\s-]?prompt|system|sys|instructions?|prompt)\s*/?\s*>",
)
EN_CONVERSATION = (
    r"\b(?:repeat|print|output|dump|copy|recite|reproduce|write\s+out|show)\b"
    + GAP
    + r"\b(?:this|the|our)\s+(?:entire\s+|whole\s+|full\s+|complete\s+)?(?:conversation|chat"
    r"|dialog(?:ue)?|transcript|context)\b"
    + GAP
    + r"(?:word\s+for\s+word|verbatim|including\s+(?:the\s+)?(?:system|hidden|first|initial)"
    r"|from\s+the\s+very\s+(?:start|beginning)|back\s+to\s+me)"
)
EN_MODE = (
    r"\b(?:maintenance|developer|debug|god|admin|administrator|diagnostic|dan|jailbreak"
    r"|unrestricted|sudo)\s+(?:mode|override|access)\b"
    + MODE_GAP
    + EN_VERB
    + GAP
    + r"\b(?:configuration|config|prompt|instructions|rules|settings)\b"
)

EN_NOUNS = (
    "prompt instructions instruct directive guidelines rule rules programming configuration "
    "config preamble orders constraints restrictions commands policies filters guardrails"
)
EN_STRONG_GATE = (
    EN_NOUNS + " system sys sysprompt systemprompt message text string preprompt metaprompt"
)
EN_IGNORE_GATE = "ignore disregard forget override bypass discard skip abandon dismiss neglect"

RULES: tuple[_Rule, ...] = (
    _rule("en:code", EN_CODE, "< system sys sysprompt systemprompt instructions initial prompt"),
    _rule("en:prefill", EN_PREFILL, "start begin prefix open complete continue finish"),
    _rule("en:ignore_instructions", EN_IGNORE, EN_IGNORE_GATE),
    _rule("en:forget_what_told", EN_FORGET_TOLD, EN_IGNORE_GATE),
    _rule(
        "en:what_you_were_told",
        EN_TOLD,
        "told given instructed programmed asked trained configured set supposed allowed "
        "permitted forbidden wrote gave received got fed sent shown provided get",
    ),
    _rule(
        "en:request_system_prompt",
        _verb_target(EN_VERB, EN_STRONG + NOT_COMPOUND),
        EN_STRONG_GATE,
        verbs=EN_VERB_WORDS,
        owner=True,
        media=True,
    ),
    _rule(
        "en:request_your_instructions",
        _verb_target(EN_VERB, EN_POSS_WEAK),
        EN_NOUNS,
        verbs=EN_VERB_WORDS,
        media=True,
    ),
    _rule(
        "en:your_system_prompt",
        EN_POSS + r"\s+(?:\w+\s+)?(?P<t>" + EN_STRONG + ")" + NOT_COMPOUND,
        EN_STRONG_GATE,
    ),
    _rule(
        "en:text_above",
        _verb_target(EN_ABOVE_VERB, EN_ABOVE),
        "above before preceding",
        verbs=EN_ABOVE_VERB_WORDS,
        media=True,
    ),
    _rule("en:repeat_conversation", EN_CONVERSATION, "conversation chat dialog transcript context"),
    _rule("en:special_mode", EN_MODE, "mode override access"),
)

# What a "what kinds of things ..." question asks about the assistant.
_CAPABILITY_PREDICATE = _alt(
    r"(?:i|you)\s+(?:can|may|should|could)\s+(?:ask|give)(?:\s+(?:of\s+)?you)?(?:\s+about)?",
    r"(?:can|may|should|could|do|am|are)\s+(?:i|you)\s+(?:\w+\s+){0,2}?(?:ask|answer|help"
    r"(?:\s+me)?\s+with|do|handle|know(?:\s+something)?|accept|respond\s+to|complete"
    r"|have\s+(?:a\s+response|answers|responses)\s+for)(?:\s+(?:of\s+)?you)?(?:\s+(?:about"
    r"|for\s+me|exactly|well|best))?",
    r"are\s+you\s+(?:well\s+|very\s+|most\s+)?(?:familiar\s+with|versed\s+in|good\s+at"
    r"(?:\s+answering)?|programmed\s+to\s+answer|able\s+to\s+(?:do|answer|help(?:\s+me)?"
    r"\s+with)|knowledg(?:e)?able\s+(?:about|in))",
    r"you\s+(?:can|could|would\s+be\s+able\s+to|are\s+able\s+to)\s+(?:help(?:\s+me)?"
    r"(?:\s+with)?|assist\s+(?:me\s+)?with|do|answer)",
    r"you(?:'re|\s+are)\s+(?:familiar\s+with|aware\s+of|versed\s+in|good\s+at)",
    r"you\s+(?:know|comprehend)(?:\s+something)?(?:\s+about)?(?:\s+(?:best|well))?",
    r"(?:are|is)\s+(?:permissible|allowed|permitted)",
)

CAPABILITIES = _alt(
    # what can you do / what else can you help me with / what do you do
    r"what\s+(?:else\s+|all\s+|exactly\s+|actually\s+|precisely\s+)?(?:(?:things|stuff|tasks"
    r"|(?:kinds?|sorts?|types?)\s+of\s+(?:things|stuff|tasks))\s+)?(?:can|could|do|will"
    r"|would)\s+(?:you|u)\s+(?:(?:actually|really|possibly|even|help\s+me|exactly)\s+)?"
    r"(?:do|help(?:\s+(?:me|us))?(?:\s+with)?|assist(?:\s+(?:me|us))?(?:\s+with)?|handle"
    r"|answer(?:\s+for\s+me)?)(?:\s+(?:exactly|here|for\s+(?:me|us)|then|actually|at\s+all))?",
    r"what\s+(?:are|r)\s+(?:you|u)\s+(?:able\s+to\s+(?:do|answer|help(?:\s+(?:me|us))?"
    r"(?:\s+with)?)|capable\s+of(?:\s+doing)?|good\s+at|for|here\s+for|designed\s+for"
    r"|made\s+for|familiar\s+with)",
    r"what\s+(?:are|is|'s)\s+your\s+(?:capabilities|abilities|skills|functions|features"
    r"|purpose|function|job|role)",
    r"what\s+(?:skills|capabilities|abilities|functions|features)\s+do\s+you\s+have",
    r"(?:who|what)\s+(?:are|r)\s+(?:you|u)(?:\s+(?:exactly|actually|really))?",
    r"who\s+am\s+i\s+(?:talking|speaking|chatting)\s+(?:to|with)",
    r"tell\s+me\s+about\s+yourself",
    r"how\s+(?:can|could|do|will)\s+(?:you|u)\s+(?:help|assist)(?:\s+(?:me|us))?"
    r"(?:\s+(?:here|today|exactly))?",
    r"how\s+(?:can|do|should)\s+i\s+use\s+(?:you|this\s+(?:bot|chat|service|assistant))",
    r"how\s+can\s+i\s+(?:benefit\s+from\s+(?:using\s+)?you|get\s+you\s+to\s+help\s+me)",
    r"what\s+(?:can|may|should|could)\s+i\s+(?:ask|use)(?:\s+(?:of\s+)?you)?"
    r"(?:\s+(?:to\s+)?(?:about|for|help\s+me\s+with|accomplish|do))?(?:\s+all\s+about)?",
    r"what\s+(?:do|can)\s+you\s+know(?:\s+about)?",
    # what kinds of questions can I ask / the subjects you know best
    r"(?:(?:can\s+you\s+|could\s+you\s+|please\s+)?(?:tell|show|inform)\s+me(?:\s+of)?\s+"
    r"|let\s+me\s+know\s+|i\s+(?:want|need|wish|would\s+like|wanna)\s+(?:to\s+)?know\s+"
    r"|i'd\s+like\s+to\s+know\s+)?(?:what|which|the)\s+(?:(?:are|is)\s+the\s+)?(?:all\s+"
    r"|exactly\s+)?(?:(?:kinds?|sorts?|types?)\s+of\s+)?(?:questions|things|topics"
    r"|subjects|subject\s+areas|areas|stuff|queries|tasks|requests|information|skills)\s+"
    r"(?:that\s+)?" + _CAPABILITY_PREDICATE,
    r"(?:can\s+you\s+)?(?:tell\s+me\s+|let\s+me\s+know\s+)?what\s+you\s+(?:can|are\s+able"
    r"\s+to|are\s+capable\s+of)\s+(?:do|doing|help(?:\s+me)?\s+with|assist\s+me\s+with"
    r"|answering|answer)",
    r"(?:can|may)\s+i\s+ask\s+you\s+(?:about\s+)?anything",
    r"is\s+there\s+anything\s+i\s+(?:can't|cannot|can\s+not|shouldn't)\s+ask\s+you",
    r"can\s+you\s+help\s+(?:me\s+)?with\s+anything(?:\s+i\s+need)?",
    r"what\s+(?:do|can)\s+you\s+have\s+(?:answers|a\s+response|responses)\s+for",
    r"/?help|/start|/menu",
    # how this chat works, where to begin
    r"how\s+(?:does|do)\s+(?:this|it|this\s+(?:chat|bot|thing|service|assistant)|the\s+(?:chat"
    r"|bot))\s+work",
    r"how\s+(?:do|can|should)\s+i\s+(?:use\s+(?:this|it)|get\s+started|start|begin)"
    r"(?:\s+(?:here|with\s+(?:you|this)))?",
    r"(?:where|how)\s+(?:do|should)\s+i\s+(?:start|begin)",
    r"what\s+(?:do|should|am)\s+i\s+(?:supposed\s+to\s+)?do\s+(?:here|first|now)",
    r"what(?:\s+is|'s)\s+(?:this|the\s+(?:point|purpose)\s+of\s+this)(?:\s+(?:chat|bot|thing"
    r"|service|assistant))?(?:\s+(?:for|about))?",
    r"what(?:\s+is|'s)\s+this\s+(?:chat|bot|assistant|thing)\s+for",
    # who or what the assistant is
    r"(?:are|r)\s+(?:you|u)\s+(?:(?:a|an|the)\s+)?(?:real\s+|live\s+|actual\s+)?(?:bot|robot"
    r"|chat\s*bot|human(?:\s+being)?|person|ai|artificial\s+intelligence|machine|computer"
    r"(?:\s+program)?|program|software|language\s+model|(?:virtual\s+)?assistant|real|alive"
    r"|automated|chatgpt|gpt)(?:\s+or\s+(?:(?:a|an)\s+)?(?:real\s+)?(?:bot|robot|human|person"
    r"|machine|program|ai|not))?",
    r"(?:am\s+i|are\s+we)\s+(?:talking|speaking|chatting|writing)\s+(?:to|with)\s+(?:(?:a|an)\s+)?"
    r"(?:real\s+|live\s+)?(?:bot|robot|human|person|machine|ai|computer|software|program)",
    r"is\s+(?:this|it)\s+(?:(?:a|an)\s+)?(?:real\s+|live\s+)?(?:bot|robot|human|person|ai"
    r"|machine|automated\s+chat|chat\s*bot)(?:\s+or\s+(?:(?:a|an)\s+)?(?:real\s+|live\s+)?"
    r"(?:bot|robot|human|person|machine))?",
    r"who\s+(?:made|created|built|constructed|programmed|developed|designed|invented|engineered"
    r"|trained|wrote|owns|coded|runs)\s+(?:you|this\s+(?:bot|chat|assistant|chatbot))",
    r"who(?:\s+is|'s|\s+are)\s+your\s+(?:creators?|makers?|developers?|owners?)",
    r"who\s+(?:wrote|made|built|developed|designed|coded)\s+your\s+(?:\w+\s+)?(?:code|software"
    r"|program)",
    r"(?:who|what\s+company)\s+do\s+you\s+(?:belong\s+to|work\s+for)",
    r"(?:what|which)\s+company\s+(?:made|created|built|owns|developed|runs|programmed)\s+you",
    r"what(?:\s+is|'s)\s+your\s+name|do\s+you\s+have\s+a\s+name|what\s+(?:are\s+you\s+called"
    r"|should\s+i\s+call\s+you)",
)
