"""OpenAICompatProvider against a local server speaking the chat completions wire format."""

from __future__ import annotations

import email.utils
import json
import time
from datetime import UTC, datetime, timedelta

import pytest

from llmkit.providers.http import error_for_status, parse_retry_after
from llmkit.providers.openai_compat import OpenAICompatProvider
from llmkit.types import Message, ProviderError
from tests.llmkit.wire_servers import (
    JsonReply,
    RawReply,
    SlowReply,
    StreamReply,
    WireServer,
    free_port,
    openai_completion,
    openai_stream,
    sse,
)

PATH = "/v1/chat/completions"
MESSAGES = [Message("system", "Answer in JSON."), Message("user", "Привет")]
SCHEMA = {
    "title": "Stage answer",
    "type": "object",
    "properties": {"message": {"type": "string"}},
    "required": ["message"],
    "additionalProperties": False,
}
ANSWER = {"message": 'Здравствуйте! {не конец} "цитата"', "done": False, "items": [1, {}]}
ANSWER_TEXT = json.dumps(ANSWER, ensure_ascii=False)


def pieces_of(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.fixture
def server():
    with WireServer() as wire:
        yield wire


@pytest.fixture
def provider(server):
    provider = OpenAICompatProvider(server.url("/v1"), "sk-test", model="gpt-test")
    yield provider
    provider.close()


def test_plain_call_sends_the_documented_request_and_reads_usage(server, provider):
    server.route(PATH, JsonReply(openai_completion(ANSWER_TEXT, cached_tokens=5, model="gpt-x")))

    completion = provider.chat(MESSAGES, temperature=0.0, max_tokens=300, schema=SCHEMA)

    assert completion.text == ANSWER_TEXT
    assert completion.provider == "openai"
    assert completion.model == "gpt-x"
    assert (completion.usage.prompt_tokens, completion.usage.cached_tokens) == (11, 5)
    assert completion.usage.completion_tokens == 7
    assert completion.latency_s > 0
    assert not completion.early_closed
    (request,) = server.requests_to(PATH)
    assert request.headers["authorization"] == "Bearer sk-test"
    body = request.json()
    assert body["model"] == "gpt-test"
    assert body["messages"] == [m.as_dict() for m in MESSAGES]
    assert (body["temperature"], body["max_tokens"]) == (0.0, 300)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Stage_answer", "schema": SCHEMA, "strict": True},
    }
    assert "stream" not in body


def test_no_key_no_schema_means_no_authorization_and_no_response_format(server):
    server.route(PATH, JsonReply(openai_completion("hi")))
    provider = OpenAICompatProvider(server.url("/v1/"), model="local-model", name="llamacpp")

    completion = provider.chat(MESSAGES)

    assert completion.provider == "llamacpp"
    (request,) = server.requests_to(PATH)
    assert "authorization" not in request.headers
    assert "response_format" not in request.json()


@pytest.mark.parametrize(
    ("schema_format", "expected"),
    [
        ("json_object", {"type": "json_object", "schema": SCHEMA}),
        ("off", None),
    ],
)
def test_schema_format_for_servers_without_json_schema(server, schema_format, expected):
    server.route(PATH, JsonReply(openai_completion("{}")))
    provider = OpenAICompatProvider(server.url("/v1"), model="m", schema_format=schema_format)

    provider.chat(MESSAGES, schema=SCHEMA)

    assert server.requests_to(PATH)[0].json().get("response_format") == expected


def test_stream_reads_to_done_and_takes_usage_from_the_last_chunk(server, provider):
    prose = "There is no JSON here, just words."
    usage = {
        "prompt_tokens": 30,
        "completion_tokens": 9,
        "total_tokens": 39,
        "prompt_tokens_details": {"cached_tokens": 16},
    }
    reply = StreamReply(openai_stream(pieces_of(prose), usage=usage))
    server.route(PATH, reply)

    completion = provider.chat(MESSAGES, stream=True)

    assert completion.text == prose
    assert not completion.early_closed
    assert (completion.usage.prompt_tokens, completion.usage.cached_tokens) == (30, 16)
    assert completion.usage.completion_tokens == 9
    # The server counts a chunk after writing it: wait for its side to finish first.
    assert reply.stats.finished.wait(5)
    assert reply.stats.sent == reply.stats.total
    body = server.requests_to(PATH)[0].json()
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_stream_closes_the_connection_once_the_object_closed(server, provider):
    filler = [" and then the model keeps talking"] * 400
    events = openai_stream(["```json\n", *pieces_of(ANSWER_TEXT), "\n```", *filler])
    reply = StreamReply(events, delay_s=0.01)
    server.route(PATH, reply)

    completion = provider.chat(MESSAGES, schema=SCHEMA, stream=True)

    assert completion.early_closed
    assert completion.text == "```json\n" + ANSWER_TEXT
    assert completion.text.endswith("}")
    # The server proves the client hung up: its next writes failed long before the end.
    assert reply.stats.disconnected.wait(timeout=5)
    assert reply.stats.sent < 30 < reply.stats.total


