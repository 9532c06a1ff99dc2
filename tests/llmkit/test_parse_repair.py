"""Syntax repair through json-repair, under a size cap and a time limit."""

import json

import json_repair
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmkit.parse import repair as repair_module
from llmkit.parse.repair import (
    RepairFailed,
    close_truncated,
    python_literal,
    quick_repair,
    repair,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": 2,}', {"a": 1, "b": 2}),
        ("{'a': 'x', 'b': [1, 2,],}", {"a": "x", "b": [1, 2]}),
        ('{"a": 1, // a comment\n "b": 2}', {"a": 1, "b": 2}),
        ('{"a": 1, /* block */ "b": 2}', {"a": 1, "b": 2}),
        ('{a: 1, b: "two"}', {"a": 1, "b": "two"}),
        ('{"a": 1, "list": [1, 2', {"a": 1, "list": [1, 2]}),
        ('{"message": "Здравствуйте, расскаж', {"message": "Здравствуйте, расскаж"}),
    ],
)
def test_repairs_common_model_mistakes(text, expected):
    assert repair(text) == expected


def test_size_cap_is_enforced():
    with pytest.raises(RepairFailed) as error:
        repair("{" + " " * 100, max_chars=50)
    assert error.value.kind == "too_large"


def test_time_limit_stops_waiting_for_a_slow_repair(monkeypatch):
    import threading

    release = threading.Event()

    def slow(text):
        release.wait(5)
        return {}

    monkeypatch.setattr(repair_module, "_repair", slow)
    big = "{" + '"a": 1, ' * 5000 + "}"
    with pytest.raises(RepairFailed) as error:
        repair(big, time_limit_s=0.05)
    release.set()
    assert error.value.kind == "repair_timeout"


def test_large_input_repairs_in_the_worker_thread():
    big = "{" + ", ".join(f'"k{i}": {i}' for i in range(3000)) + ",}"
    assert len(big) > repair_module.INLINE_CHARS
    assert repair(big)["k2999"] == 2999


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=",}]/*\"' x\\né", max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(alphabet="ab/,", max_size=3), children, max_size=3)
    ),
    max_leaves=10,
)


def _with_defects(text: str, positions: list[int]) -> str:
    """Insert a trailing comma before closers and comments after commas, outside strings."""
    out, in_string, escaped = [], False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "}]" and index in positions:
            out.append(",")
        out.append(char)
        if not in_string and char == "," and index in positions:
            out.append(" /* note, } */ // tail\n")
    return "".join(out)


@given(st.dictionaries(st.text(max_size=4), _values, max_size=4), st.lists(st.integers(0, 200)))
def test_quick_repair_recovers_exactly_the_original_object(value, positions):
    clean = json.dumps(value, ensure_ascii=False)
    text = _with_defects(clean, positions)
    if text == clean:
        assert quick_repair(text) is None  # nothing to fix: the quick pass stays out of the way
    else:
        assert quick_repair(text) == value


def test_quick_repair_handles_the_common_defects_without_json_repair():
    assert quick_repair('{"a": [1, 2,], "b": "x,}", // note\n "c": 1 /* done */,}') == {
        "a": [1, 2],
        "b": "x,}",
        "c": 1,
    }
    assert quick_repair("{'a': 1,}") is None  # single quotes are json-repair's work


def test_quick_repair_stays_linear_on_unclosed_comments():
    assert quick_repair('{"a": 1, ' + "/*" * 50_000 + "}") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),
        ('{"message": "Здравствуйте, расскаж', {"message": "Здравствуйте, расскаж"}),
        ('{"a": "x\\\\", "b": 1', {"a": "x\\", "b": 1}),
        ('{"a": 1, "b": [1, 2],', {"a": 1, "b": [1, 2]}),
        ('{"a": "cut at a space ', {"a": "cut at a space"}),
        ('{"a": "cut at a newline\\n', {"a": "cut at a newline"}),
        ('{"a": "Complaint: late, 16 days', {"a": "Complaint: late, 16 days"}),
        ('{"a": 1, "b', {"a": 1}),  # half a key is dropped, as json-repair drops it
        ('{"a": {"c": 1}, "b"', {"a": {"c": 1}}),
    ],
)
def test_close_truncated_finishes_a_cut_off_answer(text, expected):
    assert close_truncated(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b":',  # a key with no value yet
        '{"a": 1, "b": tru',  # half a word
        '{"a": [{"b": "c"}, {"d"',  # a key in an array's object: json-repair keeps it
        '{"a": "x, 16:9',  # ", 16:" may start a member
        '{"key": "value}',  # the brace was most likely meant to close the object
        '{"key": ["value]}',
        '{"key:value}',
        '{"key": "val\\',  # an escape cut in half
    ],
)
def test_close_truncated_leaves_cuts_it_would_have_to_guess_at_to_json_repair(text):
    assert close_truncated(text) is None
    assert repair(text, closed=False) == json_repair.loads(text)


def test_close_truncated_leaves_complete_or_mismatched_text_to_json_repair():
    assert close_truncated('{"a": 1}') is None
    assert close_truncated('{"a": [1}') is None


@given(st.dictionaries(st.text(max_size=5), _values, min_size=1, max_size=5), st.data())
def test_close_truncated_keeps_every_pair_written_before_the_cut(value, data):
    text = json.dumps(value, ensure_ascii=False)
    cut = data.draw(st.integers(1, len(text) - 1))
    result = close_truncated(text[:cut])
    if result is None:
        return
    assert isinstance(result, dict)
    assert set(result) <= set(value)
    items = list(value.items())
    for count in range(1, len(items) + 1):
        pair_end = len(json.dumps(dict(items[:count]), ensure_ascii=False)) - 1
        if pair_end <= cut:
            key, item = items[count - 1]
            assert result[key] == item


_plain_text = st.text(alphabet="abcxyz é0123456789,:-", min_size=1, max_size=10)
_plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 10**6) | _plain_text,
    lambda children: (
        st.lists(children, min_size=1, max_size=3)
        | st.dictionaries(_plain_text, children, min_size=1, max_size=3)
    ),
    max_leaves=10,
)


@given(st.dictionaries(_plain_text, _plain_values, min_size=1, max_size=4), st.data())
def test_close_truncated_reads_a_plain_cut_as_json_repair_does(value, data):
    """Where nothing written could be read two ways, the quick close is only a faster
    json-repair: it never answers something json-repair would not."""
    text = json.dumps(value, ensure_ascii=False)
    cut = text[: data.draw(st.integers(1, len(text) - 1))]
    result = close_truncated(cut)
    if result is not None:
        assert result == json_repair.loads(cut)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "{'a': 'it\\'s', 'b': true, 'c': None, 'd': [1, 2,],}",
            {"a": "it's", "b": True, "c": None, "d": [1, 2]},
        ),
        ("{'a': 'x', 'b': \"y\", 'n': null}", {"a": "x", "b": "y", "n": None}),
        ("{'a': 'true'}", {"a": "true"}),
    ],
)
def test_python_style_dicts_are_read_as_literals(text, expected):
    assert python_literal(text) == expected


@pytest.mark.parametrize(
    "text",
    ["{'a': (1, 2)}", "{'a': 1e999}", "{'a': __import__('os').system('x')}", "{'a': {1, 2}}"],
)
def test_python_literal_refuses_anything_but_json_values_and_never_runs_code(text):
    assert python_literal(text) is None
