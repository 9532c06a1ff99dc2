"""Layer 1, the fast path: strict `json.loads` behind size and depth caps."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

MAX_CHARS = 1_000_000
MAX_DEPTH = 64

_STRUCTURAL = re.compile(r'[\[\]{}"\\]')


class JsonRejected(ValueError):
    """The text is not strict JSON (or is too large or deep to parse safely)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _reject_constant(name: str) -> Any:
    raise JsonRejected("non_finite", f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    # "1e400" is valid JSON that Python reads as inf; refuse it where it is parsed.
    value = float(text)
    if value in (math.inf, -math.inf):
        raise JsonRejected("non_finite", f"{text} is out of range for a number")
    return value


def structural_chars(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """Yield (position, bracket) for each of `{}[]` outside JSON strings, from `start`.

    Only structural characters are visited (a regex finds them), never every character,
    so this stays fast on long answers; escapes inside strings are honoured.
    """
    in_string = False
    skip_until = -1
    for match in _STRUCTURAL.finditer(text, start):
        position = match.start()
        if position < skip_until:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                skip_until = position + 2
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char != "\\":
            yield position, char


def exceeds_depth(text: str, max_depth: int) -> bool:
    """Whether brackets outside strings nest deeper than `max_depth`.

    The count of opening brackets bounds the depth, so ordinary answers skip the scan.
    """
    if text.count("{") + text.count("[") <= max_depth:
        return False
    depth = 0
    for _, char in structural_chars(text):
        if char in "[{":
            depth += 1
            if depth > max_depth:
                return True
        else:
            depth = max(depth - 1, 0)
    return False


def check_limits(text: str, *, max_chars: int = MAX_CHARS, max_depth: int = MAX_DEPTH) -> None:
    if len(text) > max_chars:
        raise JsonRejected("too_large", f"answer is {len(text)} characters, the cap is {max_chars}")
    if exceeds_depth(text, max_depth):
        raise JsonRejected("too_deep", f"answer nests deeper than {max_depth} levels")


# Built once: json.loads with hooks would build a new decoder on every call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def read_value_at(text: str, index: int) -> tuple[Any, int] | None:
    """The strict JSON value that starts at `index` and where it ends, ignoring what
    follows; None when no JSON value starts there. Raises JsonRejected for NaN/Infinity.

    One C-level read: for an answer that opens with an object it is both the fast path
    and the first span of extraction. Callers check the caps first (`check_limits`).
    """
    try:
        return _DECODER.raw_decode(text, index)
    except JsonRejected:
        raise
    except (ValueError, RecursionError):
        return None


def loads_strict(text: str) -> Any:
    """`json.loads` that refuses NaN/Infinity (written or overflowing) and turns every failure
    into JsonRejected.

    Callers check the size and depth caps first (`check_limits`); RecursionError is still
    caught as a last line of defence.
    """
    try:
        return _DECODER.decode(text)
    except JsonRejected:
        raise
    except RecursionError:
        raise JsonRejected("too_deep", "answer nests too deep to parse") from None
    except ValueError as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise JsonRejected("json_invalid", str(error)) from None
