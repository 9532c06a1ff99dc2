"""Layer 3, syntax repair with json-repair, under a size cap and a time limit."""

from __future__ import annotations

import re
import threading
from typing import Any

import json_repair

from llmkit.parse.fast import JsonRejected, loads_strict

MAX_REPAIR_CHARS = 200_000
# json-repair is pure Python and roughly linear; below this size it finishes in a few
# milliseconds, so it runs inline. Larger inputs run in a worker thread we stop waiting for.
INLINE_CHARS = 16_000
TIME_LIMIT_S = 2.0
MAX_BLOCK_COMMENTS = 16


# The two most common defects, trailing commas and comments, fixed by one string-aware
# regex pass (strings are matched first and kept as they are), then parsed by the C
# decoder: a fraction of json-repair's cost for the same result on these answers.
_QUICK_FIXES = re.compile(
    r'(?P<string>"(?:[^"\\\n]|\\.)*")|,(?=\s*[}\]])|//[^\n]*|/\*.*?\*/', re.DOTALL
)


def _keep_strings(match: re.Match[str]) -> str:
    return match.group("string") or ""


def quick_repair(text: str) -> Any:
    """Trailing commas and comments removed, then strict parsing; None when that is not
    enough (quotes, truncation, unquoted keys are json-repair's work)."""
    if len(text) > INLINE_CHARS or text.count("/*") > MAX_BLOCK_COMMENTS:
        return None  # an unclosed "/*" scans to the end: keep the regex pass linear
    if "," not in text and "/" not in text:
        return None
    fixed = _QUICK_FIXES.sub(_keep_strings, text)
    if fixed == text:
        return None
    try:
        return loads_strict(fixed)
    except JsonRejected:
        return None


class RepairFailed(ValueError):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _repair(text: str) -> Any:
    # The pipeline only gets here after json.loads failed; do not let json-repair retry it.
    return json_repair.repair_json(text, return_objects=True, skip_json_loads=True)


def repair(
    text: str, *, max_chars: int = MAX_REPAIR_CHARS, time_limit_s: float = TIME_LIMIT_S
) -> Any:
    """Repair trailing commas, single quotes, comments, unquoted keys and truncation.

    Raises RepairFailed when the input is over the cap, runs past the time limit, or
    json-repair itself gives up.
    """
    if len(text) > max_chars:
        raise RepairFailed("too_large", f"{len(text)} characters, the repair cap is {max_chars}")
    quick = quick_repair(text)
    if quick is not None:
        return quick
    if len(text) <= INLINE_CHARS:
        try:
            return _repair(text)
        except (ValueError, RecursionError, IndexError, TypeError) as error:
            raise RepairFailed("repair_failed", f"json-repair gave up: {error}") from None
    result: list[Any] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            result.append(_repair(text))
        except Exception as error:  # reported to the caller below, never lost
            failure.append(error)

    worker = threading.Thread(target=work, name="json-repair", daemon=True)
    worker.start()
    worker.join(time_limit_s)
    if worker.is_alive():
        raise RepairFailed("repair_timeout", f"repair ran past {time_limit_s} s")
    if failure:
        raise RepairFailed("repair_failed", f"json-repair gave up: {failure[0]}")
    return result[0]
