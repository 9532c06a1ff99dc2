"""Every walk over a JSON Schema (the rules agent's fill, the union flattening the coercion
layer and the answer targets use, the normaliser count) does work linear in the schema, on
the schemas that made them exponential: `$ref`s back into their own unions, and definitions
that branch into each other. The work is counted (schema nodes resolved), not timed."""

from __future__ import annotations

import json
from typing import Any

import pytest

import llmkit.providers.rules as rules_module
import llmkit.schema_tools as schema_tools
from llmkit.parse.target import _MAX_MARK_STEPS, _normaliser_spots
from llmkit.providers.rules import RulesProvider
from llmkit.schema_tools import MAX_BRANCH_STEPS, branches
from llmkit.types import Message

# What hypothesis found (issue 23): a root whose unions all lead back to itself. The old walk
# merged a new dict at every `$ref` and worked each one out again: 5 ways down, 16 levels.
SELF_UNIONS = {
    "type": "object",
    "properties": {"budget": {"$ref": "#"}, "x_days": {"$ref": "#"}, "message": {"$ref": "#"}},
    "anyOf": [{"$ref": "#"}, {"$ref": "#"}, {"$ref": "#"}],
    "allOf": [{"$ref": "#"}, {"$ref": "#"}],
}


def _chain(levels: int, node: Any) -> dict[str, Any]:
    """Definitions d0 → d1 → … each reaching the next twice: no cycle, 2**levels paths."""
    defs = {f"d{i}": node(f"#/$defs/d{i + 1}") for i in range(levels)}
    defs[f"d{levels}"] = {"type": "string", "format": "email"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


OBJECT_CHAIN = _chain(
    40,
    lambda ref: {"type": "object", "properties": {"email": {"$ref": ref}, "phone": {"$ref": ref}}},
)
UNION_CHAIN = _chain(40, lambda ref: {"anyOf": [{"$ref": ref}, {"$ref": ref}]})
ALL_OF_CHAIN = _chain(40, lambda ref: {"allOf": [{"$ref": ref}, {"$ref": ref}]})

SLOW_SCHEMAS = {
    "self_unions": SELF_UNIONS,
    "object_chain": OBJECT_CHAIN,
    "union_chain": UNION_CHAIN,
    "all_of_chain": ALL_OF_CHAIN,
}


def _nodes(schema: Any) -> int:
    if isinstance(schema, dict):
        return 1 + sum(_nodes(v) for v in schema.values())
    if isinstance(schema, list):
        return 1 + sum(_nodes(v) for v in schema)
    return 1


@pytest.fixture
def resolves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times any walk resolved a schema node."""
    count = [0]
    real = schema_tools.resolve

    def counted(schema: Any, root: Any) -> Any:
        count[0] += 1
        return real(schema, root)

    for module in (schema_tools, rules_module):
        monkeypatch.setattr(module, "resolve", counted)
    monkeypatch.setattr("llmkit.parse.target.resolve", counted)
    return count


@pytest.mark.parametrize("name", SLOW_SCHEMAS)
def test_the_rules_agent_answers_a_branching_schema_in_linear_work(name: str, resolves):
    schema = SLOW_SCHEMAS[name]
    completion = RulesProvider().chat(
        [Message("user", "пишите на a@b.ru, бюджет 300 тыс., через 10 дней")], schema=schema
    )
    json.loads(completion.text)
    # Each node is worked out once; the answer's own nodes are capped (_MAX_FILLED_NODES).
    assert resolves[0] <= 4 * (_nodes(schema) + rules_module._MAX_FILLED_NODES)


def test_a_value_that_holds_itself_stops_at_the_first_repeat():
    tree = {
        "type": "object",
        "properties": {
            "budget": {"type": "integer"},
            "children": {"type": "array", "items": {"$ref": "#"}},
            "parent": {"anyOf": [{"$ref": "#"}, {"type": "null"}]},
        },
    }
    completion = RulesProvider().chat([Message("user", "бюджет 300 тыс. руб.")], schema=tree)
    assert json.loads(completion.text) == {
        "budget": 300000,
        "children": [],
        "parent": {"budget": 300000, "children": [], "parent": None},
    }


def test_past_the_cap_the_rest_of_the_answer_is_its_typed_empty_value(caplog):
    answer = json.loads(RulesProvider().chat([Message("user", "a@b.ru")], schema=OBJECT_CHAIN).text)

    def depth_and_leaves(value: Any) -> list[Any]:
        if isinstance(value, dict) and value:
            return [leaf for sub in value.values() for leaf in depth_and_leaves(sub)]
        return [value]

    leaves = depth_and_leaves(answer)
    assert "a@b.ru" in leaves  # filled while within the cap
    assert {} in leaves  # objects past the cap are empty objects
    assert "left empty" in caplog.text


@pytest.mark.parametrize("name", SLOW_SCHEMAS)
def test_union_flattening_is_bounded(name: str, resolves):
    found = branches(SLOW_SCHEMAS[name], SLOW_SCHEMAS[name])
    assert found
    assert resolves[0] <= MAX_BRANCH_STEPS + 1


def test_union_flattening_still_lists_every_alternative_of_a_real_schema():
    schema = {
        "$defs": {"Phone": {"type": "string", "x-normalise": "phone"}},
        "anyOf": [{"$ref": "#/$defs/Phone"}, {"anyOf": [{"type": "integer"}, {"type": "null"}]}],
    }
    assert branches(schema, schema) == [
        {"type": "string", "x-normalise": "phone"},
        {"type": "integer"},
        {"type": "null"},
    ]


@pytest.mark.parametrize("name", SLOW_SCHEMAS)
def test_counting_the_normaliser_marks_is_bounded(name: str, resolves):
    schema = SLOW_SCHEMAS[name]
    _normaliser_spots(schema)
    assert resolves[0] <= 4 * (_nodes(schema) + MAX_BRANCH_STEPS) + _MAX_MARK_STEPS
