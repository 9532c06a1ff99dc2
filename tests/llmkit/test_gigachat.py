"""GigaChatProvider against a local server speaking GigaChat's OAuth and chat wire format."""

from __future__ import annotations

import json
import threading
import uuid

import pytest

from llmkit.providers.gigachat import GigaChatProvider
from llmkit.types import Message, ProviderError
from tests.llmkit.wire_servers import (
    JsonReply,
    SlowReply,
    StreamReply,
    WireServer,
    free_port,
    gigachat_completion,
    gigachat_stream,
    gigachat_token,
    make_test_certificates,
)

OAUTH = "/api/v2/oauth"
CHAT = "/api/v1/chat/completions"
AUTH_KEY = "Y2xpZW50OnNlY3JldA=="
MESSAGES = [Message("system", "Отвечай JSON."), Message("user", "Нужен ролик")]
SCHEMA = {"type": "object", "properties": {"goal": {"type": "string"}}, "required": ["goal"]}
ANSWER_TEXT = json.dumps(
    {"goal": "узнаваемость {бренда}", "deliverables": ["ролик"]}, ensure_ascii=False
)


@pytest.fixture
def server():
    with WireServer() as wire:
        yield wire


def make_provider(server: WireServer, **kwargs) -> GigaChatProvider:
    return GigaChatProvider(
        AUTH_KEY,
        scope=kwargs.pop("scope", "GIGACHAT_API_B2B"),
        base_url=server.url("/api/v1"),
        oauth_url=server.url(OAUTH),
        **kwargs,
    )


def bearer(request) -> str:
    return request.headers["authorization"].removeprefix("Bearer ")


def test_oauth_exchange_sends_the_documented_headers_and_form(server):
    server.route(OAUTH, JsonReply(gigachat_token("tok-1")))
    server.route(CHAT, JsonReply(gigachat_completion(ANSWER_TEXT, precached=12)))
    provider = make_provider(server)

    completion = provider.chat(MESSAGES, temperature=0.1, max_tokens=200, schema=SCHEMA)

    (oauth,) = server.requests_to(OAUTH)
    assert oauth.headers["authorization"] == f"Basic {AUTH_KEY}"
    assert uuid.UUID(oauth.headers["rquid"]).version == 4
    assert oauth.headers["content-type"] == "application/x-www-form-urlencoded"
    assert oauth.headers["accept"] == "application/json"
    assert oauth.form() == {"scope": "GIGACHAT_API_B2B"}
    (chat,) = server.requests_to(CHAT)
    assert chat.headers["authorization"] == "Bearer tok-1"
    body = chat.json()
    assert body["model"] == "GigaChat"
    assert body["messages"] == [m.as_dict() for m in MESSAGES]
    assert (body["temperature"], body["max_tokens"], body["stream"]) == (0.1, 200, False)
    # Flat, unlike OpenAI's {"json_schema": {"schema": ...}} wrapper.
    assert body["response_format"] == {"type": "json_schema", "schema": SCHEMA, "strict": True}
    assert completion.text == ANSWER_TEXT
    assert completion.provider == "gigachat"
    assert completion.usage.prompt_tokens == 20
    assert completion.usage.cached_tokens == 12
    assert completion.usage.completion_tokens == 9


def test_token_is_exchanged_once_for_many_calls(server):
    server.route(OAUTH, JsonReply(gigachat_token("tok-1")))
    server.route(CHAT, JsonReply(gigachat_completion("{}")))
    provider = make_provider(server)

    for _ in range(4):
        provider.chat(MESSAGES)

    assert len(server.requests_to(OAUTH)) == 1
    assert provider.token_exchanges == 1
    assert {bearer(r) for r in server.requests_to(CHAT)} == {"tok-1"}


