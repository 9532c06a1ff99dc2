"""Level 1: one cheap verdict per client message (risk, intent, language, complexity).

The contract every caller uses, whoever answers it: `classify(text)` returns a
`Level1Verdict`. The embedded default is the classifier shipped with the platform (linear
models over character and word n-grams whose weights live in `llmkit/data/level1/`, no
key, well under a millisecond: `llmkit.level1_model`); a model answering the same
contract through a provider (issue 13, item 2) returns the same pydantic object with
`source="model"`.

* `risk`: "none" or the attack kind the learned model saw most of (prompt extraction,
  instruction override, jailbreak, obfuscation, data exfiltration, tool abuse, other
  injection). `is_attack` is what a caller acts on; the kind is for the event and figures.
* `intent`: what the client wants from this turn. "human_request" and "complaint" are
  acted on (the producer is flagged and the bot says a person will answer); the others
  only inform routing.
* `complexity`: "simple" | "medium" | "complex", from plain features of the text (length,
  how many questions, several asks at once, a complaint), never from a model: routing
  must be explainable from the message alone.
* `scores`: the numbers behind the verdict (attack probability, the threshold it was held
  to, feature counts), recorded on the turn for managers and for the pool router.

Level 0 (`llmkit.guard`) stays in front: a caller runs `guard_check` first and calls
`classify` only when level 0 is silent.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from llmkit.language import detect_language

Intent = Literal[
    "answer",
    "correction",
    "question",
    "small_talk",
    "human_request",
    "complaint",
    "off_topic",
]
Risk = Literal[
    "none",
    "prompt_extraction",
    "instruction_override",
    "jailbreak",
    "obfuscation",
    "data_exfiltration",
    "tool_abuse",
    "other_injection",
]
Complexity = Literal["simple", "medium", "complex"]

INTENTS: tuple[str, ...] = Intent.__args__  # type: ignore[attr-defined]
RISKS: tuple[str, ...] = Risk.__args__  # type: ignore[attr-defined]
COMPLEXITIES: tuple[str, ...] = Complexity.__args__  # type: ignore[attr-defined]

# Intents that take the turn away from the stage agent: a person is asked for.
ESCALATING_INTENTS: frozenset[str] = frozenset({"human_request", "complaint"})


class Level1Verdict(BaseModel):
    """Level 1's answer on one client message. Same shape from the shipped classifier and
    from a provider's model (the JSON a model is asked for is this object without `scores`
    and `source`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: Intent
    risk: Risk
    language: str
    complexity: Complexity
    scores: dict[str, float] = Field(default_factory=dict)
    source: Literal["classifier", "model"] = "classifier"

    @property
    def is_attack(self) -> bool:
        return self.risk != "none"

    @property
    def needs_human(self) -> bool:
        """A request for a person or a complaint: the producer is flagged."""
        return self.intent in ESCALATING_INTENTS

    def as_meta(self) -> dict[str, object]:
        """The JSON a turn's meta keeps (plain types only)."""
        return self.model_dump(mode="json")


# ---------------------------------------------------------------------------------------
# Intent: word lists in Russian, Ukrainian and English. Only the two acted-on intents need
# to be precise; a request for a person must name one (a manager, an operator, a human),
# a complaint must say that something is wrong with the service, not with the client's
# own product ("our old video was bad" is an answer about the project).
# ---------------------------------------------------------------------------------------

_FLAGS = re.IGNORECASE | re.UNICODE

