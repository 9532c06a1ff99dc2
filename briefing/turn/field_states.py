"""The dialogue's state of each stage field, the only thing the next question is chosen from:
unknown, read (it has a value), asked ×N, to check (a reply to a question asked twice, taken
as its answer), left for the producer (asked twice without an answer, or declined), and
confirmed (the client's yes to the read-back). Kept on the stage row (`StageRun.dialogue`:
field → {"asked": n, "state": "to_check" | "left", "evidence": text, "read": {"value": …,
"confidence": c}}) and shown on the producer's briefing page. What the reader read, and how
sure it was, lets a surer statement later replace a guess ("launching in April" → "delivered
by March 20th").

A field is asked at most MAX_ASKS times: the gate does not wait for a field left for the
producer, so no question can come back a third time, whatever the agent. The last stage also
counts its read-backs (under READBACK, never a field name): one, and one more after a
correction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from briefing.stages.base import is_empty

MAX_ASKS = 2
TO_CHECK = "to_check"
LEFT = "left"
# What the producer's page shows for a field (briefing.common.labels has the human labels).
UNKNOWN, READ, ASKED, CONFIRMED = "unknown", "read", "asked", "confirmed"


# The read-backs the stage gave, {"given": n}; a key no field can have (fields are camelCase).
READBACK = "read-back"
MAX_READBACKS = 2


def readbacks(dialogue: Mapping[str, Any]) -> int:
    entry = dialogue.get(READBACK)
    return int(entry.get("given", 0)) if isinstance(entry, Mapping) else 0


def with_readback(dialogue: Mapping[str, Any]) -> dict[str, Any]:
    return {**dialogue, READBACK: {"given": readbacks(dialogue) + 1}}


def field_names(dialogue: Mapping[str, Any]) -> list[str]:
    """The fields the dialogue holds a state for (not its read-back count)."""
    return [name for name in dialogue if name != READBACK]


def asks(dialogue: Mapping[str, Any], name: str) -> int:
    entry = dialogue.get(name)
    return int(entry.get("asked", 0)) if isinstance(entry, Mapping) else 0


def state_of(dialogue: Mapping[str, Any], name: str) -> str | None:
    entry = dialogue.get(name)
    return entry.get("state") if isinstance(entry, Mapping) else None


def left_fields(dialogue: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(name for name in field_names(dialogue) if state_of(dialogue, name) == LEFT)


def exhausted(dialogue: Mapping[str, Any], name: str) -> bool:
    """Asked as often as a field may be: not asked again."""
    return asks(dialogue, name) >= MAX_ASKS or state_of(dialogue, name) == LEFT


def with_asked(dialogue: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """The dialogue after the agent asked for `names` once more (a new dict: the turn writes
    back only stages whose state changed)."""
    updated = dict(dialogue)
    for name in dict.fromkeys(names):
        entry = dict(updated.get(name) or {})
        entry["asked"] = asks(dialogue, name) + 1
        updated[name] = entry
    return updated


def read_confidence(dialogue: Mapping[str, Any], name: str, value: Any) -> float | None:
    """How sure the reader was of `value` when it filled the field; None when the value is
    not the one it read (an agent's, a producer's, a correction's)."""
    entry = dialogue.get(name)
    read = entry.get("read") if isinstance(entry, Mapping) else None
    if isinstance(read, Mapping) and read.get("value") == value:
        return float(read.get("confidence", 1.0))
    return None


def with_read(dialogue: Mapping[str, Any], name: str, value: Any, confidence: float) -> dict:
    """The dialogue after the reader filled `name` with `value`, this sure of it."""
    entry = {**(dialogue.get(name) or {}), "read": {"value": value, "confidence": confidence}}
    return {**dialogue, name: entry}


def with_state(
    dialogue: Mapping[str, Any], name: str, state: str | None, evidence: str = ""
) -> dict[str, Any]:
    """The dialogue with `name` marked `state` (None: no mark, e.g. a producer filled it)."""
    updated = dict(dialogue)
    entry = {k: v for k, v in (updated.get(name) or {}).items() if k not in ("state", "evidence")}
    if state is not None:
        entry["state"] = state
        if evidence:
            entry["evidence"] = evidence[:300]
    updated[name] = entry
    return updated


def field_state(
    dialogue: Mapping[str, Any], name: str, value: Any, *, confirmed: bool = False
) -> str:
    """One field's state for the producer's page."""
    state = state_of(dialogue, name)
    if state == TO_CHECK and not is_empty(value):
        return TO_CHECK
    if not is_empty(value):
        return CONFIRMED if confirmed else READ
    if state == LEFT:
        return LEFT
    return ASKED if asks(dialogue, name) else UNKNOWN
