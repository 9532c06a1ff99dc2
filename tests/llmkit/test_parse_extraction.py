"""Tolerant extraction: the first balanced top-level object out of prose and fences."""

import json

from hypothesis import given
from hypothesis import strategies as st

from llmkit.parse.extraction import balanced_objects, extract_object, first_object


def test_object_inside_prose():
    assert first_object('Sure! Here it is: {"a": 1} Hope that helps.') == {"a": 1}


def test_object_inside_markdown_fence():
    text = 'Answer:\n```json\n{"a": {"b": [1, 2]}}\n```\n'
    assert first_object(text) == {"a": {"b": [1, 2]}}


def test_first_of_several_objects_wins():
    assert first_object('{"n": 1}\n{"n": 2}') == {"n": 1}


def test_braces_inside_strings_do_not_break_balance():
    text = 'x {"msg": "use {curly} and \\"quotes\\" }", "ok": true} y'
    assert first_object(text) == {"msg": 'use {curly} and "quotes" }', "ok": True}


def test_prose_braces_before_the_object_are_skipped():
    text = 'The format is {name: value}. Result: {"name": "Acme"}'
    assert first_object(text) == {"name": "Acme"}


def test_truncated_object_is_not_extracted_but_offered_to_repair():
    text = 'Here: {"a": 1, "b": [1, 2'
    assert extract_object(text) == (None, '{"a": 1, "b": [1, 2', False)


def test_an_object_nested_in_a_truncated_one_is_not_top_level():
    text = '{"a": 1, "b": {"c": 2}'
    assert extract_object(text) == (None, text, False)


def test_an_object_nested_in_a_broken_one_is_not_top_level():
    text = 'x {"a": {"b": 1},} y'
    assert extract_object(text) == (None, '{"a": {"b": 1},}', True)


def test_repair_candidate_is_the_first_balanced_span():
    assert extract_object("pre {'a': 1,} post").candidate == "{'a': 1,}"
    assert extract_object("no object here") == (None, None, True)


def test_a_later_valid_object_wins_over_an_earlier_broken_one():
    assert extract_object("pre {'a': 1,} post {\"b\": 2}").value == {"b": 2}


def test_adversarial_open_braces_terminate():
    assert first_object("{" * 200_000) is None
    assert list(balanced_objects("{" * 1000 + "}")) == []


_json_objects = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=12),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(st.text(max_size=5), children, max_size=3)
        ),
        max_leaves=8,
    ),
    max_size=5,
)
# Prose that cannot itself contain an object: no braces.
_prose = st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=60)


@given(_prose, _json_objects, _prose)
def test_finds_a_valid_object_embedded_anywhere_in_prose(before, value, after):
    assert first_object(before + json.dumps(value, ensure_ascii=False) + after) == value


@given(st.text(max_size=300))
def test_never_raises_on_arbitrary_text(text):
    value, candidate, _ = extract_object(text)
    assert value is None or isinstance(value, dict)
    assert candidate is None or candidate.startswith("{")