# The people a client may ask for. A camera operator or a producer on set is briefing
# content ("нужен оператор с дроном", "we need a drone operator"), so these count only
# after a verb of talking or connecting; after "want"/"need" only an unmistakable person
# ("a real person", "живой человек") does.
_EN_PEOPLE = (
    r"(?:human|person|people|manager|operator|agent|producer|representative|somebody|someone"
    r"|anyone|member\s+of\s+(?:the\s+)?(?:team|staff))"
)
_RU_PEOPLE = (
    r"(?:человек\w*|менеджер\w*|оператор\w*|живы\w*|живо\w*|продюсер\w*|сотрудник\w*"
    r"|специалист\w*|руководител\w*|кем[\s-]то|кого[\s-]нибудь|кого[\s-]то)"
)
_UK_PEOPLE = (
    r"(?:людин\w*|менеджер\w*|оператор\w*|живо\w*|живи\w*|продюсер\w*|співробітник\w*"
    r"|спеціаліст\w*|керівник\w*|кимось|когось)"
)
_HUMAN_REQUEST = re.compile(
    r"(?:"
    r"\b(?:talk|speak|chat|connect|transfer|put\s+me\s+through|get\s+me|pass\s+me|hand\s+me"
    r"|switch\s+me|call\s+me\s+back|escalate)\w*\b[^.!?\n]{0,40}?\b" + _EN_PEOPLE + r"\b"
    r"|\b(?:want|need|would\s+like|'d\s+like|prefer)\b[^.!?\n]{0,30}?"
    r"\b(?:a\s+human|real\s+(?:person|human)|live\s+(?:person|agent|human)|someone\s+real)\b"
    r"|\bare\s+you\s+(?:a\s+)?(?:bot|robot|human|real\s+person)\b[^.!?\n]{0,40}?"
    r"\b(?:human|person|someone)\b"
    r"|\b(?:поговорить|пообщаться|связаться|соедин\w*|переключ\w*|позов\w*|позвать|перевед\w*"
    r"|свяж\w*|передай\w*\s+(?:трубку|меня))\b[^.!?\n]{0,40}?\b" + _RU_PEOPLE + r"(?!\w)"
    r"|\b(?:хочу|хотел\w*|нужен|нужна|нужно|можно|дайте|давайте)\b[^.!?\n]{0,30}?"
    r"(?:\b(?:с|со)\s+(?:жив\w+\s+)?человеком\b|\bживого\s+человека\b)"
    r"|\b(?:поговорити|поспілкуватися|зв['’]?язатися|з['’]?єдна\w*|переключ\w*|покли\w*"
    r"|переведі\w*|передай\w*\s+мене)\b[^.!?\n]{0,40}?\b" + _UK_PEOPLE + r"(?!\w)"
    r"|\b(?:хочу|хотів\w*|потрібен|потрібна|потрібно|можна|дайте|давайте)\b[^.!?\n]{0,30}?"
    r"(?:\bз\s+(?:жив\w+\s+)?людиною\b|\bживу\s+людину\b)"
    # "a manager, not a bot"
    r"|\b(?:человек\w*|менеджер\w*|людин\w*|person|human|manager)\W+(?:а|а\s+не|not)\s+"
    r"(?:не\s+)?(?:с\s+|з\s+|a\s+|with\s+a\s+)?(?:бот|робот|bot|robot|machine)\w*"
    r")",
    _FLAGS,
)

_COMPLAINT = re.compile(
    r"(?:"
    r"\b(?:complain\w*|complaint|unacceptable|ridiculous|disappointed|frustrat\w*|annoy\w*"
    r"|terrible\s+service|waste\s+of\s+(?:my\s+)?time|not\s+happy\s+with\s+(?:you|the\s+service"
    r"|this\s+(?:bot|chat|service))|you\s+(?:keep|are\s+not|aren't|don't)\s+"
    r"(?:asking|listening|understand\w*|reading|helping)|stop\s+asking|i\s+already\s+(?:told"
    r"|said|answered|wrote))\b"
    r"|\b(?:жалоб\w*|пожалу\w*|безобрази\w*|возмутительн\w*|недоволен|недовольна|недовольны"
    r"|разочарован\w*|надоел\w*|достал\w*|бесит|сколько\s+можно|я\s+же\s+(?:уже\s+)?"
    r"(?:сказал\w*|писал\w*|ответил\w*)|я\s+уже\s+(?:сказал\w*|писал\w*|ответил\w*|говорил\w*)"
    r"|вы\s+меня\s+не\s+(?:слышите|понимаете)|ты\s+меня\s+не\s+(?:слышишь|понимаешь)"
    r"|ужасн\w*\s+(?:сервис|обслуживани\w*|бот)|трат\w*\s+(?:мо[её]\s+)?врем\w*)\b"
    r"|\b(?:скарг\w*|поскарж\w*|обурлив\w*|неприйнятн\w*|незадоволен\w*|розчарован\w*"
    r"|набрид\w*|дратує|скільки\s+можна|я\s+ж\s+(?:вже\s+)?(?:казав|казала|писав|писала"
    r"|відповів|відповіла)|я\s+вже\s+(?:казав|казала|писав|писала|відповів|відповіла)"
    r"|ви\s+мене\s+не\s+(?:чуєте|розумієте)|ти\s+мене\s+не\s+(?:чуєш|розумієш)"
    r"|жахлив\w*\s+(?:сервіс|обслуговуванн\w*|бот))\b"
    r")",
    _FLAGS,
)