@pytest.mark.parametrize("expires_in_s", [-10, 30], ids=["expired", "expiring-within-margin"])
def test_expired_or_expiring_token_is_exchanged_again(server, expires_in_s):
    server.route(
        OAUTH,
        JsonReply(gigachat_token("old", expires_in_s=expires_in_s)),
        JsonReply(gigachat_token("new")),
    )
    server.route(CHAT, JsonReply(gigachat_completion("{}")))
    provider = make_provider(server)

    provider.chat(MESSAGES)
    provider.chat(MESSAGES)
    provider.chat(MESSAGES)

    assert len(server.requests_to(OAUTH)) == 2
    assert [bearer(r) for r in server.requests_to(CHAT)] == ["old", "new", "new"]


def test_token_expiry_follows_the_clock(server):
    now = [1_750_000_000.0]
    server.route(
        OAUTH,
        JsonReply({"access_token": "a", "expires_at": int((now[0] + 1800) * 1000)}),
        JsonReply({"access_token": "b", "expires_at": int((now[0] + 3600) * 1000)}),
    )
    server.route(CHAT, JsonReply(gigachat_completion("{}")))
    provider = make_provider(server, clock=lambda: now[0])

    provider.chat(MESSAGES)
    now[0] += 1700  # still 100 s left: above the refresh margin
    provider.chat(MESSAGES)
    now[0] += 50  # 50 s left: renewed before it can die mid-call
    provider.chat(MESSAGES)

    assert [bearer(r) for r in server.requests_to(CHAT)] == ["a", "a", "b"]


def test_401_refreshes_the_token_once_and_retries(server):
    server.route(OAUTH, JsonReply(gigachat_token("revoked")), JsonReply(gigachat_token("fresh")))
    server.route(
        CHAT,
        JsonReply({"status": 401, "message": "Unauthorized"}, status=401),
        JsonReply(gigachat_completion(ANSWER_TEXT)),
    )
    provider = make_provider(server)

    completion = provider.chat(MESSAGES)

    assert completion.text == ANSWER_TEXT
    assert len(server.requests_to(OAUTH)) == 2
    assert [bearer(r) for r in server.requests_to(CHAT)] == ["revoked", "fresh"]


def test_second_401_is_an_auth_error_after_exactly_one_refresh(server):
    server.route(OAUTH, JsonReply(gigachat_token("t1")), JsonReply(gigachat_token("t2")))
    server.route(CHAT, JsonReply({"status": 401, "message": "Unauthorized"}, status=401))
    provider = make_provider(server)

    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES)

    assert caught.value.kind == "auth"
    assert caught.value.provider == "gigachat"
    assert len(server.requests_to(OAUTH)) == 2
    assert len(server.requests_to(CHAT)) == 2


def test_rejected_authorization_key_is_an_auth_error_without_chat(server):
    server.route(OAUTH, JsonReply({"code": 6, "message": "credentials doesn't match"}, status=401))
    provider = make_provider(server)

    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES)

    assert caught.value.kind == "auth"
    assert server.requests_to(CHAT) == []


def test_oauth_answer_without_token_is_a_bad_response(server):
    server.route(OAUTH, JsonReply({"tok": "x"}))
    with pytest.raises(ProviderError) as caught:
        make_provider(server).chat(MESSAGES)
    assert caught.value.kind == "bad_response"


def test_concurrent_callers_share_one_token_exchange(server):
    # The exchange is slow, so every thread arrives while it is still in flight.
    server.route(OAUTH, SlowReply(0.3, then=JsonReply(gigachat_token("shared"))))
    server.route(CHAT, JsonReply(gigachat_completion("{}")))
    provider = make_provider(server)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            provider.chat(MESSAGES, timeout=5)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert errors == []
    assert len(server.requests_to(OAUTH)) == 1
    assert len(server.requests_to(CHAT)) == 6


