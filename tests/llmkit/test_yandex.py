"""YandexGPTProvider against a local server speaking the Foundation Models /completion format."""

from __future__ import annotations

import json

import pytest

from llmkit.providers.yandex import YandexGPTProvider, iter_json_objects
from llmkit.types import Message, ProviderError
from tests.llmkit.wire_servers import (
    JsonReply,
    RawReply,
    StreamReply,
    WireServer,
    yandex_result,
    yandex_stream,
)

PATH = "/foundationModels/v1/completion"
MESSAGES = [Message("system", "Ответ в JSON."), Message("user", "Бюджет около 500 тыс")]
SCHEMA = {"type": "object", "properties": {"budget": {"type": "integer"}}}
ANSWER_TEXT = json.dumps({"budget": 500000, "note": "{примерно}"}, ensure_ascii=False)


@pytest.fixture
def server():
    with WireServer() as wire:
        yield wire


def make_provider(server: WireServer, **kwargs) -> YandexGPTProvider:
    kwargs.setdefault("api_key", "AQVN-key")
    return YandexGPTProvider("b1gfolder", base_url=server.url("/foundationModels/v1"), **kwargs)


def test_plain_call_sends_the_documented_body_and_converts_string_counts(server):
    server.route(
        PATH, JsonReply(yandex_result(ANSWER_TEXT, input_tokens="25", completion_tokens="8"))
    )

    completion = make_provider(server).chat(MESSAGES, temperature=0.0, max_tokens=512)

    (request,) = server.requests_to(PATH)
    assert request.headers["authorization"] == "Api-Key AQVN-key"
    assert request.headers["x-folder-id"] == "b1gfolder"
    assert request.json() == {
        "modelUri": "gpt://b1gfolder/yandexgpt/latest",
        "completionOptions": {"stream": False, "temperature": 0.0, "maxTokens": "512"},
        "messages": [
            {"role": "system", "text": "Ответ в JSON."},
            {"role": "user", "text": "Бюджет около 500 тыс"},
        ],
        "jsonObject": True,
    }
    assert completion.text == ANSWER_TEXT
    assert completion.provider == "yandex"
    assert completion.model == "23.10.2024"
    assert completion.usage.prompt_tokens == 25
    assert completion.usage.completion_tokens == 8
    assert isinstance(completion.usage.prompt_tokens, int)


def test_schema_and_iam_token(server):
    server.route(PATH, JsonReply(yandex_result(ANSWER_TEXT)))

    make_provider(server, api_key=None, iam_token="t1.iam", model="yandexgpt-lite/rc").chat(
        MESSAGES, schema=SCHEMA
    )

    (request,) = server.requests_to(PATH)
    assert request.headers["authorization"] == "Bearer t1.iam"
    body = request.json()
    assert body["modelUri"] == "gpt://b1gfolder/yandexgpt-lite/rc"
    assert body["jsonSchema"] == {"schema": SCHEMA}
    assert "jsonObject" not in body


def test_cached_token_count_is_read_when_present(server):
    answer = yandex_result(ANSWER_TEXT)
    answer["result"]["usage"]["inputTextTokensDetails"] = {"cachedTokens": "16"}
    server.route(PATH, JsonReply(answer))
    assert make_provider(server).chat(MESSAGES).usage.cached_tokens == 16


def test_stream_of_cumulative_texts_is_read_to_the_final_status(server):
    prose = ["Это ", "просто ", "текст."]
    reply = StreamReply(yandex_stream(prose), content_type="application/json")
    server.route(PATH, reply)

    completion = make_provider(server).chat(MESSAGES, stream=True)

    assert completion.text == "Это просто текст."
    assert not completion.early_closed
    assert completion.usage.completion_tokens == 3
    assert server.requests_to(PATH)[0].json()["completionOptions"]["stream"] is True


def test_stream_closes_early_once_the_object_closed(server):
    pieces = [ANSWER_TEXT[i : i + 6] for i in range(0, len(ANSWER_TEXT), 6)]
    lines = yandex_stream([*pieces, *[" пояснение"] * 300])
    reply = StreamReply(lines, content_type="application/json", delay_s=0.01)
    server.route(PATH, reply)

    completion = make_provider(server).chat(MESSAGES, schema=SCHEMA, stream=True)

    assert completion.early_closed
    assert completion.text == ANSWER_TEXT
    assert reply.stats.disconnected.wait(timeout=5)
    assert reply.stats.sent < len(pieces) + 10 < reply.stats.total


def test_stream_cut_before_the_final_status_is_a_bad_response(server):
    lines = yandex_stream(['{"budget": ', "5000"], finish=False)
    server.route(PATH, StreamReply(lines, content_type="application/json", truncate=True))
    with pytest.raises(ProviderError) as caught:
        make_provider(server).chat(MESSAGES, stream=True)
    assert caught.value.kind == "bad_response"


def test_error_object_in_a_stream_is_classified_by_its_http_code(server):
    error = {"error": {"grpcCode": 8, "httpCode": 429, "message": "quota", "httpStatus": "x"}}
    server.route(PATH, StreamReply([json.dumps(error) + "\n"], content_type="application/json"))
    with pytest.raises(ProviderError) as caught:
        make_provider(server).chat(MESSAGES, stream=True)
    assert caught.value.kind == "rate_limited"


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, {"error": {"grpcCode": 16, "httpCode": 401, "message": "Unknown api key"}}, "auth"),
        (429, {"error": {"grpcCode": 8, "httpCode": 429, "message": "ai.textGenerationCompletion"
                         "RequestsPerSecond.rate quota exceeded"}}, "rate_limited"),
        (400, {"error": {"grpcCode": 3, "httpCode": 400,
                         "message": "Json schema is too complex"}}, "schema_rejected"),
        (500, {"error": {"grpcCode": 13, "httpCode": 500, "message": "Internal"}}, "server"),
    ],
)  # fmt: skip
def test_http_errors_map_to_kinds(server, status, body, kind):
    server.route(PATH, JsonReply(body, status=status))
    with pytest.raises(ProviderError) as caught:
        make_provider(server).chat(MESSAGES, schema=SCHEMA)
    assert caught.value.kind == kind


@pytest.mark.parametrize(
    "reply",
    [
        RawReply(b"\x00\xffnot json"),
        JsonReply({"result": {"alternatives": []}}),
        JsonReply(yandex_result("", status="ALTERNATIVE_STATUS_CONTENT_FILTER")),
    ],
    ids=["garbage", "no-alternatives", "content-filter"],
)
def test_unusable_answers_are_bad_responses(server, reply):
    server.route(PATH, reply)
    with pytest.raises(ProviderError) as caught:
        make_provider(server).chat(MESSAGES)
    assert caught.value.kind == "bad_response"


def test_credentials_are_required():
    with pytest.raises(ValueError, match="API key or an IAM token"):
        YandexGPTProvider("b1gfolder")


def test_json_objects_are_decoded_across_arbitrary_chunk_boundaries():
    text = '{"a": 1}\n{"b": "x}y"}\n  {"c": [1,\n 2]}'
    chunks = [text[i : i + 3] for i in range(0, len(text), 3)]
    assert list(iter_json_objects(chunks)) == [{"a": 1}, {"b": "x}y"}, {"c": [1, 2]}]
    with pytest.raises(ValueError, match="inside a JSON object"):
        list(iter_json_objects(['{"a": 1}', '{"b": ']))
