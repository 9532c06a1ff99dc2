"""JsonObjectTracker cut points and the SSE data parser."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit.streaming import JsonObjectTracker, iter_sse_data

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)
# Prose before the object may hold anything but an opening brace (quotes, backticks, fences).
prose = st.text(alphabet=st.characters(blacklist_characters="{"), max_size=40)
trailers = st.text(max_size=40)


def feed_in_pieces(text: str, cuts: list[int]) -> tuple[JsonObjectTracker, int | None, int]:
    """Feed `text` split at `cuts`; return the tracker, the reported offset and its chunk start."""
    tracker = JsonObjectTracker()
    bounds = [0, *sorted(set(cuts)), len(text)]
    for start, end in itertools.pairwise(bounds):
        offset = tracker.feed(text[start:end])
        if offset is not None:
            return tracker, offset, start
    return tracker, None, 0


@settings(max_examples=300)
@given(
    before=prose,
    obj=objects,
    after=trailers,
    indent=st.sampled_from([None, 2]),
    data=st.data(),
)
def test_any_chunking_cuts_right_after_the_object(before, obj, after, indent, data):
    dumped = json.dumps(obj, ensure_ascii=data.draw(st.booleans()), indent=indent)
    text = before + dumped + after
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=12))

    whole = JsonObjectTracker()
    whole_offset = whole.feed(text)
    tracker, offset, chunk_start = feed_in_pieces(text, cuts)

    expected_end = len(before) + len(dumped)
    assert whole_offset == expected_end
    assert offset is not None
    assert chunk_start + offset == expected_end
    assert tracker.text == whole.text == before + dumped
    assert json.loads(tracker.object_text) == obj


def test_braces_and_escaped_quotes_inside_strings_do_not_close_the_object():
    tracker = JsonObjectTracker()
    assert tracker.feed('{"message": "a } b \\" } {", "n": ') is None
    assert tracker.depth == 1
    assert tracker.feed('{"x": "\\\\"}') is None  # an escaped backslash ends before the quote
    assert tracker.feed("} and more") == 1
    assert tracker.text == '{"message": "a } b \\" } {", "n": {"x": "\\\\"}}'


def test_escape_split_across_chunks_is_remembered():
    tracker = JsonObjectTracker()
    assert tracker.feed('{"a": "\\') is None
    assert tracker.feed('"}') is None  # the quote was escaped: still inside the string
    assert tracker.feed('"}') == 2
    assert tracker.closed


def test_prose_and_code_fence_before_the_object_are_kept_but_not_counted():
    tracker = JsonObjectTracker()
    assert tracker.feed('Sure! "Here" it is:\n```json\n') is None
    assert not tracker.started
    assert tracker.feed('{"ok": true}\n```\nAnything else?') == len('{"ok": true}')
    assert tracker.text == 'Sure! "Here" it is:\n```json\n{"ok": true}'
    assert tracker.object_text == '{"ok": true}'


def test_after_the_close_further_chunks_are_ignored():
    tracker = JsonObjectTracker()
    assert tracker.feed("{}") == 2
    assert tracker.feed('{"second": 1}') is None
    assert tracker.text == "{}"


def test_unfinished_object_stays_open():
    tracker = JsonObjectTracker()
    tracker.feed('{"a": [1, {"b": 2}')
    assert not tracker.closed
    assert tracker.depth == 1
    assert tracker.object_text == '{"a": [1, {"b": 2}'


def test_no_object_at_all():
    tracker = JsonObjectTracker()
    assert tracker.feed("just words") is None
    assert tracker.object_text is None
    assert tracker.text == "just words"


def test_sse_yields_data_payloads_until_done():
    lines = [
        ": keep-alive comment",
        "event: message",
        'data: {"a": 1}',
        "",
        "data: first line",
        "data:second line",
        "id: 7",
        "",
        "data: [DONE]",
        "",
        'data: {"after": "done"}',
        "",
    ]
    assert list(iter_sse_data(lines)) == ['{"a": 1}', "first line\nsecond line"]


def test_sse_tolerates_crlf_and_a_missing_final_blank_line():
    lines = ['data: {"a": 1}\r\n', "\r\n", 'data: {"b": 2}']
    assert list(iter_sse_data(lines)) == ['{"a": 1}', '{"b": 2}']


def test_sse_done_without_blank_line_at_the_end_is_not_yielded():
    assert list(iter_sse_data(["data: x", "", "data: [DONE]"])) == ["x"]


def test_sse_is_lazy_so_a_caller_can_stop_reading():
    consumed: list[str] = []

    def lines():
        for line in ["data: 1", "", "data: 2", "", "data: 3", ""]:
            consumed.append(line)
            yield line

    events = iter_sse_data(lines())
    assert next(events) == "1"
    assert consumed == ["data: 1", ""]
