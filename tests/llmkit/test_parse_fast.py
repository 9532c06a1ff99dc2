"""The fast path: strict json.loads behind size and depth caps."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmkit.parse.fast import JsonRejected, check_limits, exceeds_depth, loads_strict


def test_loads_plain_object():
    assert loads_strict('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": Infinity}', "[-Infinity]"])
def test_nan_and_infinity_are_rejected(text):
    with pytest.raises(JsonRejected) as error:
        loads_strict(text)
    assert error.value.kind == "non_finite"


def test_syntax_error_is_rejected_not_raised_raw():
    with pytest.raises(JsonRejected) as error:
        loads_strict('{"a": 1,}')
    assert error.value.kind == "json_invalid"


def test_size_cap():
    with pytest.raises(JsonRejected) as error:
        check_limits("x" * 101, max_chars=100)
    assert error.value.kind == "too_large"


def test_depth_cap_counts_only_brackets_outside_strings():
    assert exceeds_depth("[" * 65 + "]" * 65, 64)
    assert not exceeds_depth("[" * 64 + "]" * 64, 64)
    assert not exceeds_depth('{"a": "' + "[" * 500 + '"}', 64)
    assert not exceeds_depth('{"a": "\\"' + "{" * 500 + '"}', 64)


def test_deep_nesting_never_reaches_recursion():
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(JsonRejected) as error:
        check_limits(text)
    assert error.value.kind == "too_deep"


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
        max_leaves=20,
    )
)
def test_agrees_with_json_loads_on_valid_json(value):
    text = json.dumps(value)
    assert loads_strict(text) == json.loads(text)
