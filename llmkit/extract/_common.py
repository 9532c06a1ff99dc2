"""Pieces every extractor shares: the JSON form of a finding and word normalisation."""

from __future__ import annotations

import dataclasses
import datetime
import re
from typing import Any

# Typographic apostrophes: Ukrainian is written with any of them ("п'ять", "п’ять", "пʼять").
APOSTROPHES = "'\u2019\u02bc`"
APOSTROPHE_CLASS = "['\u2019\u02bc`]"
# Spaces people (and word processors) put between digit groups and words.
HSPACE_CHARS = " \t\u00a0\u202f\u2009\u2007"
HSPACE = f"[{HSPACE_CHARS}]"

_FOLD = str.maketrans({"ё": "е", "\u2019": "'", "\u02bc": "'", "`": "'"})


def fold(word: str) -> str:
    """Lower-case, ё→е and one apostrophe, so lookups need one spelling per form."""
    return word.lower().translate(_FOLD)


def word_alternation(words: Any) -> str:
    """A regex alternation of folded words that also matches their ё and apostrophe spellings.

    Longest first, so "тысячи" is tried before "тыс" and a shorter word never wins by order.
    """
    parts = []
    for word in sorted(set(words), key=lambda w: (-len(w), w)):
        escaped = re.escape(word)
        escaped = escaped.replace("е", "[её]").replace("'", APOSTROPHE_CLASS)
        escaped = escaped.replace(r"\ ", r"\s+")
        parts.append(escaped)
    return "|".join(parts)


class FindingMixin:
    """`as_dict()` for the frozen finding dataclasses: JSON-ready (dates as ISO strings)."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if isinstance(value, datetime.date):
                value = value.isoformat()
            result[field.name] = value
        return result
