"""What the reader finds in a client message: the statement kinds, the fields, one
`Finding` with its evidence, the `Reading` of a whole message, and the `Collector` the
field readers add their findings to."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from briefing.reader.statements import Sentence, sentence_at

ANSWER, CORRECTION, MENTION, QUESTION = "answer", "correction", "mention", "question"

# What the reader finds; a stage names the ones it takes in its `prefill` mapping.
FINDING_FIELDS = (
    "clientName", "company", "role", "contact", "projectType", "productName", "coreIdea", "goal",
    "audience",
    "brandTone", "format", "deliverables", "budget", "currency", "deadline", "references",
    "constraints", "creativeSession",
)  # fmt: skip


@dataclass(frozen=True)
class Finding:
    field: str
    value: Any
    evidence: str
    start: int
    end: int
    confidence: float
    kind: str  # answer | correction | mention | question

    def as_event(self) -> dict[str, Any]:
        return {
            "evidence": self.evidence, "start": self.start, "end": self.end,
            "confidence": self.confidence, "statement": self.kind,
        }  # fmt: skip


ANY_DAY = 0


@dataclass(frozen=True)
class Reading:
    text: str
    language: str
    findings: tuple[Finding, ...] = ()
    # Mentioned but not a field: a price of something, an amount with no budget cue.
    mentions: tuple[Finding, ...] = ()
    asks: bool = False  # the client asks something back (a counter-question)
    confirms: bool = False  # "Да, всё верно"
    greets: bool = False  # "Добрый день!"
    corrects: bool = False  # a correction marker anywhere in the message
    # A day corrected without its month ("не 15-го, а 22-го"): (old day, new day); the old
    # day is ANY_DAY when the client names only the new one ("Sorry — the 19th").
    day_fix: tuple[int, int] | None = None
    # One word of a name corrected ("ой не мартынюк а мартынова", "Tkachuk, not Tkach"):
    # (the word corrected away, the word that stands); briefing.turn.reading applies it to the
    # name, company or product that holds the first.
    word_fix: tuple[str, str] | None = None
    # Words the client spells again for a name already written ("фамилия Мелихова, через
    # и", "McDonagh, one word", "а правильно ракитский"); briefing.turn.reading puts each in
    # place of the word of the name, company or product it nearly is.
    respelt: tuple[str, ...] = ()
    # The text that answers the question asked, without the labelled statements of other
    # fields, the corrections and the counter-questions; "" when nothing is left.
    answer_text: str = ""
    _best: dict[str, Finding] = field(default_factory=dict, repr=False, compare=False)

    def get(self, name: str) -> Finding | None:
        """The finding that speaks for `name`: a correction over an answer over a mention,
        then the higher confidence, then the later one."""
        return self._best.get(name)


RANK = {CORRECTION: 3, ANSWER: 2, MENTION: 1, QUESTION: 0}
# Fields that hold a name: a value without a letter ("5 000", "№ 3") is never one.
NAME_FIELDS = frozenset({"clientName", "company", "productName", "role"})
_LETTER = re.compile(r"[^\W\d_]")


@dataclass
class Collector:
    text: str
    language: str
    asked: tuple[str, ...]
    sentences: list[Sentence]
    findings: list[Finding] = field(default_factory=list)
    mentions: list[Finding] = field(default_factory=list)
    taken: list[tuple[int, int]] = field(default_factory=list)
    answer_text: str = ""
    ner: tuple[bool, bool] = (True, True)  # run the NER for (persons, organisations)

    def kind_at(self, start: int, name: str) -> str:
        sentence = sentence_at(self.sentences, start)
        if sentence and sentence.correction and (sentence.pivot is None or start >= sentence.pivot):
            return CORRECTION
        if sentence and sentence.question:
            return QUESTION
        return ANSWER if name in self.asked else MENTION

    def add(
        self,
        name: str,
        value: Any,
        start: int,
        end: int,
        confidence: float,
        kind: str | None = None,
    ) -> None:
        if value is None or value == "":
            return
        if name in NAME_FIELDS and not _LETTER.search(str(value)):
            return  # "призовий фонд турніру 5 000": an amount after an organisation word
        kind = kind or self.kind_at(start, name)
        finding = Finding(name, value, self.text[start:end], start, end, confidence, kind)
        (self.mentions if kind == QUESTION else self.findings).append(finding)

    def overlaps(self, start: int, end: int) -> bool:
        return any(start < e and s < end for s, e in self.taken)
