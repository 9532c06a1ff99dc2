"""Layers 4 and 5: coercion of values to the target schema, then deterministic normalisers.

Coercion only touches values whose JSON type does not fit the schema ("около 500 тыс" where
an integer is expected, "да" for a boolean, a lone string where a list is expected). The
normalisers (`x-normalise: phone`, `format: email`, trimmed strings) rewrite values that
already fit into their canonical form. Every change is recorded as a Coercion.
"""

from __future__ import annotations

import re
from typing import Any

from llmkit.extract import find_money, normalise_email, normalise_phone, parse_number
from llmkit.fields import E164_PATTERN
from llmkit.parse.errors import Coercion, join_path
from llmkit.parse.target import NormaliserSpots
from llmkit.schema_tools import branches, normaliser_of, types_of

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
        ["true", "yes", "y", "да", "ага", "конечно", "так", "звісно", "1", "+", "on", "sure"],
        True,
    ),
    **dict.fromkeys(
        ["false", "no", "n", "нет", "не", "ні", "0", "-", "off", "not yet", "пока нет",
         "ещё нет", "еще нет", "поки ні", "ще ні", "none"],
        False,
    ),
}  # fmt: skip
_FIRST_WORD = re.compile(r"[\w+-]+")
_NUMBERS = re.compile(r"\d+(?:[.,]\d+)?")

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _fits(value: Any, types: set[str]) -> bool:
    if value is None:
        return "null" in types
    if isinstance(value, bool):
        return "boolean" in types
    return any(isinstance(value, _JSON_TYPES[name]) for name in types if name in _JSON_TYPES)


# What the walker learns of one schema node: its branches and the JSON types they allow.
NodeInfo = tuple[list[dict[str, Any]], set[str]]


class _Walker:
    def __init__(self, root: dict[str, Any], cache: dict[int, NodeInfo]) -> None:
        self.root = root
        self.cache = cache
        self.changes: list[Coercion] = []

    def record(self, path: str, kind: str, before: Any, after: Any) -> Any:
        self.changes.append(Coercion(path=path or "$", kind=kind, before=before, after=after))
        return after

    def node(self, schema: dict[str, Any]) -> NodeInfo:
        info = self.cache.get(id(schema))
        if info is None:
            options = branches(schema, self.root)
            types: set[str] = set()
            for branch in options:
                types |= types_of(branch)
            info = self.cache[id(schema)] = (options, types)
        return info

    def walk(self, value: Any, schema: dict[str, Any], path: str) -> Any:
        options, types = self.node(schema)
        if not types:  # an unconstrained schema: nothing to coerce towards
            return value

        if isinstance(value, str):
            value = self._string(value, options, types, path)
        elif value is None:
            if "array" in types and "null" not in types:
                return self.record(path, "null_to_list", None, [])
            return None
        elif not _fits(value, types):
            value = self._mismatch(value, types, path)

        if isinstance(value, dict) and "object" in types:
            branch = next((b for b in options if "object" in types_of(b)), {})
            return self._object(value, branch, path)
        if isinstance(value, list) and "array" in types:
            branch = next((b for b in options if "array" in types_of(b)), {})
            items = branch.get("items")
            if isinstance(items, dict):
                return [self.walk(item, items, join_path(path, i)) for i, item in enumerate(value)]
        return value

    def _string(self, value: str, options: list[dict], types: set[str], path: str) -> Any:
        stripped = value.strip()
        if stripped.lower() in NULL_LIKES and "null" in types and stripped not in _enum(options):
            return self.record(path, "null_like", value, None)
        enum = _enum(options)
        if enum:
            if value in enum:
                return value
            matched = _match_enum(stripped, enum, options)
            if matched is not None:
                return self.record(path, "enum", value, matched)
        if "string" in types and (not enum or "string" in _plain_string_types(options)):
            return self._normalise(value, options, path)
        if types & {"integer", "number"}:
            number, kind = _number_from_text(stripped)
            if number is not None:
                if "integer" in types and float(number).is_integer():
                    return self.record(path, kind, value, int(number))
                if "number" in types:
                    return self.record(path, kind, value, number)
        if "boolean" in types:
            word = _boolean_from_text(stripped)
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

    def _normalise(self, value: str, options: list[dict], path: str) -> str:
        for mark in {normaliser_of(b) for b in options} - {None}:
            normal, kind = normalise_string(value, mark)
            if normal != value:
                return self.record(path, kind, value, normal)
        stripped = value.strip()
        if stripped != value:
            return self.record(path, "trimmed", value, stripped)
        return value


