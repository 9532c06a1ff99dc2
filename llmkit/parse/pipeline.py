"""The parse pipeline: fast path → extraction → repair → coercion/normalisation → shape →
semantic validation. It never raises on any text; it returns a value or field errors."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from llmkit.parse.coerce import NORMALISATION_KINDS, coerce, normalise_spots
from llmkit.parse.errors import Coercion, FieldError
from llmkit.parse.extraction import Location, continues_after, extract_object, locate_object
from llmkit.parse.fast import (
    MAX_CHARS,
    MAX_DEPTH,
    JsonRejected,
    check_limits,
    loads_strict,
    read_value_at,
)
from llmkit.parse.repair import RepairFailed, might_read_quickly, repair
from llmkit.parse.semantic import SemanticValidator
from llmkit.parse.target import Target, as_target

Layer = Literal["fast", "extracted", "repaired", "coerced"]
LAYERS: tuple[Layer, ...] = ("fast", "extracted", "repaired", "coerced")


@dataclass(slots=True)
class ParseOutcome:
    """What the pipeline made of one raw answer.

    `layer` names the deepest layer that was needed to make the answer valid (for a
    failure, the deepest one reached); `data` is the plain JSON after coercion, `value`
    the validated object (a pydantic model for a model target).
    """

    ok: bool
    layer: Layer | None = None
    value: Any = None
    data: Any = None
    coercions: list[Coercion] = field(default_factory=list)
    errors: list[FieldError] = field(default_factory=list)

    @property
    def signature(self) -> str | None:
        return self.errors[0].signature if self.errors else None

    def as_dict(self) -> dict[str, Any]:
        value = self.value
        if isinstance(value, BaseModel):
            value = value.model_dump(mode="json")
        return {
            "ok": self.ok,
            "value": value if self.ok else None,
            "layer": self.layer,
            "coercions": [c.as_dict() for c in self.coercions],
            "errors": [e.as_dict() for e in self.errors],
        }


def _load(raw: str, max_chars: int, max_depth: int) -> tuple[Any, Layer] | FieldError:
    """Layers 1-3: text to JSON data, trying each layer only when the one before failed."""
    try:
        check_limits(raw, max_chars=max_chars, max_depth=max_depth)
    except JsonRejected as error:
        return FieldError(path="$", kind=error.kind, message=str(error))
    first = raw.find("{")
    if first == -1 or (first and not raw[:first].isspace()):
        try:
            data = loads_strict(raw)
            if isinstance(data, str):  # a double-encoded answer: a JSON string holding the JSON
                inner = extract_object(data).value
                if inner is not None:
                    return inner, "extracted"
        except JsonRejected as error:
            if error.kind == "non_finite":
                return FieldError(path="$", kind="non_finite", message=str(error))
        location = locate_object(raw)
    else:
        # The answer opens with an object: one strict read of it is the fast path and, when
        # something follows it, extraction's first span.
        try:
            read = read_value_at(raw, first)
        except JsonRejected as error:
            return FieldError(path="$", kind="non_finite", message=str(error))
        if read is None:
            close = raw.find("}")
            if (close != -1 and raw.find("{", close) != -1) or might_read_quickly(raw):
                location = locate_object(raw, first_span_invalid=True)
            else:  # no later object, no quick reading: where the span ends does not matter
                location = Location(None, -1, -1, first, -1, True)
        else:
            data, end = read
            if end == len(raw) or raw[end:].isspace():
                return data, "fast"
            location = Location(data, first, end, first, end, True)
    if location.value is not None and not continues_after(raw, location.value_end):
        return location.value, "extracted"
    if location.start == -1:
        return FieldError(path="$", kind="no_json", message="the answer holds no JSON object")
    # Without a span end nor a truncated tail, the caller found no quick reading to try.
    quick = location.span_end != -1 or not location.closed
    span_end = location.span_end if location.span_end != -1 else None
    text, start = raw, location.start
    if location.value is not None:  # what follows the object's comma is read with it
        text, start, span_end = raw[start:], 0, location.value_end - start
    try:
        repaired = _first_object(
            repair(text, closed=location.closed, start=start, span_end=span_end, quick=quick)
        )
    except RepairFailed as error:
        return FieldError(path="$", kind=error.kind, message=str(error))
    if location.value is not None:
        # A whole object followed by a comma: the repair read on past it. Keep the reading
        # that holds the other; when neither does, the answer is ambiguous, not guessed.
        extracted = location.value
        if not isinstance(repaired, dict) or repaired.items() <= extracted.items():
            return extracted, "extracted"
        if not extracted.items() <= repaired.items():
            return FieldError(
                path="$", kind="ambiguous", message="the answer reads as two different objects"
            )
    if not isinstance(repaired, dict):
        return FieldError(
            path="$", kind="json_invalid", message="no JSON object could be recovered"
        )
    if not _all_finite(repaired, raw):  # the strict loader refuses these; json-repair does not
        bad_number = next(iter(_non_finite_paths(repaired)))
        return FieldError(bad_number, "non_finite", "NaN and Infinity are not numbers")
    return repaired, "repaired"


# json-repair reads NaN and Infinity (as json.loads does), and an exponent of three digits or
# a run of 309 digits overflows to infinity; an answer shorter than that with none of these
# holds no such number, and the check costs one C-speed look at it.
_BIG_EXPONENT = re.compile(r"[eE][+-]?\d\d\d")
_FINITE_ONLY = json.JSONEncoder(allow_nan=False)


def _all_finite(data: Any, raw: str) -> bool:
    """Whether no number in `data` (read from `raw`) is NaN or infinite."""
    if (
        len(raw) < 309
        and "NaN" not in raw
        and "Infinity" not in raw
        and not _BIG_EXPONENT.search(raw)
    ):
        return True
    try:  # the C encoder looks far faster than a walk in Python (which only names the field)
        _FINITE_ONLY.encode(data)
    except ValueError:
        return False
    except (TypeError, RecursionError):
        return not any(_non_finite_paths(data))
    return True


def _first_object(value: Any) -> Any:
    """json-repair reads several top-level values as a list; the first object is the
    answer, as in extraction."""
    if isinstance(value, list):
        return next((item for item in value if isinstance(item, dict)), value)
    return value


def _non_finite_paths(data: Any, path: str = "$") -> Iterable[str]:
    if isinstance(data, float) and not math.isfinite(data):
        yield path
    elif isinstance(data, dict):
        for key, item in data.items():
            yield from _non_finite_paths(item, key if path == "$" else f"{path}.{key}")
    elif isinstance(data, list):
        for index, item in enumerate(data):
            yield from _non_finite_paths(item, f"{path}.{index}")


def parse(
    raw: str | bytes,
    target: type[BaseModel] | dict[str, Any] | Target,
    *,
    validators: Iterable[SemanticValidator] = (),
    context: Mapping[str, Any] | None = None,
    max_chars: int = MAX_CHARS,
    max_depth: int = MAX_DEPTH,
) -> ParseOutcome:
    """Turn one raw model answer into a validated object, or say exactly what is wrong."""
    target = as_target(target)
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    loaded = _load(raw, max_chars, max_depth)
    if isinstance(loaded, FieldError):
        return ParseOutcome(ok=False, errors=[loaded])
    data, layer = loaded

    coercions: list[Coercion] = []
    if target.has_normalisers and target.normaliser_spots is None:
        errors = [FieldError("$", "unchecked", "normalisers need the full walk")]
    else:
        if target.normaliser_spots:
            data, coercions = normalise_spots(data, target.normaliser_spots)
        value, errors = target.validate(data)
    if errors:
        data, walked = coerce(data, target.json_schema, cache=target.walk_cache)
        coercions += walked
        if any(c.kind not in NORMALISATION_KINDS for c in walked):
            layer = "coerced"
        value, errors = target.validate(data)
    if not errors:
        for validator in validators:
            errors.extend(validator(value, context or {}))
    if errors:
        return ParseOutcome(ok=False, layer=layer, data=data, coercions=coercions, errors=errors)
    return ParseOutcome(ok=True, layer=layer, value=value, data=data, coercions=coercions)