def test_stream_reads_to_done_with_precached_usage(server):
    server.route(OAUTH, JsonReply(gigachat_token("tok")))
    usage = {"prompt_tokens": 40, "completion_tokens": 5, "total_tokens": 45,
             "precached_prompt_tokens": 32}  # fmt: skip
    reply = StreamReply(gigachat_stream(["Без ", "JSON ", "ответ."], usage=usage))
    server.route(CHAT, reply)

    completion = make_provider(server).chat(MESSAGES, stream=True)

    assert completion.text == "Без JSON ответ."
    assert not completion.early_closed
    assert (completion.usage.prompt_tokens, completion.usage.cached_tokens) == (40, 32)
    # The server counts a chunk after writing it: wait for its side to finish first.
    assert reply.stats.finished.wait(5)
    assert reply.stats.sent == reply.stats.total
    assert server.requests_to(CHAT)[0].json()["stream"] is True


def test_stream_closes_early_once_the_object_closed(server):
    server.route(OAUTH, JsonReply(gigachat_token("tok")))
    pieces = [ANSWER_TEXT[i : i + 5] for i in range(0, len(ANSWER_TEXT), 5)]
    reply = StreamReply(gigachat_stream([*pieces, *["\nПояснение..."] * 300]), delay_s=0.01)
    server.route(CHAT, reply)

    completion = make_provider(server).chat(MESSAGES, schema=SCHEMA, stream=True)

    assert completion.early_closed
    assert completion.text == ANSWER_TEXT
    assert reply.stats.disconnected.wait(timeout=5)
    assert reply.stats.sent < len(pieces) + 10 < reply.stats.total


def test_stream_cut_before_done_is_a_bad_response(server):
    server.route(OAUTH, JsonReply(gigachat_token("tok")))
    server.route(CHAT, StreamReply(gigachat_stream(['{"goal": "не'], finish=False), truncate=True))
    with pytest.raises(ProviderError) as caught:
        make_provider(server).chat(MESSAGES, stream=True)
    assert caught.value.kind == "bad_response"


def test_401_on_a_stream_is_refreshed_too(server):
    server.route(OAUTH, JsonReply(gigachat_token("t1")), JsonReply(gigachat_token("t2")))
    server.route(
        CHAT,
        JsonReply({"status": 401, "message": "Unauthorized"}, status=401),
        StreamReply(gigachat_stream([ANSWER_TEXT])),
    )
    completion = make_provider(server).chat(MESSAGES, stream=True)
    assert completion.text == ANSWER_TEXT
    assert [bearer(r) for r in server.requests_to(CHAT)] == ["t1", "t2"]


def test_unreachable_oauth_is_a_connection_error(server):
    provider = GigaChatProvider(
        AUTH_KEY, base_url=server.url("/api/v1"), oauth_url=f"http://127.0.0.1:{free_port()}/x"
    )
    with pytest.raises(ProviderError) as caught:
        provider.chat(MESSAGES, timeout=5)
    assert caught.value.kind == "connection"


def test_unknown_scope_is_rejected():
    with pytest.raises(ValueError, match="GIGACHAT_API_PERS"):
        GigaChatProvider(AUTH_KEY, scope="GIGACHAT_API_FREE")


def test_ca_bundle_makes_a_privately_signed_server_trusted(tmp_path):
    certificates = make_test_certificates(tmp_path)
    if certificates is None:
        pytest.skip("the openssl command is needed to issue a test CA")
    with WireServer(tls=certificates) as tls_server:
        tls_server.route(OAUTH, JsonReply(gigachat_token("tok")))
        tls_server.route(CHAT, JsonReply(gigachat_completion("{}")))

        untrusting = make_provider(tls_server)
        with pytest.raises(ProviderError) as caught:
            untrusting.chat(MESSAGES, timeout=5)
        assert caught.value.kind == "connection"
        assert "CERTIFICATE_VERIFY_FAILED" in caught.value.message

        trusting = make_provider(tls_server, ca_bundle=str(certificates.ca_cert))
        assert trusting.chat(MESSAGES, timeout=5).text == "{}"
