"""What a dead letter belongs to, by its `source_kind`: the app that made the call says how a
corrected answer is checked and applied, and how the original input is replayed. The dlq
app imports none of them; each registers its source when Django starts (`AppConfig.ready`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from django.utils.translation import gettext_lazy as _lazy

from core.errors import ApplicationError

if TYPE_CHECKING:
    from dlq.fix_form import AnswerForm
    from dlq.models import DeadLetter, StructuredCall
    from llmkit.parse import ParseOutcome

# Called inside the transaction that applies a replay's outcome, with the replay's recorded
# call and whether its answer parsed: the dead letter is settled together with the effect.
ReplaySettle = Callable[["StructuredCall", bool], None]


@dataclass(frozen=True)
class SourceLink:
    """The object a dead letter belongs to, as the review pages show it."""

    label: str
    url: str


class DeadLetterSource(Protocol):
    def link(self, letter: DeadLetter) -> SourceLink | None:
        """Where the object this letter belongs to is shown, or None when it is gone."""

    def answer_check(self, letter: DeadLetter, raw: str) -> ParseOutcome:
        """Validate a corrected answer the way the model's answer was validated."""

    def answer_apply(self, letter: DeadLetter, outcome: ParseOutcome, call: Any) -> None:
        """Apply a valid answer as an accepted model answer would be. Runs inside the
        transaction that marks the letter fixed; raises ApplicationError when the effect
        happened already (applying twice must not act twice)."""

    # Optional: `readable_by(letter, user) -> bool`, who without the review permission may
    # read a letter (a producer, the letters of their own briefing).
    # Optional: `label`, the kind's name for people ("a briefing's turn").
    # Optional: `answer_form(letter) -> AnswerForm | None`, the answer's schema with labels
    # in the active language, for the fix editor's form (without it: the JSON editor only).

    def replay(self, letter: DeadLetter, settle: ReplaySettle) -> None:
        """Run the original input again through today's prompts and providers; apply the
        answer when it parses and call `settle` in the same transaction. Raises
        ApplicationError when there is nothing left to replay."""


_SOURCES: dict[str, DeadLetterSource] = {}
# Kinds of call that no source registers (nothing to fix them into), by their names for people.
_KIND_LABELS = {"level1": _lazy("guard check"), "llm_check": _lazy("provider check")}


def dead_letter_source_register(kind: str, source: DeadLetterSource) -> None:
    _SOURCES[kind] = source


def dead_letter_links(letters: Sequence[DeadLetter]) -> dict[int, SourceLink]:
    """Where each of a page of letters belongs (letter pk → link; a gone object has none).
    A source with `links(letters)` is asked once for all of its letters, not once each."""
    by_kind: dict[str, list[DeadLetter]] = defaultdict(list)
    for letter in letters:
        by_kind[letter.source_kind].append(letter)
    found: dict[int, SourceLink] = {}
    for kind, group in by_kind.items():
        source = _SOURCES.get(kind)
        if source is None:
            continue
        batch = getattr(source, "links", None)
        if batch is not None:
            found.update(batch(group))
            continue
        for letter in group:
            link = source.link(letter)
            if link is not None:
                found[letter.pk] = link
    return found


def dead_letter_settled(letter: DeadLetter) -> None:
    """The letter is no longer open: a source with `settled(letter)` hears it in the same
    transaction (the briefing's dashboard row counts its open letters)."""
    settled = getattr(_SOURCES.get(letter.source_kind), "settled", None)
    if settled is not None:
        settled(letter)


def dead_letter_source(letter: DeadLetter) -> DeadLetterSource:
    """The source of `letter`, or a clear error for a kind nothing can fix or replay."""
    source = _SOURCES.get(letter.source_kind)
    if source is None:
        kind = letter.source_kind or "sourceless"
        raise ApplicationError(f"a {kind} dead letter cannot be fixed or replayed")
    return source


def dead_letter_supports_actions(letter: DeadLetter) -> bool:
    return letter.source_kind in _SOURCES


def dead_letter_kind_label(kind: str) -> str:
    """A source kind as the review's filters show it ("ход брифинга"), never its code: the
    source's `label` where it has one."""
    label = getattr(_SOURCES.get(kind), "label", None) or _KIND_LABELS.get(kind)
    return str(label) if label is not None else kind.replace("_", " ")


def dead_letter_answer_form(letter: DeadLetter) -> AnswerForm | None:
    """The fix form of `letter`'s answer, where its source describes one and the object the
    letter belongs to still exists; None leaves the manager the JSON editor."""
    answer_form = getattr(_SOURCES.get(letter.source_kind), "answer_form", None)
    if answer_form is None:
        return None
    try:
        return answer_form(letter)
    except ApplicationError:
        return None


def dead_letter_readable_by(letter: DeadLetter, user: Any) -> bool:
    """Whether `user`, who may not review dead letters, may still read `letter`: its source
    says (a producer reads the letters of their own briefings' turns); by default nobody."""
    source = _SOURCES.get(letter.source_kind)
    readable = getattr(source, "readable_by", None)
    return bool(readable and readable(letter, user))
