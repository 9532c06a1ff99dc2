"""The parse pipeline's error kinds (llmkit's stable machine words: `no_json`, `missing`,
pydantic's and JSON Schema's types) under names a person reads, in the active language. The
office reads the label; the raw kind and message stay on the page as technical detail."""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

NO_JSON = _("the answer holds no JSON object")
UNREADABLE = _("the JSON in the answer cannot be read")
NOT_ALLOWED = _("not one of the allowed values")
OUT_OF_RANGE = _("the number is out of range")
WRONG_LENGTH = _("too short or too long")
WRONG_FORMAT = _("the value has the wrong format")
EXTRA_FIELD = _("a field the schema does not have")
WHOLE_NUMBER = _("expected a whole number")
NUMBER = _("expected a number")
YES_OR_NO = _("expected yes or no")
TEXT = _("expected text")
LIST = _("expected a list")
OBJECT = _("expected an object")
DATE = _("expected a date")
WRONG_TYPE = _("the value is of the wrong type")
DOES_NOT_FIT = _("the answer does not fit the schema")

ERROR_KIND_LABELS: dict[str, Promise] = {
    # The pipeline's own layers (llmkit.parse.pipeline, fast, repair, semantic).
    "no_json": NO_JSON,
    "json_invalid": UNREADABLE,
    "ambiguous": _("the answer holds two different objects"),
    "non_finite": _("a number is not finite (NaN or infinity)"),
    "too_large": _("the answer is too long"),
    "too_deep": _("the answer nests too deep"),
    "repair_failed": _("the broken JSON could not be repaired"),
    "repair_timeout": _("repairing the JSON took too long"),
    "not_in_source": _("the value is not in the client's words"),
    "unknown_reference": _("refers to something that does not exist"),
    "missing": _("a required field is missing"),
    # JSON Schema's validators (llmkit.parse.target checks a schema given as a dict).
    "type": WRONG_TYPE,
    "enum": NOT_ALLOWED,
    "const": NOT_ALLOWED,
    "minimum": OUT_OF_RANGE,
    "maximum": OUT_OF_RANGE,
    "exclusiveMinimum": OUT_OF_RANGE,
    "exclusiveMaximum": OUT_OF_RANGE,
    "multipleOf": OUT_OF_RANGE,
    "minLength": WRONG_LENGTH,
    "maxLength": WRONG_LENGTH,
    "minItems": WRONG_LENGTH,
    "maxItems": WRONG_LENGTH,
    "pattern": WRONG_FORMAT,
    "format": WRONG_FORMAT,
    "additionalProperties": EXTRA_FIELD,
    # pydantic's error types (a pydantic model as the target).
    "literal_error": NOT_ALLOWED,
    "enum_error": NOT_ALLOWED,
    "int_parsing": WHOLE_NUMBER,
    "int_type": WHOLE_NUMBER,
    "int_from_float": WHOLE_NUMBER,
    "float_parsing": NUMBER,
    "float_type": NUMBER,
    "greater_than": OUT_OF_RANGE,
    "greater_than_equal": OUT_OF_RANGE,
    "less_than": OUT_OF_RANGE,
    "less_than_equal": OUT_OF_RANGE,
    "bool_parsing": YES_OR_NO,
    "bool_type": YES_OR_NO,
    "string_type": TEXT,
    "string_too_short": WRONG_LENGTH,
    "string_too_long": WRONG_LENGTH,
    "too_short": WRONG_LENGTH,
    "too_long": WRONG_LENGTH,
    "string_pattern_mismatch": WRONG_FORMAT,
    "list_type": LIST,
    "dict_type": OBJECT,
    "model_type": OBJECT,
    "model_attributes_type": OBJECT,
    "date_parsing": DATE,
    "date_type": DATE,
    "date_from_datetime_parsing": DATE,
    "extra_forbidden": EXTRA_FIELD,
    "json_type": UNREADABLE,
}


def error_kind_label(kind: str) -> str:
    """A kind's label; a kind without one (a validator added later) reads as the answer not
    fitting the schema rather than as the code."""
    return str(ERROR_KIND_LABELS.get(kind, DOES_NOT_FIT))


def error_label(error: Any) -> str:
    """The label of one stored error (a `FieldError.as_dict()`; an older letter may hold a
    bare string, which has no kind)."""
    kind = error.get("kind", "") if isinstance(error, dict) else ""
    return error_kind_label(kind)


def signature_kind(signature: str) -> str:
    """The kind of an error signature (`path: kind`)."""
    return signature.rpartition(": ")[2]
