"""Layers 4 and 5: coercion of values to the target schema, then deterministic normalisers.

Coercion only touches values whose JSON type does not fit the schema ("около 500 тыс" where
an integer is expected, "да" for a boolean, a lone string where a list is expected). The
normalisers (`x-normalise: phone`, `format: email`, trimmed strings) rewrite values that
already fit into their canonical form. Every change is recorded as a Coercion.
"""

from __future__ import annotations

from typing import Any

from llmkit.extract import normalise_email, normalise_phone, parse_number
from llmkit.parse.errors import Coercion, join_path
from llmkit.parse.target import NORMALISER_MARK

# Kinds that only canonicalise a value that already fitted; they do not make an answer
# count as "coerced".
NORMALISATION_KINDS = frozenset({"trimmed", "phone_e164", "email_lower"})

NULL_LIKES = frozenset(
    {
        "", "null", "none", "nil", "n/a", "na", "-", "—", "–", "?", "unknown", "not specified",
        "not provided", "tbd", "не указано", "не указан", "не указана", "нет данных",
        "неизвестно", "не знаю", "пока не знаю", "не вказано", "невідомо", "не знаю поки",
    }
)  # fmt: skip

BOOLEAN_WORDS = {
    **dict.fromkeys(
        ["true", "yes", "y", "да", "ага", "конечно", "так", "звісно", "1", "+", "on"], True
    ),
    **dict.fromkeys(["false", "no", "n", "нет", "не", "ні", "0", "-", "off"], False),
}

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    seen = 0
    while "$ref" in schema and seen < 32:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return schema
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        schema = {**node, **{k: v for k, v in schema.items() if k != "$ref"}}
        seen += 1
    if "allOf" in schema and len(schema["allOf"]) == 1:
        merged = {**_resolve(schema["allOf"][0], root), **schema}
        merged.pop("allOf")
        return merged
    return schema


