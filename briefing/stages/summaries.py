"""Summary formatting shared by the stages: numbers with thin spaces, "Label: value" lines."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from briefing.stages.base import is_empty
from briefing.stages.readers import (
    collapse,
)

# The narrow no-break space: a thin space that does not break a number across lines, and
# unambiguous in every language ("2,500" is not).
THIN_SPACE = "\u202f"


def format_number(value: Any) -> str:
    """500000 → "500 000" with thin spaces; anything else as text."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return collapse(str(value))
    if isinstance(value, float) and not value.is_integer():
        whole, _, fraction = f"{value:,.2f}".partition(".")
        return whole.replace(",", THIN_SPACE) + "," + fraction.rstrip("0")
    return f"{int(value):,}".replace(",", THIN_SPACE)


def format_value(value: Any) -> str:
    """A field's value on one line: lists joined with commas, numbers with thin spaces."""
    if isinstance(value, list | tuple):
        return ", ".join(format_value(v) for v in value if not is_empty(v))
    return format_number(value)


def labelled_lines(
    fields: Mapping[str, Any], labels: Mapping[str, str], order: Iterable[str]
) -> list[str]:
    """ "Label: value" for each filled field in `order` (bools are left to the caller)."""
    lines = []
    for name in order:
        value = fields.get(name)
        if is_empty(value) or isinstance(value, bool):
            continue
        text = format_value(value)
        if text:
            lines.append(f"{labels[name]}: {text}")
    return lines


def labels_for(labels: Mapping[str, Mapping[str, str]], language: str) -> Mapping[str, str]:
    """The labels in `language`, Russian for a language the stage does not speak."""
    return labels.get(language) or labels["ru"]


SummaryWriter = Callable[[Mapping[str, Any], str], str]
