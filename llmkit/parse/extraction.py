"""Layer 2, tolerant extraction: the first balanced top-level object out of prose or fences."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from llmkit.parse.fast import MAX_DEPTH, JsonRejected, loads_strict

_STRUCTURAL = re.compile(r'[{}"\\]')
# Models wrap answers in prose, fences and second attempts; a handful of candidates is
# always enough, and the cap keeps adversarial input ("{{{{...") from going quadratic.
MAX_CANDIDATES = 32


def balanced_objects(text: str, *, max_depth: int = MAX_DEPTH) -> Iterator[tuple[int, int]]:
    """Yield (start, end) of each balanced `{...}` span, string- and escape-aware.

    After a span closes, the search goes on after it; a span that is not valid JSON is
    re-scanned from its next `{` by the caller, so braces in prose cannot hide an object.
    """
    start = text.find("{")
    while start != -1:
        depth = 0
        in_string = False
        skip_until = -1
        end = -1
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
            elif char == "{":
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
