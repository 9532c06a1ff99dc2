"""A client message cut into sentences, each marked as a question or a correction, and the
labelled statements in it ("Идея: …", "Цель — …")."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENTENCE = re.compile(r".+?(?:[.!?…]+(?=\s|$)|\n|$)", re.DOTALL)
_QUESTION_START = re.compile(
    r"^\W*(?:(?:а|и|і|so|and|also|btw|oh|ah|ok|okay|and\s+also|by\s+the\s+way|кстати|кстаті|"
    r"до\s+речі|ну|ещё|ще|и\s+ещё|і\s+ще|тоже|також|ладно|гаразд)\W+){0,2}"
    r"(?:сколько|как|какой|какая|какие|каков|можно|можете|могли|вы|"
    r"у\s+вас|есть\s+ли|а\s+вы|чи|скільки|як|який|яка|які|можна|можете|ви|у\s+вас|"
    r"do|does|did|can|could|how|what|which|is|are|will|would\s+you|should|who|when|where)\b"
    # a question to the studio wherever it starts: "снимаете ли вы…", "so we fake it, can you…"
    r"|\b(?:ли\s+вы|ли\s+у\s+вас|(?:can|could|do|would|will|are|have)\s+you)\b",
    re.IGNORECASE,
)
# What a client says beside a "no" that takes back what they just said.
_RETRACTING = (
    r"wait|hold\s+on|sorry|oops|ой|стоп|стой|погоди(?:те)?|подожди(?:те)?|извините|простите|"
    r"вибачте|перепрошую|зачекай(?:те)?|почекай(?:те)?"
)
_CORRECTION = re.compile(
    r"(?<![\w])(?:ой|ой-ой|вернее|точнее|поправка|поправлю|исправлю|ошибся|ошиблась|"
    r"перепутал[аи]?|точніше|виправлю|помилився|помилилася|переплутав|переплутала|"
    r"переплутали|сплутав|сплутала|i\s+meant|i\s+mean|make\s+that|oh\s+wait|"
    r"make\s+it(?=\s+(?:the\s+)?\d)|"
    r"correction|scratch\s+that|typo|autocorrect\w*|автозамен\w*|автозамін\w*|опечат\w*|"
    r"одрук\w*|описк\w*)(?![\w])|(?<![\w])(?:sorry|извините|простите|вибачте|"
    r"перепрошую)(?=,?\s*[—–-]?\s+(?:the\s+)?(?:[\d$€£₴₽]|не\s))"
    # "wait, no", "sorry no", "no, wait", "ой, нет", "ні, стоп": a "no" said back to oneself,
    # with a figure after it in the sentence (so "sorry, no idea" corrects nothing)
    rf"|(?<![\w])(?:(?:{_RETRACTING})\W{{0,3}}\s*(?:no|nope|нет|ні)|(?:no|nope|нет|ні)\W{{0,3}}"
    rf"\s*(?:{_RETRACTING}))(?![\w])(?=[^.!?]*\d)",
    re.IGNORECASE,
)
# "не 2 млн, а 2,5 млн", "не до 15 січня, а до 25 січня", "not 8k but 10k"
_NOT_BUT = re.compile(r"(?<![\w])(?:не|not)\s[^.!?]{1,40}?,?\s+(?:а|but)\s", re.IGNORECASE)
# "it's €25,000, not €20,000", "45 тысяч, а не 40", "20 лютого, а не 15", "42 thousand
# instead of 30": the value negated after the one that stands (a number in it, so "not sure"
# or "а не видео" is no correction)
_BUT_NOT = re.compile(
    r"(?:,\s*|\s+)(?:а\s+не|но\s+не|not|instead\s+of|rather\s+than|вместо|замість)\s+"
    r"(?P<old>[^.!?;]{0,20}?\d[\d\s.,]*[^\s.!?;,]*)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    end: int
    question: bool
    correction: bool
    # where the corrected value starts ("а 2,5 млн"): findings after it win
    pivot: int | None
    # the negated old value after the one that stands ("…, not €20,000"), when there is one
    negated: tuple[int, int] | None = None

    def corrected_away(self, position: int) -> bool:
        """Whether a finding at `position` is the value this sentence corrects ("не 2 млн",
        the amount before "sorry, I mean", "…, not €20,000")."""
        if not self.correction:
            return False
        if self.pivot is not None and position < self.pivot:
            return True
        return self.negated is not None and self.negated[0] <= position < self.negated[1]


def sentences_of(text: str) -> list[Sentence]:
    result = []
    for match in _SENTENCE.finditer(text):
        chunk = match.group(0)
        if not chunk.strip():
            continue
        head = _statement_before_question(chunk)
        if head:  # "We're launching the Stack Bar, can you help?": a statement, then a question
            result.append(_sentence(chunk[:head], match.start(), question=False))
            result.append(_sentence(chunk[head:], match.start() + head, question=True))
        else:
            stripped = chunk.strip()
            question = stripped.endswith("?") and bool(_QUESTION_START.search(stripped))
            result.append(_sentence(chunk, match.start(), question=question))
    return result


# Words a statement needs before a question to the studio to stand on its own.
MIN_STATEMENT_WORDS = 3


def _statement_before_question(chunk: str) -> int | None:
    """Where the question starts in a sentence that opens with a statement and ends with a
    question to the studio after a comma or a dash ("…, can you help?", "… — снимаете ли
    вы такое?"); None for a sentence that is one or the other."""
    stripped = chunk.rstrip()
    if not stripped.endswith("?"):
        return None
    cue = _QUESTION_START.search(stripped)
    if cue is None or cue.start() == 0:
        return None
    boundary = max(stripped.rfind(mark, 0, cue.start()) for mark in (",", ";", "—", "–", ":"))
    if boundary < 0 or stripped[boundary + 1 : cue.start()].strip(" ,") not in (
        "",
        "so",
        "и",
        "і",
        "a",
        "а",
    ):
        return None
    if len(re.findall(r"\w+", stripped[:boundary])) < MIN_STATEMENT_WORDS:
        return None
    return boundary + 1


def _sentence(chunk: str, offset: int, *, question: bool) -> Sentence:
    not_but = _NOT_BUT.search(chunk)
    but_not = None if not_but else _BUT_NOT.search(chunk)
    correction = bool(not_but or but_not) or bool(_CORRECTION.search(chunk))
    pivot = offset + not_but.end() if not_but else None
    if pivot is None and correction and not but_not:
        marker = _CORRECTION.search(chunk)
        pivot = offset + marker.end() if marker else None
    negated = None
    if but_not:
        negated = (offset + but_not.start(), offset + but_not.end())
    return Sentence(chunk, offset, offset + len(chunk), question, correction, pivot, negated)


def sentence_at(sentences: list[Sentence], position: int) -> Sentence | None:
    return next((s for s in sentences if s.start <= position < s.end), None)


# --- labelled statements -------------------------------------------------------------------

LABELS = (
    ("coreIdea", r"(?:главная\s+|головна\s+|основная\s+|основна\s+|the\s+|core\s+|big\s+|"
                 r"key\s+)?(?:идея|ідея|idea|concept|концепция|концепція|мысль|думка)"),
    ("goal", r"(?:наша\s+|our\s+|the\s+|главная\s+|головна\s+)?"
             r"(?:цель|задача|мета|завдання|goal|aim|objective)"),
    ("audience", r"(?:целевая\s+|цільова\s+|target\s+|our\s+|the\s+)?"
                 r"(?:аудитория|аудиторія|audience|ца)"),
    ("format", r"(?:формат|format|хронометраж)"),
    ("deliverables", r"(?:deliverables|на\s+выходе|на\s+виході|что\s+сда[её]м|що\s+здаємо)"),
    ("brandTone", r"(?:тон|tone)"),
    ("references", r"(?:референсы|референси|рефы|рефи|references?|refs?|примеры|приклади|"
                   r"inspiration)"),
    ("constraints", r"(?:ограничения|обмеження|constraints?|restrictions?|must[-\s]haves?|"
                    r"табу|запреты|заборони)"),
)  # fmt: skip
# Each label as a named group: the match's `lastgroup` is the field it labels.
_LABEL_GROUPS = "|".join(f"(?P<{name}>{pattern})" for name, pattern in LABELS)
_LABEL = re.compile(
    r"(?:^|(?<=[^\w\s]\s)|(?<=\n))\s*(?:"
    + _LABEL_GROUPS
    + r")(?:\s*[:—–-]\s*|\s+(?=\d)|\s+(?:is|are|will\s+be)\s+)",
    re.IGNORECASE,
)


# A voice message has no punctuation and no capitals: a label opening it is followed by a
# space alone ("формат два ролики по хвилині …", "ідея така що медовуха …").
_SPOKEN_LABEL = re.compile(
    r"^\s*(?:" + _LABEL_GROUPS + r")\s+(?:(?:така|такая|такий|такой)\s+(?:що|что)\s+|is\s+)?(?=\w)",
    re.IGNORECASE,
)


def labelled_statements(text: str) -> list[tuple[str, str, int, int]]:
    """(field, value, start, end) of "Идея: …", "Цель — …", "аудитория 20-35 лет"."""
    matches = list(_LABEL.finditer(text))
    voice = not re.search(r"[.,:;!?—–]", text) and text == text.lower()
    spoken = _SPOKEN_LABEL.match(text) if voice else None
    if spoken and not any(m.start() == spoken.start() for m in matches):
        matches.insert(0, spoken)
    result = []
    for index, match in enumerate(matches):
        name = match.lastgroup
        stop = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        sentence_end = re.search(r"[.!?](?:\s|$)", text[match.end() : stop])
        if sentence_end:
            stop = match.end() + sentence_end.start()
        value = text[match.end() : stop].strip(" ,;.—–-")
        if name and value:
            result.append((name, value, match.start(), stop))
    return result


# A sentence opened by a fact's label ("Budget — let me check with our CFO", "Срок: после
# Нового года") speaks of that fact whatever it says, so it is never the free-text answer to
# another question.
_FACT_LABEL = re.compile(
    r"^\W*(?:(?P<budget>budget|бюджет|кошторис)|(?P<deadline>deadline|дедлайн|сроки?|терміни?)"
    r"|(?P<contact>contacts?|контакты?|контакти))\s*[:—–-]",
    re.IGNORECASE,
)


def fact_labelled(sentences: list[Sentence]) -> list[tuple[str, int, int]]:
    """(field, start, end) of the sentences that open with a budget, deadline or contact label."""
    found = []
    for sentence in sentences:
        match = _FACT_LABEL.match(sentence.text)
        if match and match.lastgroup:
            found.append((match.lastgroup, sentence.start, sentence.end))
    return found
