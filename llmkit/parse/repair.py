"""Layer 3, syntax repair with json-repair, under a size cap and a time limit."""

from __future__ import annotations

import threading
from typing import Any

import json_repair

MAX_REPAIR_CHARS = 200_000
# json-repair is pure Python and roughly linear; below this size it finishes in a few
# milliseconds, so it runs inline. Larger inputs run in a worker thread we stop waiting for.
INLINE_CHARS = 16_000
TIME_LIMIT_S = 2.0


class RepairFailed(ValueError):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _repair(text: str) -> Any:
    return json_repair.loads(text)


def repair(
    text: str, *, max_chars: int = MAX_REPAIR_CHARS, time_limit_s: float = TIME_LIMIT_S
) -> Any:
    """Repair trailing commas, single quotes, comments, unquoted keys and truncation.

    Raises RepairFailed when the input is over the cap, runs past the time limit, or
    json-repair itself gives up.
    """
    if len(text) > max_chars:
        raise RepairFailed("too_large", f"{len(text)} characters, the repair cap is {max_chars}")
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
