"""A client's message read for every stage at once and applied to the briefing: a field the
client states is filled wherever it belongs; a correction (or a second explicit statement)
replaces the earlier value, closed stage or not; a change to a locked value becomes a
proposal for the producer. Called by the orchestrator on every client turn."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

from django.utils import timezone
from pydantic import ValidationError

from briefing.models import BriefingEvent, StageRun, Turn
from briefing.reader import ANSWER, CORRECTION, MENTION, Finding, Reading
from briefing.reader import message_read as _message_read
from briefing.reader.contacts import contacts_merged
from briefing.reader.findings import ANY_DAY
from briefing.stages.base import is_empty
from briefing.turn.field_states import read_confidence, with_read

Kind = BriefingEvent.Kind
# Fields whose value a later explicit statement replaces even without a correction marker
# ("Бюджет 3 млн" after "бюджет 2 млн"), when read with at least this confidence.
RESTATED_CONFIDENCE = 0.85
RESTATED_FIELDS = frozenset(
    {"clientName", "contact", "budget", "currency", "deadline", "creativeSession"}
)
# Fields whose reading a surer one replaces ("launching in April", then "delivered by March
# 20th"; a guessed name, then "меня зовут …"): only while the value is the reader's own.
UPGRADED_FIELDS = frozenset({"clientName", "company", "productName", "deadline"})
# Below this the reading is a whole-answer guess ("видение один" for the product): the stage
# agent decides (the rules agent through briefing.turn.dialogue, a model on its own).
APPLY_CONFIDENCE = 0.7


def last_question(earlier: Sequence[Turn]) -> Turn | None:
    """The agent's last reply among `earlier` (the turns before this one, oldest first),
    leaving out the guard's canned answers: what the client's next message answers."""
    return next(
        (t for t in reversed(earlier) if t.role == Turn.Role.AGENT and "guard" not in t.meta),
        None,
    )


def asked_fields(earlier: Sequence[Turn]) -> tuple[str, ...]:
    """The fields the agent asked for in its last reply among `earlier`."""
    last = last_question(earlier)
    if last is None:
        return ()
    meta = last.meta or {}
    asked = meta.get("asked_fields") or ([meta["asked_field"]] if meta.get("asked_field") else [])
    return tuple(a for a in asked if isinstance(a, str))


def finding_targets(
    stages: list[StageRun], spec_of: Callable[[StageRun], Any]
) -> dict[str, tuple[StageRun, str]]:
    """Where each finding goes: the first stage whose `prefill` takes it, and the field."""
    targets: dict[str, tuple[StageRun, str]] = {}
    for stage in stages:
        for finding, field_name in spec_of(stage).prefill.items():
            targets.setdefault(finding, (stage, field_name))
    return targets


def turn_read(
    *,
    turn: Turn,
    earlier: Sequence[Turn],
    language: str,
    stages: list[StageRun],
    spec_of: Callable[[StageRun], Any],
) -> Reading:
    # A first name alone is not known yet: the NER still looks for the full name ("Денис",
    # then "Меня Денис зовут, Денис Ямщиков").
    known = [
        finding for finding, (stage, field_name) in finding_targets(stages, spec_of).items()
        if not is_empty(stage.fields.get(field_name))
        and not (finding == "clientName" and len(str(stage.fields[field_name]).split()) < 2)
    ]  # fmt: skip
    return _message_read(
        turn.text, language=language, today=timezone.localdate(), asked=asked_fields(earlier),
        known=known, earlier=[t.text for t in earlier if t.role == Turn.Role.CLIENT],
    )  # fmt: skip


def _month_restated(finding: Finding, current: Any) -> bool:
    """ "дедлайн же в березні" after "Дедлайн — 20 березня": a deadline said again by its
    month alone (no day in its words) keeps the day already known in that month."""
    return (
        finding.field == "deadline"
        and finding.kind != CORRECTION
        and isinstance(current, str)
        and isinstance(finding.value, str)
        and current[:7] == finding.value[:7]
        and not re.search(r"\d", finding.evidence)
    )


def _validated(spec: Any, name: str, value: Any) -> tuple[bool, Any]:
    try:
        checked = spec.answer_model.model_validate({"message": "", name: value})
    except ValidationError:
        return False, None
    return True, getattr(checked, name)


def _replaces(finding: Finding) -> bool:
    """Whether a finding may replace a value already there: a correction always; a second
    explicit statement ("бюджет 3 млн", "меня зовут …", a new phone number) of the fields
    people restate; never a quoted name in passing (a reference is no rename)."""
    if finding.kind == CORRECTION:
        return True
    if finding.field not in RESTATED_FIELDS:
        return False
    return finding.confidence >= RESTATED_CONFIDENCE and finding.kind in (ANSWER, MENTION)


def reading_apply(
    *,
    reading: Reading,
    stages: list[StageRun],
    spec_of: Callable[[StageRun], Any],
    locks: Mapping[str, str],
    event: Callable[..., None],
    close: Callable[[StageRun], None],
    lock_refine: Callable[[str, str, str], None],
    language: str,
    only: frozenset[str] | None = None,
) -> list[dict[str, Any]]:
    """Write the reading into the stages. Returns the lock changes the client proposed
    ({key, field, stage, old, new, evidence}); `event(kind, stage_key, **data)` records,
    `close(stage)` closes a stage whose required fields the reading completed, and
    `lock_refine(key, old, new)` moves a lock the client completed (a first name given in
    full) without a proposal. `only` limits what is written to those findings (the facts of
    a message the guard refused)."""
    by_key = {stage.key: stage for stage in stages}
    targets = finding_targets(stages, spec_of)
    proposals: list[dict[str, Any]] = []
    filled: set[str] = set()
    for name in _ordered(reading):
        if only is not None and name not in only:
            continue
        finding = reading.get(name)
        if finding is None or name not in targets or finding.confidence < APPLY_CONFIDENCE:
            continue
        stage, field_name = targets[name]
        spec = spec_of(stage)
        ok, value = _validated(spec, field_name, finding.value)
        if not ok or is_empty(value):
            continue
        current = stage.fields.get(field_name)
        if field_name == "contact" and not is_empty(current):
            # Every contact is kept: a new one is added, a correction replaces its own kind.
            correcting = finding.kind == CORRECTION or reading.corrects  # "typo in that e-mail"
            value = contacts_merged(current, value, correction=correcting)
        if field_name == "clientName":
            value = surname_put_right(current, value)
        same = current == value or (
            isinstance(current, str)
            and isinstance(value, str)
            and current.casefold() == value.casefold()
        )
        if same or _month_restated(finding, current):
            continue
        lock_key = spec.locks.get(field_name)
        locked = locks.get(lock_key) if lock_key else None
        producer_owned = field_name in stage.producer_fields
        if locked is not None or producer_owned:
            known = locked if locked is not None else current
            if _refines(known, value) and _replaces(finding):
                # "Анна" typed on New briefing, "Меня зовут Анна Соколова" from the client:
                # the same name, completed, so no producer needs to decide it.
                stage.fields = {**stage.fields, field_name: value}
                if locked is not None and lock_key:
                    lock_refine(lock_key, locked, value)
                event(Kind.FIELD_CORRECTED_BY_CLIENT, stage.key, field=field_name, old=known,
                      new=value, refined=True, **finding.as_event())  # fmt: skip
                filled.add(stage.key)
                continue
            if (not is_empty(current) or locked) and _replaces(finding) and lock_key:
                proposal = {
                    "key": lock_key, "field": field_name, "stage": stage.key,
                    "old": locked if locked is not None else current, "new": value,
                    "evidence": finding.evidence,
                }  # fmt: skip
                proposals.append(proposal)
                event(Kind.LOCK_CHANGE_PROPOSED, stage.key, **proposal)
            continue
        if is_empty(current):
            stage.fields = {**stage.fields, field_name: value}
            event(Kind.PREFILL_FILLED, stage.key, field=field_name, value=value,
                  **finding.as_event())  # fmt: skip
        elif (
            _replaces(finding)
            or _upgrades(finding, stage, field_name, current)
            # "Денис", then "Денис Ямщиков"; "Kilt", then "Kilt in a Box": the same, completed
            or (finding.field in UPGRADED_FIELDS and _refines(current, value))
        ):
            stage.fields = {**stage.fields, field_name: value}
            event(Kind.FIELD_CORRECTED_BY_CLIENT, stage.key, field=field_name, old=current,
                  new=value, **finding.as_event())  # fmt: skip
        else:
            continue
        stage.dialogue = with_read(stage.dialogue, field_name, value, finding.confidence)
        filled.add(stage.key)
    for stage in _word_fix_apply(reading, targets, event) if only is None else ():
        filled.add(stage.key)
    for stage in _respelt_apply(reading, targets, event) if only is None else ():
        filled.add(stage.key)
    day_fixed = _day_fix_apply(reading, targets, event)
    if day_fixed is not None:
        filled.add(day_fixed.key)
    for key in filled:
        stage = by_key[key]
        spec = spec_of(stage)
        if stage.status == StageRun.Status.CLOSED:
            # corrected without reopening the conversation: the summary follows
            stage.summary = spec.summary(stage.fields, language)
        elif spec.required and not spec.missing(stage.fields):
            close(stage)
    return proposals


# The fields one corrected word may belong to.
WORD_FIXED_FIELDS = ("clientName", "company", "productName")


def _word_fix_apply(
    reading: Reading, targets: Mapping[str, tuple[StageRun, str]], event: Callable[..., None]
) -> list[StageRun]:
    """ "ой не мартынюк а мартынова" after "ольга мартынюк": the name, company or product
    holding the word corrected away gets the word that stands, written with the old word's
    capital. Nothing changes when no value holds it (the correction was of something else).
    The stages changed."""
    if reading.word_fix is None:
        return []
    wrong, right = reading.word_fix
    return _names_rewritten(reading, targets, event, lambda v: _words_replaced(v, wrong, right))


# How alike a word spelt again and a word of a name must be for one to be the other
# ("Мелехова" → "Мелихова", "Ракитин" → "Ракитский"; "Mc Donagh" joined is "McDonagh").
RESPELT_RATIO = 0.7


def _respelt_apply(
    reading: Reading, targets: Mapping[str, tuple[StageRun, str]], event: Callable[..., None]
) -> list[StageRun]:
    """Each word the client spelt again replaces the word (or two words written apart) of
    the name, company or product it nearly is, with that word's capital; only in the value
    it is nearest to ("СолнцеДом" puts the company "СолнеДом" right, not the product
    "Солнце под ключ"). The stages changed."""
    values = [
        stage.fields.get(field_name)
        for name in WORD_FIXED_FIELDS
        if name in targets
        for stage, field_name in [targets[name]]
    ]
    # (a word a value already holds, this message's reading perhaps, is put right already)
    nearest = {
        word: max((_respelt_ratio(v, word) for v in values if isinstance(v, str)), default=0.0)
        for word in reading.respelt
    }

    def respelt(value: str) -> str:
        for word in reading.respelt:
            if _respelt_ratio(value, word) >= nearest[word]:
                value = _respelt_into(value, word)
        return value

    return _names_rewritten(reading, targets, event, respelt) if reading.respelt else []


def _names_rewritten(
    reading: Reading,
    targets: Mapping[str, tuple[StageRun, str]],
    event: Callable[..., None],
    rewrite: Callable[[str], str | None],
) -> list[StageRun]:
    """The client's name, company and product as `rewrite` puts them right (None or the
    same value: unchanged), each change a client's correction; a producer's value is kept.
    The stages changed."""
    changed = []
    for name in WORD_FIXED_FIELDS:
        if name not in targets:
            continue
        stage, field_name = targets[name]
        current = stage.fields.get(field_name)
        if not isinstance(current, str) or field_name in stage.producer_fields:
            continue
        fixed = rewrite(current)
        if fixed is None or fixed == current:
            continue
        stage.fields = {**stage.fields, field_name: fixed}
        event(Kind.FIELD_CORRECTED_BY_CLIENT, stage.key, field=field_name, old=current,
              new=fixed, evidence=reading.text[:200], statement=CORRECTION)  # fmt: skip
        changed.append(stage)
    return changed


def _nearest_words(value: str, word: str) -> tuple[float, int, int] | None:
    """(how alike, where, how many words) of the word or pair of words of `value` nearest to
    `word`, the first of equals; None for an empty value."""
    words, wanted = value.split(), word.casefold()
    windows = (
        (SequenceMatcher(None, "".join(words[i : i + size]).casefold(), wanted).ratio(), i, size)
        for size in (2, 1)
        for i in range(len(words) - size + 1)
    )
    return max(windows, key=lambda window: window[0], default=None)


def _respelt_ratio(value: str, word: str) -> float:
    """How near `word` is to the nearest word (or pair of words) of `value`."""
    nearest = _nearest_words(value, word)
    return nearest[0] if nearest else 0.0


def surname_put_right(current: Any, value: Any) -> Any:
    """A single word said for a full name that it nearly is a word of puts that word right
    ("Greg Halvorsen", then "it's Halverson, H-A-L-V-E-R-S-O-N" → "Greg Halverson"); any
    other value stands as it is."""
    if (
        isinstance(current, str)
        and isinstance(value, str)
        and len(value.split()) == 1 < len(current.split())
        and _respelt_ratio(current, value) >= RESPELT_RATIO
    ):
        return _respelt_into(current, value)
    return value


def _respelt_into(value: str, word: str) -> str:
    """`value` with the word (or the pair of words) that `word` nearly is replaced by it."""
    words = value.split()
    if word.casefold() in (w.casefold() for w in words):
        return value
    nearest = _nearest_words(value, word)
    if nearest is None or nearest[0] < RESPELT_RATIO:
        return value
    _, i, size = nearest
    old = words[i]
    new = word[:1].upper() + word[1:] if old[:1].isupper() else word
    return " ".join([*words[:i], new, *words[i + size :]])


def _words_replaced(value: str, wrong: str, right: str) -> str | None:
    """`value` with the words `wrong` (one or more, any case) put right, each replacement
    written with the capital of the word it replaces; None when `value` does not hold them."""
    words, old, new = value.split(), wrong.casefold().split(), right.split()
    if not old:
        return None
    hits = [i for i in range(len(words) - len(old) + 1)
            if [w.casefold() for w in words[i : i + len(old)]] == old]  # fmt: skip
    if not hits:
        return None
    for i in reversed(hits):
        capital = words[i][:1].isupper()
        written = [w[:1].upper() + w[1:] if capital else w for w in new]
        words[i : i + len(old)] = written
    return " ".join(words)


def _day_fix_apply(
    reading: Reading, targets: Mapping[str, tuple[StageRun, str]], event: Callable[..., None]
) -> StageRun | None:
    """ "не 15-го, а 22-го" after "срок — 15 января": the deadline's day changed, its month
    and year kept. Only when the deadline's day is the one corrected away. The stage changed,
    or None."""
    if reading.day_fix is None or "deadline" not in targets:
        return None
    stage, field_name = targets["deadline"]
    current = stage.fields.get(field_name)
    old_day, new_day = reading.day_fix
    try:
        date = datetime.date.fromisoformat(current) if isinstance(current, str) else None
        wanted = date is not None and old_day in (date.day, ANY_DAY) and date.day != new_day
        fixed = date.replace(day=new_day) if wanted else None
    except ValueError:  # "31-го" in a month of 30 days
        return None
    if fixed is None or field_name in stage.producer_fields:
        return None
    stage.fields = {**stage.fields, field_name: fixed.isoformat()}
    event(Kind.FIELD_CORRECTED_BY_CLIENT, stage.key, field=field_name, old=current,
          new=fixed.isoformat(), evidence=reading.text[:200], statement=CORRECTION)  # fmt: skip
    return stage


def _upgrades(finding: Finding, stage: StageRun, field_name: str, current: Any) -> bool:
    """A surer reading of a field whose value is a less sure reading of the reader's own."""
    if finding.field not in UPGRADED_FIELDS:
        return False
    was = read_confidence(stage.dialogue, field_name, current)
    return was is not None and finding.confidence > was


def _refines(known: Any, value: Any) -> bool:
    """Whether `value` completes `known` rather than changing it: every word of the known
    text is in the new one, which has more ("Анна" → "Анна Соколова")."""
    if not (isinstance(known, str) and isinstance(value, str)):
        return False
    known_words, new_words = known.casefold().split(), value.casefold().split()
    return (
        bool(known_words)
        and len(new_words) > len(known_words)
        and all(word in new_words for word in known_words)
    )


def _ordered(reading: Reading) -> list[str]:
    seen: dict[str, None] = {}
    for finding in reading.findings:
        seen.setdefault(finding.field, None)
    return list(seen)


def reading_meta(reading: Reading) -> dict[str, Any]:
    """The reading as the turn keeps it (its `meta`): what was found, with evidence, and the
    amounts that were mentioned but are no budget."""

    def row(finding: Finding) -> dict[str, Any]:
        return {"field": finding.field, "value": finding.value, **finding.as_event()}

    return {
        "findings": [row(f) for f in reading.findings],
        "mentions": [row(f) for f in reading.mentions],
        "asks": reading.asks,
        "confirms": reading.confirms,
    }
