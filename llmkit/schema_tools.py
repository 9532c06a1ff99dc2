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


def branches(schema: Any, root: Any, depth: int = 0) -> list[dict[str, Any]]:
    """The alternatives a value may take: `anyOf`/`oneOf` flattened, a single-item `allOf`
    merged, references resolved."""
    schema = resolve(schema, root)
    if not isinstance(schema, Mapping) or depth > MAX_REF_HOPS:
        return [{}]
    if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
        merged = {**branches(schema["allOf"][0], root, depth + 1)[0], **schema}
        merged.pop("allOf")
        schema = merged
    options = schema.get("anyOf") or schema.get("oneOf")
    if not isinstance(options, list) or not options:
        return [dict(schema)]
    found: list[dict[str, Any]] = []
    for option in options:
        found.extend(branches(option, root, depth + 1))
    return found


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
