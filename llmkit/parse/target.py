"""What an answer is parsed into: a pydantic model or a plain JSON Schema, behind one interface."""

from __future__ import annotations

import functools
import re
from typing import Any, Protocol

import jsonschema
from pydantic import BaseModel, ValidationError

from llmkit.parse.errors import FieldError
from llmkit.schema_tools import branches, normaliser_of, resolve

# Where a schema asks for normalisers: (top-level property, normaliser, holds a list).
NormaliserSpots = tuple[tuple[str, str, bool], ...]


class Target(Protocol):
    name: str
    json_schema: dict[str, Any]
    # Normalisers (phones, e-mails) must run even on answers that already validate. When
    # they sit only on top-level properties (or their list items), `normaliser_spots` names
    # them so a valid answer is normalised without walking it; None means "walk it all".
    has_normalisers: bool
    normaliser_spots: NormaliserSpots | None
    # The coercion walker's notes on `json_schema`, kept for the target's lifetime.
    walk_cache: dict[int, Any]

    def validate(self, data: Any) -> tuple[Any, list[FieldError]]:
        """Return (validated value, []) or (None, field errors)."""
        ...


def _schema_has_normalisers(schema: Any) -> bool:
    if isinstance(schema, dict):
        if normaliser_of(schema):
            return True
        return any(_schema_has_normalisers(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_schema_has_normalisers(item) for item in schema)
    return False


def _normaliser_spots(schema: dict[str, Any]) -> NormaliserSpots | None:
    spots: list[tuple[str, str, bool]] = []
    for name, property_schema in (schema.get("properties") or {}).items():
        for branch in branches(property_schema, schema):
            mark = normaliser_of(branch)
            if mark:
                spots.append((name, mark, False))
            elif isinstance(branch.get("items"), dict):
                for item in branches(branch["items"], schema):
                    if normaliser_of(item):
                        spots.append((name, normaliser_of(item), True))
    # A mark anywhere else (in a nested object) needs the full walk.
    all_marks = _MarkCount(schema).count(schema.get("properties") or {})
    return tuple(spots) if len(spots) == all_marks else None


class _MarkCount:
    """The normaliser marks on every path through a schema, `$ref`s followed but never back
    into a node being counted; past _MAX_MARK_STEPS nodes the count is unknown (-1), which
    asks for the full walk."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.open: set[int] = set()
        self.steps = 0

    def count(self, node: Any) -> int:
        self.steps += 1
        if self.steps > _MAX_MARK_STEPS:
            return -1
        if id(node) in self.open or not isinstance(node, dict | list):
            return 0
        self.open.add(id(node))
        try:
            if isinstance(node, list):
                parts = [self.count(item) for item in node]
                marks = 0
            else:
                resolved = resolve(node, self.root) if "$ref" in node else node
                parts = [self.count(value) for value in resolved.values()]
                marks = int(bool(normaliser_of(resolved)))
        finally:
            self.open.discard(id(node))
        return -1 if -1 in parts else marks + sum(parts)


_MAX_MARK_STEPS = 5_000


def _loc_to_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "$"


class ModelTarget:
    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model
        # The core validator directly: model_validate adds a Python-level call per answer.
        self._validate_python = model.__pydantic_validator__.validate_python
        self.name = model.__name__
        self.json_schema = model.model_json_schema()
        self.has_normalisers = _schema_has_normalisers(self.json_schema)
        self.normaliser_spots = _normaliser_spots(self.json_schema)
        self.walk_cache: dict[int, Any] = {}

    def validate(self, data: Any) -> tuple[Any, list[FieldError]]:
        try:
            return self._validate_python(data), []
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
        self.normaliser_spots = _normaliser_spots(schema)
        self.walk_cache: dict[int, Any] = {}
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