_CORRECTION = re.compile(
    r"\b(?:actually|correction|i\s+meant|sorry,?\s+(?:i\s+meant|not)|change\s+(?:it|that|the)"
    r"|not\s+\S+\s*,\s*but|вернее|точнее|поправка|исправ\w*|я\s+ошиб\w*|не\s+\S+,\s*а"
    r"|измени\w*|поменя\w*|виправ\w*|точніше|я\s+помили\w*|змін\w*)\b",
    _FLAGS,
)
_SMALL_TALK = re.compile(
    r"^\W*(?:hi|hello|hey|thanks|thank\s+you|ok|okay|good\s+(?:morning|evening|afternoon)"
    r"|привет|здравствуйте|добрый\s+(?:день|вечер)|доброе\s+утро|спасибо|ок|хорошо|понятно"
    r"|привіт|вітаю|добрий\s+(?:день|вечір)|дякую|добре|зрозуміло|так|да|yes|no|нет|ні)"
    r"\W*$",
    _FLAGS,
)
_QUESTION_WORD = re.compile(
    r"^\W*(?:what|how|when|where|why|who|which|can|could|do|does|is|are|will|would"
    r"|что|как|когда|где|почему|зачем|кто|какой|какая|какие|сколько|можно|можете|а\s+вы"
    r"|що|як|коли|де|чому|навіщо|хто|який|яка|які|скільки|чи|можна|можете)\b",
    _FLAGS,
)


# "Свяжитесь с нашим менеджером", "talk to my manager first": the client's own people.
_CLIENTS_OWN = re.compile(
    r"\b(?:our|my|their|наш\w*|мо(?:й|его|им|ему|ей|ю|и|их)|мій|мого|моїм|моєю|їх\w*|их)\b",
    _FLAGS,
)


def intent_of(text: str) -> str:
    """The message's intent from word lists (human request and complaint first)."""
    if any(not _CLIENTS_OWN.search(m.group()) for m in _HUMAN_REQUEST.finditer(text)):
        return "human_request"
    if _COMPLAINT.search(text):
        return "complaint"
    if _SMALL_TALK.match(text):
        return "small_talk"
    if _CORRECTION.search(text):
        return "correction"
    if "?" in text or _QUESTION_WORD.match(text):
        return "question"
    return "answer"


# ---------------------------------------------------------------------------------------
# Complexity: plain features, so a router's choice can be explained from the message.
# ---------------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"[.!?;\n]+")
_LIST_ITEM = re.compile(r"(?m)^\s*(?:[-*•]|\d+[.)])\s+")


def complexity_features(text: str) -> dict[str, float]:
    """The counts complexity is decided from (recorded with the verdict)."""
    return {
        "chars": float(len(text)),
        "questions": float(text.count("?")),
        "sentences": float(sum(1 for part in _SENTENCE_END.split(text) if part.strip())),
        "list_items": float(len(_LIST_ITEM.findall(text))),
    }


def complexity_of(text: str, *, intent: str) -> str:
    """simple | medium | complex: a long message, several questions or a list of asks is
    complex; a complaint is at least medium (a person's tone needs a careful answer)."""
    features = complexity_features(text)
    chars, questions = features["chars"], features["questions"]
    items = features["list_items"]
    if chars > 600 or questions >= 3 or items >= 4 or (intent == "complaint" and chars > 200):
        return "complex"
    if chars > 160 or questions >= 2 or items >= 2 or features["sentences"] >= 4:
        return "medium"
    if intent in ESCALATING_INTENTS:
        return "medium"
    return "simple"


# ---------------------------------------------------------------------------------------
# The verdict.
# ---------------------------------------------------------------------------------------


# Language and intent are read from the head and the tail of a long paste, as the risk
# model first reads it: their word lists cost time per character, and a request for a person or
# a complaint is said at the start or the end of a message (this keeps level 1's p99 under
# 2 ms on messages of any length; complexity still counts the whole text).
_READ_HEAD = 400
_READ_TAIL = 112


def _read_window(text: str) -> str:
    if len(text) <= _READ_HEAD + _READ_TAIL:
        return text
    return text[:_READ_HEAD] + "\n" + text[-_READ_TAIL:]


def classify(text: str, *, default_language: str = "ru") -> Level1Verdict:
    """Level 1's verdict on one client message with the shipped classifier.

    Never raises on any string; the weights are loaded once, on the first call.
    """
    if not isinstance(text, str):
        text = ""
    window = _read_window(text)
    language = detect_language(window, default=default_language)
    from llmkit.level1_model import attack_scores  # the weights load on first use

    risk, attack_probability, threshold = attack_scores(text)
    intent = intent_of(window) if text.strip() else "small_talk"
    complexity = complexity_of(text, intent=intent)
    scores = {"attack": round(attack_probability, 4), "threshold": threshold}
    scores.update(complexity_features(text))
    return Level1Verdict(
        intent=intent,  # type: ignore[arg-type]
        risk=risk,  # type: ignore[arg-type]
        language=language,
        complexity=complexity,  # type: ignore[arg-type]
        scores=scores,
    )
