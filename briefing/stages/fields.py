"""Field types every stage's answer model is built from: bounded text, bounded lists and
the `StageFields` base."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints

from llmkit.fields import StructuredModel

# Generous for a model's answer (a longer one is not worth a retry), while a reader keeps
# only READ_TEXT_MAX characters of a client's answer.
TEXT_MAX = 1000
ITEM_MAX = 300
LIST_MAX = 50
READ_TEXT_MAX = 300


def _none_if_blank(value: str | None) -> str | None:
    return value or None


def _drop_blank_items(values: list[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


# A model's "" means "unknown" as much as null does: both are stored as None.
Text = Annotated[
    Annotated[str, StringConstraints(strip_whitespace=True, max_length=TEXT_MAX)] | None,
    AfterValidator(_none_if_blank),
]
TextList = Annotated[
    list[Annotated[str, StringConstraints(strip_whitespace=True, max_length=ITEM_MAX)]],
    Field(max_length=LIST_MAX),
    AfterValidator(_drop_blank_items),
]


class StageFields(StructuredModel):
    """A stage's own fields without `message` and the status flag: what the final brief
    stores per stage. A stage's answer model is `class XAnswer(XFields, StageAnswer)`, so
    the fields are declared once and `message` comes first in the answer's JSON."""