def _branches(schema: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    schema = _resolve(schema, root)
    options = schema.get("anyOf") or schema.get("oneOf")
    if not options:
        return [schema]
    branches: list[dict[str, Any]] = []
    for option in options:
        branches.extend(_branches(option, root))
    return branches


def _types_of(branch: dict[str, Any]) -> set[str]:
    declared = branch.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {item for item in declared if isinstance(item, str)}
    if "const" in branch:
        return {"null"} if branch["const"] is None else {"string"}
    if "enum" in branch:
        return {"null" if item is None else "string" for item in branch["enum"]}
    if "properties" in branch:
        return {"object"}
    if "items" in branch:
        return {"array"}
    return set()


def _fits(value: Any, types: set[str]) -> bool:
    if value is None:
        return "null" in types
    if isinstance(value, bool):
        return "boolean" in types
    return any(isinstance(value, _JSON_TYPES[name]) for name in types if name in _JSON_TYPES)


class _Walker:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.changes: list[Coercion] = []

    def record(self, path: str, kind: str, before: Any, after: Any) -> Any:
        self.changes.append(Coercion(path=path or "$", kind=kind, before=before, after=after))
        return after

    def walk(self, value: Any, schema: dict[str, Any], path: str) -> Any:
        branches = _branches(schema, self.root)
        types: set[str] = set()
        for branch in branches:
            types |= _types_of(branch)
        if not types:  # an unconstrained schema: nothing to coerce towards
            return value

        if isinstance(value, str):
            value = self._string(value, branches, types, path)
        elif value is None:
            if "array" in types and "null" not in types:
                return self.record(path, "null_to_list", None, [])
            return None
        elif not _fits(value, types):
            value = self._mismatch(value, types, path)

        if isinstance(value, dict) and "object" in types:
            branch = next((b for b in branches if "object" in _types_of(b)), {})
            return self._object(value, branch, path)
        if isinstance(value, list) and "array" in types:
            branch = next((b for b in branches if "array" in _types_of(b)), {})
            items = branch.get("items")
            if isinstance(items, dict):
                return [self.walk(item, items, join_path(path, i)) for i, item in enumerate(value)]
        return value

    def _string(self, value: str, branches: list[dict], types: set[str], path: str) -> Any:
        stripped = value.strip()
        if stripped.lower() in NULL_LIKES and "null" in types and stripped not in _enum(branches):
            return self.record(path, "null_like", value, None)
        enum = _enum(branches)
        if enum:
            if value in enum:
                return value
            matched = _match_enum(stripped, enum, branches)
            if matched is not None:
                return self.record(path, "enum", value, matched)
        if "string" in types and (not enum or "string" in _plain_string_types(branches)):
            return self._normalise(value, branches, path)
        if types & {"integer", "number"}:
            number = parse_number(stripped)
            if number is not None:
                if "integer" in types and float(number).is_integer():
                    return self.record(path, "number_text", value, int(number))
                if "number" in types:
                    return self.record(path, "number_text", value, number)
        if "boolean" in types:
            word = BOOLEAN_WORDS.get(stripped.lower().rstrip(".!"))
            if word is not None:
                return self.record(path, "bool_text", value, word)
        if "array" in types:
            return self.record(path, "wrap_list", value, [value])
        return value

    def _mismatch(self, value: Any, types: set[str], path: str) -> Any:
        if isinstance(value, float) and "integer" in types and value.is_integer():
            return self.record(path, "float_to_int", value, int(value))
        if isinstance(value, int | float) and not isinstance(value, bool):
            if "boolean" in types and value in (0, 1):
                return self.record(path, "bool_number", value, bool(value))
            if "string" in types:
                return self.record(path, "number_to_string", value, str(value))
        if isinstance(value, list) and len(value) == 1 and "array" not in types:
            return self.record(path, "unwrap_list", value, value[0])
        if not isinstance(value, list) and "array" in types:
            return self.record(path, "wrap_list", value, [value])
        return value

    def _object(self, value: dict, schema: dict[str, Any], path: str) -> dict:
        properties: dict[str, Any] = schema.get("properties") or {}
        if not properties:
            return value
        result = dict(value)
        # Models rename keys ("budgetRub", "Budget RUB"); take an expected key from its
        # only look-alike rather than reporting it missing.
        for expected in properties:
            if expected in result:
                continue
            wanted = _key_form(expected)
            lookalikes = [k for k in result if k not in properties and _key_form(k) == wanted]
            if len(lookalikes) == 1:
                result[expected] = result.pop(lookalikes[0])
                self.record(join_path(path, expected), "key_alias", lookalikes[0], expected)
        for key, sub_schema in properties.items():
            if key in result and isinstance(sub_schema, dict):
                result[key] = self.walk(result[key], sub_schema, join_path(path, key))
        return result

    def _normalise(self, value: str, branches: list[dict], path: str) -> str:
        marks = {b.get(NORMALISER_MARK) or b.get("format") for b in branches}
        if "phone" in marks:
            phone = normalise_phone(value)
            if phone is not None and phone != value:
                return self.record(path, "phone_e164", value, phone)
        if "email" in marks:
            email = normalise_email(value)
            if email is not None and email != value:
                return self.record(path, "email_lower", value, email)
        stripped = value.strip()
        if stripped != value:
            return self.record(path, "trimmed", value, stripped)
        return value


def _enum(branches: list[dict]) -> list[Any]:
    values: list[Any] = []
    for branch in branches:
        if "enum" in branch:
            values.extend(branch["enum"])
        elif "const" in branch:
            values.append(branch["const"])
    return values


def _plain_string_types(branches: list[dict]) -> set[str]:
    return {
        "string"
        for b in branches
        if "string" in _types_of(b) and "enum" not in b and "const" not in b
    }


def _key_form(key: str) -> str:
    return "".join(ch for ch in key.lower() if ch.isalnum())


def _match_enum(text: str, enum: list[Any], branches: list[dict]) -> Any:
    lowered = text.lower()
    for option in enum:
        if isinstance(option, str) and option.lower() == lowered:
            return option
    # Synonyms declared by the schema: {"x-synonyms": {"purchase": ["buy", "покупка"]}}.
    for branch in branches:
        synonyms = branch.get("x-synonyms") or {}
        for option, words in synonyms.items():
            if option in enum and lowered in {str(word).lower() for word in words}:
                return option
    return None


def coerce(data: Any, schema: dict[str, Any]) -> tuple[Any, list[Coercion]]:
    """Walk `data` against the JSON Schema; return the coerced copy and what changed."""
    walker = _Walker(schema)
    return walker.walk(data, schema, "$"), walker.changes
