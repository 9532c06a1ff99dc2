"""Navigating a JSON Schema the way pydantic writes one: local `$ref`s, `anyOf` unions,
`type` lists. Shared by the coercion layer, the answer targets and the rules agent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_REF_HOPS = 32
# The mark that asks the pipeline's normalisers to canonicalise a string ("phone"); the
# standard `format: email` is honoured as well.
NORMALISER_MARK = "x-normalise"


def pointer(root: Any, ref: str) -> Any:
    """The node a local JSON pointer (`#/$defs/Name`) names, or {} when there is none.
    Remote references are not followed: no I/O here."""
    if not ref.startswith("#"):
        return {}
    node: Any = root
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return {}
    return node


def resolve(schema: Any, root: Any) -> Any:
    """Follow `$ref`s (siblings of a `$ref` override the target); a loop gives {}."""
    hops = 0
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        hops += 1
        if hops > MAX_REF_HOPS:
            return {}
        target = pointer(root, schema["$ref"])
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **rest} if isinstance(target, Mapping) else rest
    return schema


def branches(schema: Any, root: Any) -> list[dict[str, Any]]:
    """The alternatives a value may take: `anyOf`/`oneOf` flattened, a single-item `allOf`
    merged, references resolved. Linear in the schema: an alternative that leads back to one
    being flattened adds nothing, and the walk stops after MAX_BRANCH_STEPS nodes."""
    flattening = _Flattening(root)
    flattening.add(schema)
    return flattening.found or [{}]


# Nodes one flattening may visit: far more than any real schema's unions, far fewer than a
# schema whose definitions branch into each other would take.
MAX_BRANCH_STEPS = 256


class _Flattening:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.found: list[dict[str, Any]] = []
        self.open: set[int] = set()
        self.steps = 0

    def add(self, schema: Any) -> None:
        self.steps += 1
        if self.steps > MAX_BRANCH_STEPS or id(schema) in self.open:
            return
        self.open.add(id(schema))
        try:
            self._add(resolve(schema, self.root))
        finally:
            self.open.discard(id(schema))

    def _add(self, schema: Any) -> None:
        if not isinstance(schema, Mapping):
            self.found.append({})
            return
        if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            inner = _Flattening(self.root)
            inner.open, inner.steps = self.open, self.steps
            inner.add(schema["allOf"][0])
            self.steps = inner.steps
            schema = {**(inner.found[0] if inner.found else {}), **schema}
            schema.pop("allOf")
        options = schema.get("anyOf") or schema.get("oneOf")
        if not isinstance(options, list) or not options:
            self.found.append(dict(schema))
            return
        for option in options:
            self.add(option)


def types_of(branch: Mapping[str, Any]) -> set[str]:
    """The JSON types one branch allows, inferred from `const`/`enum`/`properties`/`items`
    when `type` is absent."""
    declared = branch.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {item for item in declared if isinstance(item, str)}
    if "const" in branch:
        return {"null"} if branch["const"] is None else {"string"}
    if isinstance(branch.get("enum"), list):
        return {"null" if item is None else "string" for item in branch["enum"]}
    if isinstance(branch.get("properties"), Mapping):
        return {"object"}
    if "items" in branch:
        return {"array"}
    return set()


def normaliser_of(branch: Mapping[str, Any]) -> str | None:
    mark = branch.get(NORMALISER_MARK) or branch.get("format")
    return mark if mark in ("phone", "email") else None
