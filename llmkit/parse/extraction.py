"""Layer 2, tolerant extraction: the first balanced top-level object out of prose or fences."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from llmkit.parse.fast import MAX_DEPTH, JsonRejected, loads_strict, structural_chars


def balanced_objects(text: str, *, max_depth: int = MAX_DEPTH) -> Iterator[tuple[int, int]]:
    """Yield (start, end) of each balanced top-level `{...}` span, string- and escape-aware.

    Spans do not overlap: the search goes on after each span's end, so the whole scan is
    linear. It stops at a span that never closes (a truncated answer): an object nested
    inside an unfinished one is not a top-level object.
    """
    start = text.find("{")
    while start != -1:
        depth = 0
        end = -1
        for position, char in structural_chars(text, start):
            if char == "{":
                depth += 1
                if depth > max_depth:
                    return
            elif char == "}":
                depth -= 1
                if depth == 0:
                    end = position + 1
                    break
        if end == -1:
            return
        yield start, end
        start = text.find("{", end)


class Extraction(NamedTuple):
    """The first top-level span that is a JSON object (`value`), and otherwise what the
    repair layer should work on (`candidate`): the first balanced span or, when the answer
    was cut off before its object closed, everything from the first `{`."""

    value: dict[str, Any] | None
    candidate: str | None
    # False when the candidate is a truncated tail, which only json-repair can finish.
    closed: bool = True


def extract_object(text: str) -> Extraction:
    candidate = None
    for start, end in balanced_objects(text):
        span = text[start:end]
        if candidate is None:
            candidate = span
        try:
            value = loads_strict(span)
        except JsonRejected:
            continue
        if isinstance(value, dict):
            return Extraction(value, span)
    if candidate is None:
        first_brace = text.find("{")
        if first_brace == -1:
            return Extraction(None, None)
        return Extraction(None, text[first_brace:], closed=False)
    return Extraction(None, candidate)


def first_object(text: str) -> dict[str, Any] | None:
    """The first top-level span that parses as a JSON object; the first wins."""
    return extract_object(text).value