def test_stream_waits_for_slow_chunks_after_the_object_only_for_the_usage(server):
    events = openai_stream([*pieces_of(ANSWER_TEXT), " more"], usage={"prompt_tokens": 1})
    object_events = 1 + len(pieces_of(ANSWER_TEXT))  # the role chunk, then the pieces
    server.route(PATH, StreamReply(events, pause_after=object_events, pause_s=30))
    provider = OpenAICompatProvider(server.url("/v1"), model="gpt-test", usage_wait_s=0.3)

    started = time.monotonic()
    completion = provider.chat(MESSAGES, stream=True, timeout=10)

    assert time.monotonic() - started < 0.3 + 1.5
    assert completion.early_closed
    assert completion.text == ANSWER_TEXT
    assert completion.usage.prompt_tokens == 0
    provider.close()


def test_refused_connection_is_a_connection_error():
    provider = OpenAICompatProvider(f"http://127.0.0.1:{free_port()}/v1", model="m")
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, timeout=5)
    assert caught.value.kind == "connection"
    assert caught.value.provider == "openai"


def test_hung_server_is_a_timeout_within_the_budget(server, provider):
    server.route(PATH, SlowReply(30))
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, timeout=0.3)
    assert caught.value.kind == "timeout"
    assert time.monotonic() - started < 2


def test_the_budget_covers_the_whole_stream_not_each_read(server, provider):
    # Each chunk arrives well within any per-read timeout, but the whole answer never ends.
    events = openai_stream(["word "] * 1000)
    server.route(PATH, StreamReply(events, delay_s=0.05))
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, stream=True, timeout=0.5)
    assert caught.value.kind == "timeout"
    assert time.monotonic() - started < 2


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (500, '{"error": {"message": "internal"}}', "server"),
        (503, "<html>Service Unavailable</html>", "server"),
        (401, '{"error": {"message": "Incorrect API key"}}', "auth"),
        (403, '{"error": "forbidden"}', "auth"),
        (
            400,
            '{"error": {"message": "Invalid schema for response_format: too large"}}',
            "schema_rejected",
        ),
        (422, '{"detail": "grammar is not supported by this backend"}', "schema_rejected"),
        (413, '{"error": "JSON schema exceeds the maximum size"}', "schema_rejected"),
        (400, '{"error": {"message": "max_tokens must be positive"}}', "client"),
        (404, '{"error": "model not found"}', "client"),
    ],
)
def test_http_status_maps_to_error_kind(server, provider, status, body, kind):
    server.route(PATH, RawReply(body.encode(), status=status, content_type="application/json"))
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, schema=SCHEMA)
    assert caught.value.kind == kind
    assert caught.value.status == status


def test_429_carries_retry_after_seconds(server, provider):
    server.route(PATH, JsonReply({"error": "slow down"}, status=429, headers={"Retry-After": "7"}))
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES)
    assert caught.value.kind == "rate_limited"
    assert caught.value.retry_after == 7.0


def test_429_carries_retry_after_http_date(server, provider):
    when = email.utils.format_datetime(datetime.now(UTC) + timedelta(seconds=40), usegmt=True)
    server.route(PATH, JsonReply({"error": "slow down"}, status=429, headers={"Retry-After": when}))
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES)
    assert caught.value.retry_after is not None
    assert 35 <= caught.value.retry_after <= 41


def test_retry_after_parsing_edge_cases():
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("0") == 0.0
    assert parse_retry_after("1.5") == 1.5
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 01 Jan 2025 11:00:00 GMT", now=now) == 0.0  # in the past
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None
    error = error_for_status("x", 429, "", {"retry-after": "3"})
    assert (error.kind, error.retry_after) == ("rate_limited", 3.0)


@pytest.mark.parametrize(
    "reply",
    [
        RawReply(b"<html>proxy login</html>", status=200),
        JsonReply({"choices": []}),
        JsonReply({"choices": [{"message": {"content": None, "refusal": "I can't"}}]}),
    ],
    ids=["garbage", "no-choices", "refusal"],
)
def test_unusable_body_is_a_bad_response(server, provider, reply):
    server.route(PATH, reply)
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES)
    assert caught.value.kind == "bad_response"


def test_connection_cut_mid_stream_is_a_bad_response(server, provider):
    events = openai_stream(pieces_of(ANSWER_TEXT), finish=False)[:-3]  # stop inside the object
    server.route(PATH, StreamReply(events, truncate=True))
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, stream=True)
    assert caught.value.kind == "bad_response"


def test_stream_ending_cleanly_but_unfinished_is_a_bad_response(server, provider):
    events = openai_stream(["partial answer without an end"], finish=False)
    server.route(PATH, StreamReply(events))
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, stream=True)
    assert caught.value.kind == "bad_response"
    assert "ended before" in caught.value.message


def test_garbage_event_in_stream_is_a_bad_response(server, provider):
    server.route(PATH, StreamReply([sse({"choices": []}), "data: {not json\n\n"]))
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, stream=True)
    assert caught.value.kind == "bad_response"


def test_error_event_inside_a_stream_is_a_server_error(server, provider):
    server.route(PATH, StreamReply([sse({"error": {"message": "overloaded"}})]))
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, stream=True)
    assert caught.value.kind == "server"


def test_server_that_ignores_stream_is_read_as_a_plain_answer(server, provider):
    server.route(PATH, JsonReply(openai_completion(ANSWER_TEXT)))
    completion = provider.chat(MESSAGES, stream=True)
    assert completion.text == ANSWER_TEXT
    assert completion.usage.prompt_tokens == 11


def test_missing_ca_bundle_is_a_configuration_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        OpenAICompatProvider("https://example.invalid/v1", model="m", verify=tmp_path / "nope.pem")