def _number_from_text(text: str) -> tuple[int | float | None, str]:
    """The whole text as one quantity ("около 500 тыс"); otherwise the one amount or the one
    number a short phrase holds ("~120 тыс. в месяц", "45 days"). Two numbers ("от 100 до
    200") are a range, not a value: left for validation to report."""
    number = parse_number(text)
    if number is not None:
        return number, "number_text"
    if len(text) > 80:
        return None, ""
    amounts = find_money(text)
    if len(amounts) == 1:
        return amounts[0].value, "number_in_text"
    numbers = _NUMBERS.findall(text)
    if len(numbers) == 1 and not amounts:
        return parse_number(numbers[0]), "number_in_text"
    return None, ""


def _boolean_from_text(text: str) -> bool | None:
    """ "да" / "not yet", or a phrase opening with a yes/no word ("Да, немного")."""
    lowered = text.lower().rstrip(".!")
    if lowered in BOOLEAN_WORDS:
        return BOOLEAN_WORDS[lowered]
    first = _FIRST_WORD.match(lowered)
    if first and len(lowered) <= 80:
        return BOOLEAN_WORDS.get(first.group())
    return None


def _enum(options: list[dict]) -> list[Any]:
    values: list[Any] = []
    for branch in options:
        if "enum" in branch:
            values.extend(branch["enum"])
        elif "const" in branch:
            values.append(branch["const"])
    return values


def _plain_string_types(options: list[dict]) -> set[str]:
    return {
        "string"
        for b in options
        if "string" in types_of(b) and "enum" not in b and "const" not in b
    }


def _key_form(key: str) -> str:
    return "".join(ch for ch in key.lower() if ch.isalnum())


def _match_enum(text: str, enum: list[Any], options: list[dict]) -> Any:
    lowered = text.lower()
    for option in enum:
        if isinstance(option, str) and option.lower() == lowered:
            return option
    # Synonyms declared by the schema: {"x-synonyms": {"purchase": ["buy", "покупка"]}}.
    for branch in options:
        synonyms = branch.get("x-synonyms") or {}
        for option, words in synonyms.items():
            if option in enum and lowered in {str(word).lower() for word in words}:
                return option
    return None


_E164 = re.compile(E164_PATTERN)


def normalise_string(value: str, mark: str) -> tuple[str, str]:
    """(canonical form, coercion kind) of one string marked `phone` or `email`; a value
    that cannot be read is returned as it was, for validation to report."""
    stripped = value.strip()
    if mark == "phone":
        if _E164.match(stripped):
            return stripped, "trimmed"
        return normalise_phone(value) or value, "phone_e164"
    return normalise_email(value) or value, "email_lower"


# Already-canonical values are by far the common case on the fast path: spot them cheaply.
_CANONICAL = {
    "phone": lambda text: _E164.match(text) is not None and text[-1:].isdigit(),
    "email": lambda text: "@" in text and text == text.lower() and text == text.strip(),
}


def normalise_spots(data: dict, spots: NormaliserSpots) -> tuple[dict, list[Coercion]]:
    """Normalise only the top-level properties a schema marks: the fast path for an answer
    that already validates, without walking all of it."""
    changes: list[Coercion] = []
    result = data
    for name, mark, holds_list in spots:
        value = data.get(name)
        canonical = _CANONICAL[mark]
        if holds_list and isinstance(value, list):
            if all(type(item) is not str or canonical(item) for item in value):
                continue
        elif type(value) is not str or canonical(value):
            continue
        if holds_list and isinstance(value, list):
            items = [(f"{name}.{i}", item) for i, item in enumerate(value)]
        else:
            items = [(name, value)]
        fixed_items = []
        for path, item in items:
            fixed = item
            if isinstance(item, str):
                fixed, kind = normalise_string(item, mark)
                if fixed != item:
                    changes.append(Coercion(path=path, kind=kind, before=item, after=fixed))
            fixed_items.append(fixed)
        fixed_value = fixed_items if holds_list and isinstance(value, list) else fixed_items[0]
        if fixed_value != value:
            if result is data:  # copy once; the caller's dict is left as it was
                result = dict(data)
            result[name] = fixed_value
    return result, changes


def coerce(
    data: Any, schema: dict[str, Any], *, cache: dict[int, NodeInfo] | None = None
) -> tuple[Any, list[Coercion]]:
    """Walk `data` against the JSON Schema; return the coerced copy and what changed.

    `cache` may be kept by the owner of `schema` between calls (keys are ids of its
    nodes, valid while the schema object lives and is not changed)."""
    walker = _Walker(schema, {} if cache is None else cache)
    return walker.walk(data, schema, "$"), walker.changes
