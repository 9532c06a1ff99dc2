"""core.input: the checks every entry point shares, on their own (the entry points' tests
show each refusal in its response shape)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.input import (
    LONGEST_RUN,
    InputError,
    datetime_problem,
    json_parse,
    long_runs_blank,
    text_clean,
    text_problem,
)

LIMITS = {"max_depth": 4, "max_int_digits": 5}


def test_text_problems_are_named_and_clean_text_has_none():
    assert text_problem("Привет 😀") == ""
    assert "NUL" in text_problem("a\x00b")
    assert "lone surrogate" in text_problem("a\ud83db")
    assert text_clean("a\x00b\ud83dc") == "ab\ufffdc"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(-timedelta(hours=14))), "out of range"),
        (datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))), "out of range"),
        (datetime(1969, 12, 31, 23, 59, tzinfo=UTC), "out of range (before 1970)"),
        (datetime(3000, 1, 1, tzinfo=UTC), "out of range (in or after 3000)"),
        (datetime(2025, 6, 3, 10, 15), "without a time zone"),
        (datetime(2025, 6, 3, 10, 15, tzinfo=timezone(timedelta(hours=3))), ""),
    ],
)
def test_a_date_must_have_a_zone_and_lie_in_range(value, problem):
    assert datetime_problem(value) == problem


@pytest.mark.parametrize(
    ("text", "path", "words"),
    [
        ("[[[[[1]]]]]", "$", "deeper than 4"),
        ('{"a": "[[[[[[", "b": {"c": 123456}}', "$", "more than 5 digits"),
        ('{"a": [1, {"b": "x\\udc00"}]}', "a.1.b", "lone surrogate"),
        ('{"\\ud800": 1}', "\\ud800", "key is not valid Unicode"),
        ("-Infinity", "$", "Infinity is not a JSON value"),
        (b"\xff", "$", "not UTF-8"),
    ],
)
def test_json_beyond_the_limits_is_refused_where_it_goes_wrong(text, path, words):
    with pytest.raises(InputError) as refused:
        json_parse(text, **LIMITS)
    assert refused.value.path == path
    assert words in refused.value.message


def test_json_within_the_limits_parses_as_the_standard_parser_does():
    text = '{"a": [[["[[[[[[[ in a string", -12345, 1.5e3]]], "b": "\\ud83d\\ude00\\u0000"}'
    assert json_parse(text, **LIMITS) == {
        "a": [[["[[[[[[[ in a string", -12345, 1500.0]]],
        "b": "😀\x00",
    }


_RUNS = st.lists(
    st.tuples(st.sampled_from("9аz"), st.integers(1, 3 * LONGEST_RUN), st.sampled_from(" ,.-")),
    max_size=8,
)


@given(_RUNS)
@settings(deadline=200)
def test_runs_longer_than_any_word_are_blanked_and_nothing_else_changes(runs):
    text = "".join(char * length + separator for char, length, separator in runs)
    expected = "".join(
        (char * length if length <= LONGEST_RUN else " ") + separator
        for char, length, separator in runs
    )
    assert long_runs_blank(text) == expected
