"""Semantic validators: checks beyond shape that a caller passes to the pipeline.

A validator is any callable `(value, context) -> Iterable[FieldError]`; these are the
common ones. `value` is what shape validation produced (a pydantic model or a dict).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from llmkit.parse.errors import FieldError

SemanticValidator = Callable[[Any, Mapping[str, Any]], Iterable[FieldError]]


def field_value(value: Any, field: str) -> Any:
    """Read a top-level field from a pydantic model or a dict."""
    if isinstance(value, Mapping):
        return value.get(field)
    return getattr(value, field, None)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def number_in_source(field: str, *, source_key: str = "source_text") -> SemanticValidator:
    """The number in `field` must be written in the source text (in any grouping or with a
    magnitude word), so a model cannot invent a budget the client never gave."""

    def check(value: Any, context: Mapping[str, Any]) -> Iterable[FieldError]:
        number = field_value(value, field)
        source = context.get(source_key)
        if number is None or not isinstance(source, str):
            return []
        from llmkit.extract import find_money, parse_number

        candidates = {m.value for m in find_money(source)}
        candidates |= {int(n) for n in re.findall(r"\d+", _digits_spaced(source))}
        whole = parse_number(source)
        if whole is not None:
            candidates.add(whole)
        if number in candidates:
            return []
        return [
            FieldError(
                path=field,
                kind="not_in_source",
                message=f"{number} does not appear in the client's text",
                input=number,
            )
        ]

    return check


def _digits_spaced(text: str) -> str:
    # "500 000" and "500\u00a0000" are one number when written by a person.
    return re.sub(r"(?<=\d)[\s\u00a0\u202f.,](?=\d{3}\b)", "", text)


def one_of_context(field: str, *, allowed_key: str) -> SemanticValidator:
    """The value of `field` (or each item, for a list) must be one of `context[allowed_key]`,
    e.g. a referenced column or stage that must exist."""

    def check(value: Any, context: Mapping[str, Any]) -> Iterable[FieldError]:
        allowed = set(context.get(allowed_key) or ())
        found = field_value(value, field)
        items = found if isinstance(found, list) else [found]
        return [
            FieldError(
                path=field if not isinstance(found, list) else f"{field}.{index}",
                kind="unknown_reference",
                message=f"{item!r} is not one of {sorted(allowed)!r}",
                input=item,
            )
            for index, item in enumerate(items)
            if item is not None and item not in allowed
        ]

    return check
