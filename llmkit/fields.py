"""Building blocks for the pydantic models that model answers are parsed into."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

E164_PATTERN = r"^\+[1-9]\d{6,14}$"

# The JSON Schema marks tell the pipeline's normalisers what to canonicalise; the pattern
# makes a phone that could not be normalised fail validation with a clear field error.
PhoneE164 = Annotated[str, Field(pattern=E164_PATTERN, json_schema_extra={"x-normalise": "phone"})]
# 254 characters: the longest address SMTP carries (RFC 5321 with its erratum).
EmailAddress = Annotated[
    str,
    Field(
        pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
        max_length=254,
        json_schema_extra={"format": "email"},
    ),
]


class StructuredModel(BaseModel):
    """Base for answer schemas: trimmed strings, no NaN/Infinity, unknown keys ignored
    (a model's extra chatter in the object must not fail an otherwise good answer)."""

    model_config = ConfigDict(str_strip_whitespace=True, allow_inf_nan=False, extra="ignore")
