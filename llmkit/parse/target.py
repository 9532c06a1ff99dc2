"""What an answer is parsed into: a pydantic model or a plain JSON Schema, behind one interface."""

from __future__ import annotations

import functools
import re
from typing import Any, Protocol

import jsonschema
from pydantic import BaseModel, ValidationError

from llmkit.parse.errors import FieldError

NORMALISER_MARK = "x-normalise"


class Target(Protocol):
    name: str
    json_schema: dict[str, Any]
    # Whether the schema asks for normalisers (phones, e-mails), which must run even on
    # answers that already validate.
    has_normalisers: bool

    def validate(self, data: Any) -> tuple[Any, list[FieldError]]:
        """Return (validated value, []) or (None, field errors)."""
        ...


def _schema_has_normalisers(schema: Any) -> bool:
    if isinstance(schema, dict):
        if NORMALISER_MARK in schema or schema.get("format") in ("email", "phone"):
            return True
        return any(_schema_has_normalisers(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_schema_has_normalisers(item) for item in schema)
    return False


def _loc_to_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "$"


class ModelTarget:
    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model
        self.name = model.__name__
        self.json_schema = model.model_json_schema()
        self.has_normalisers = _schema_has_normalisers(self.json_schema)

    def validate(self, data: Any) -> tuple[Any, list[FieldError]]:
        try:
            return self.model.model_validate(data), []
        except ValidationError as error:
            return None, [
                FieldError(
                    path=_loc_to_path(detail["loc"]),
                    kind=detail["type"],
                    message=detail["msg"],
                    input=detail.get("input"),
                )
                for detail in error.errors(include_url=False)
            ]


_REQUIRED_NAME = re.compile(r"^'(?P<name>.+)' is a required property$")


class SchemaTarget:
    """A plain JSON Schema (Draft 2020-12), as given to `python -m llmkit.parse --schema-file`."""

    def __init__(self, schema: dict[str, Any], *, name: str | None = None) -> None:
        jsonschema.Draft202012Validator.check_schema(schema)
        self.json_schema = schema
        self.name = name or str(schema.get("title") or "schema")
        self.has_normalisers = _schema_has_normalisers(schema)
        self._validator = jsonschema.Draft202012Validator(schema)

    def validate(self, data: Any) -> tuple[Any, list[FieldError]]:
        errors = []
        for error in sorted(self._validator.iter_errors(data), key=lambda e: list(e.path)):
            path = _loc_to_path(tuple(error.absolute_path))
            kind = str(error.validator)
            if kind == "required":
                match = _REQUIRED_NAME.match(error.message)
                if match:
                    name = match.group("name")
                    path = name if path == "$" else f"{path}.{name}"
                kind = "missing"
            errors.append(
                FieldError(path=path, kind=kind, message=error.message, input=error.instance)
            )
        return (None, errors) if errors else (data, [])


@functools.lru_cache(maxsize=256)
def _model_target(model: type[BaseModel]) -> ModelTarget:
    return ModelTarget(model)


def as_target(spec: type[BaseModel] | dict[str, Any] | Target) -> Target:
    """A pydantic model class, a JSON Schema dict, or a ready Target."""
    if isinstance(spec, type) and issubclass(spec, BaseModel):
        return _model_target(spec)
    if isinstance(spec, dict):
        return SchemaTarget(spec)
    return spec
