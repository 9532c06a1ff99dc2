"""Layer 2, tolerant extraction: the first balanced top-level object out of prose or fences."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from llmkit.parse.fast import MAX_DEPTH, JsonRejected, loads_strict

# Everything up to the next brace outside strings (or the end of the text), strings
# included (closed, or left open to the end), as one match read in C: the scan below costs
# a step per brace, whatever lies between. Possessive, and it cannot fail, so it never
# backtracks nor restarts inside a string.
_TO_NEXT_BRACE = re.compile(
    r'(?:[^"{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z))*+(?:(?P<brace>[{}])|\Z)', re.DOTALL
)


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
        for match in _TO_NEXT_BRACE.finditer(text, start):
            if match.lastgroup is None:
                break  # no more braces
            if text[match.end() - 1] == "{":
                depth += 1
                if depth > max_depth:
                    return
            else:
                depth -= 1
                if depth == 0:
                    end = match.end()
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


class Location(NamedTuple):
    """Where the object of an answer lies, for the pipeline.

    `value` is the first top-level span that parses strictly as an object, found at
    `value_start:value_end`. `start` is where a repair should begin reading (the first
    balanced span, or the first `{` of a truncated answer; -1 when there is no `{`),
    `span_end` where that first span closes (-1 when it never closes, `closed` False).
    """

    value: dict[str, Any] | None
    value_start: int
    value_end: int
    start: int
    span_end: int
    closed: bool


def locate_object(text: str, *, first_span_invalid: bool = False) -> Location:
    """Find the object of an answer; `first_span_invalid` says the caller already failed
    to read the object at the first `{` strictly, so it is not read again."""
    start = span_end = -1
    for span_start, end in balanced_objects(text):
        if start == -1:
            start, span_end = span_start, end
            if first_span_invalid:
                continue
        try:
            value = loads_strict(text[span_start:end])
        except JsonRejected:
            continue
        if isinstance(value, dict):
            return Location(value, span_start, end, start, span_end, True)
    if start == -1:
        return Location(None, -1, -1, text.find("{"), -1, False)
    return Location(None, -1, -1, start, span_end, True)


_CONTINUATION = re.compile(r"\s*,")


def continues_after(text: str, end: int) -> bool:
    """Whether the object that closed at `end` is followed by a comma: then what comes
    next may be more of its members (`{"a": 1}, "b": 2}`), and the span alone is not the
    whole answer."""
    return _CONTINUATION.match(text, end) is not None


def extract_object(text: str) -> Extraction:
    location = locate_object(text)
    if location.start == -1:
        return Extraction(None, None)
    if not location.closed:
        return Extraction(None, text[location.start :], closed=False)
    if location.value is not None:
        return Extraction(location.value, text[location.value_start : location.value_end])
    return Extraction(None, text[location.start : location.span_end])


def first_object(text: str) -> dict[str, Any] | None:
    """The first top-level span that parses as a JSON object; the first wins."""
    return extract_object(text).value
