"""Layer 2, tolerant extraction: the first balanced top-level object out of prose or fences."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from llmkit.parse.fast import MAX_DEPTH, JsonRejected, loads_strict, structural_chars

# Models wrap answers in prose, fences and second attempts; a handful of candidates is
# always enough, and the cap keeps adversarial input ("{{{{...") from going quadratic.
MAX_CANDIDATES = 32


def balanced_objects(text: str, *, max_depth: int = MAX_DEPTH) -> Iterator[tuple[int, int]]:
    """Yield (start, end) of each balanced `{...}` span, string- and escape-aware.

    Each next span starts at the next `{` after the previous span's start, so an outer span
    that is not valid JSON ("{name: ...}" in prose) cannot hide a valid object inside or
    after it.
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
        start = text.find("{", start + 1)


def first_object(text: str) -> dict[str, Any] | None:
    """The first balanced span that parses as a JSON object; the first wins over later ones."""
    for tried, (start, end) in enumerate(balanced_objects(text)):
        if tried >= MAX_CANDIDATES:
            return None
        try:
            value = loads_strict(text[start:end])
        except JsonRejected:
            continue
        if isinstance(value, dict):
            return value
    return None


def repair_candidate(text: str) -> str | None:
    """What the repair layer should work on: the first balanced span, or, when the answer
    was cut off before its object closed, everything from the first `{`."""
    start = text.find("{")
    if start == -1:
        return None
    for span_start, span_end in balanced_objects(text):
        return text[span_start:span_end]
    return text[start:]
