"""Streamed answers keep the provider's token counts: each streaming provider, against a
local server speaking its wire format, stops reading the answer at its closing brace but
waits a bounded time for the usage the provider sends after it, and the counts reach the
StructuredCall record (or the call is priced from our estimates when none came)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from dlq.models import ModelPrice
from dlq.services import structured_run
from llmkit.providers.gigachat import GigaChatProvider
from llmkit.providers.openai_compat import OpenAICompatProvider
from llmkit.providers.yandex import YandexGPTProvider
from llmkit.streaming import USAGE_WAIT_S
from llmkit.types import Message
from tests.llmkit.wire_servers import (
    JsonReply,
    StreamReply,
    WireServer,
    gigachat_stream,
    gigachat_token,
    gigachat_usage,
    make_test_certificates,
    openai_stream,
    openai_usage,
    yandex_stream,
    yandex_usage,
)

pytestmark = pytest.mark.django_db

MESSAGES = [Message("system", "Answer in JSON."), Message("user", "Бюджет около 500 тыс")]
SCHEMA = {
    "title": "Budget",
    "type": "object",
    "properties": {"budget": {"type": "integer"}, "note": {"type": "string"}},
    "required": ["budget"],
}
ANSWER = {"budget": 500000, "note": "примерно {полмиллиона}"}
ANSWER_TEXT = json.dumps(ANSWER, ensure_ascii=False)
# A model without a strict schema fences its object; the closing fence follows the brace.
PIECES = ["```json\n", *(ANSWER_TEXT[i : i + 6] for i in range(0, len(ANSWER_TEXT), 6)), "\n```"]
PROMPT, CACHED, COMPLETION = 900, 600, 30
# What a test allows on top of a wait for thread start-up and a loaded machine.
SLACK_S = 1.5
# Long enough that the client must give up first; the server lets go when the test ends.
NEVER_S = 60.0


@dataclass(frozen=True)
class Wire:
    """How one provider streams an answer and its usage, and where it listens."""

    name: str
    path: str

    def provider(self, server: WireServer, **kwargs: Any) -> Any:
        if self.name == "openai":
            return OpenAICompatProvider(server.url("/v1"), "sk-test", model="gpt-test", **kwargs)
        if self.name == "gigachat":
            server.route("/oauth", JsonReply(gigachat_token("tok")))
            return GigaChatProvider(
                "a2V5", base_url=server.url("/api/v1"), oauth_url=server.url("/oauth"), **kwargs
            )
        return YandexGPTProvider(
            "b1gfolder", "AQVN-key", base_url=server.url("/foundationModels/v1"), **kwargs
        )

    def reply(self, *, usage: bool, pause_s: float) -> StreamReply:
        """The answer's pieces, then `pause_s` of silence, then the end of the stream with
        the usage (900 prompt, 600 of them cached, 30 completion tokens) when `usage`."""
        if self.name == "openai":
            counts = openai_usage(prompt=PROMPT, cached=CACHED, completion=COMPLETION)
            events = openai_stream(PIECES, usage=counts if usage else None)
            answer_events = 1 + len(PIECES)  # the role chunk, then the pieces
            content_type = "text/event-stream"
        elif self.name == "gigachat":
            counts = gigachat_usage(prompt=PROMPT, cached=CACHED, completion=COMPLETION)
            events = gigachat_stream(PIECES, usage=counts if usage else None)
            answer_events = len(PIECES)
            content_type = "text/event-stream"
        else:
            counts = yandex_usage(prompt=PROMPT, cached=CACHED, completion=COMPLETION)
            # Yandex counts every piece as it goes; a server that reports nothing sends none.
            events = yandex_stream(
                PIECES,
                input_tokens=str(PROMPT),
                partial_usage=usage,
                separate_final=True,
                final_usage=counts if usage else None,
            )
            answer_events = len(PIECES)
            content_type = "application/json"
        return StreamReply(
            events, content_type=content_type, pause_after=answer_events, pause_s=pause_s
        )


WIRES = [
    Wire("openai", "/v1/chat/completions"),
    Wire("gigachat", "/api/v1/chat/completions"),
    Wire("yandex", "/foundationModels/v1/completion"),
]


@pytest.fixture(params=WIRES, ids=lambda wire: wire.name)
def wire(request) -> Wire:
    return request.param


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as wire_server:
        yield wire_server


@pytest.fixture(autouse=True)
def prices() -> None:
    # Priced, so that a call whose counts are missing shows as estimated in the ledger.
    for provider in ("openai", "gigachat", "yandex"):
        ModelPrice.objects.create(
            provider=provider, prompt_per_million=1000, cached_per_million=100,
            completion_per_million=3000,
        )  # fmt: skip


def run(provider: Any):
    try:
        return structured_run(messages=MESSAGES, target=SCHEMA, provider=provider, stream=True)
    finally:
        provider.close()


def test_usage_sent_after_the_answer_reaches_the_structured_call(server, wire):
    server.route(wire.path, wire.reply(usage=True, pause_s=0))

    result, call = run(wire.provider(server))

    assert result.ok
    assert result.value == ANSWER
    assert result.final.completion.early_closed
    assert result.final.completion.text.endswith("}")
    call.refresh_from_db()
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (900, 600, 30)
    assert not call.cost_estimated


def test_usage_sent_after_a_pause_within_the_bound_arrives(server, wire):
    pause_s = USAGE_WAIT_S / 4
    server.route(wire.path, wire.reply(usage=True, pause_s=pause_s))

    started = time.monotonic()
    result, call = run(wire.provider(server))

    assert pause_s <= time.monotonic() - started < USAGE_WAIT_S
    assert result.ok
    assert result.value == ANSWER
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (900, 600, 30)
    assert not call.cost_estimated


@pytest.mark.parametrize("usage", [True, False], ids=["usage-too-late", "no-usage"])
def test_the_wait_for_usage_ends_at_the_bound_and_the_call_is_estimated(server, wire, usage):
    bound_s = 0.5
    server.route(wire.path, wire.reply(usage=usage, pause_s=NEVER_S))

    started = time.monotonic()
    result, call = run(wire.provider(server, usage_wait_s=bound_s))
    elapsed = time.monotonic() - started

    # It waited for the usage, but no longer than the bound.
    assert bound_s <= elapsed < bound_s + SLACK_S
    assert result.ok
    assert result.value == ANSWER
    counts = (call.prompt_tokens, call.cached_tokens, call.completion_tokens)
    if wire.name == "yandex" and usage:
        # Yandex counts every piece as it goes: the last piece read keeps its counts (the
        # cached ones come only with the final result), so nothing is estimated.
        assert counts == (PROMPT, 0, len(PIECES))
        assert not call.cost_estimated
    else:
        assert counts == (0, 0, 0)
        assert call.cost_estimated


def test_the_wait_for_usage_ends_at_the_bound_over_tls_too(tmp_path):
    certificates = make_test_certificates(tmp_path)
    if certificates is None:
        pytest.skip("the openssl command is needed to issue a test CA")
    gigachat = next(wire for wire in WIRES if wire.name == "gigachat")
    bound_s = 0.5
    with WireServer(tls=certificates) as tls_server:
        tls_server.route(gigachat.path, gigachat.reply(usage=True, pause_s=NEVER_S))
        provider = gigachat.provider(
            tls_server, ca_bundle=str(certificates.ca_cert), usage_wait_s=bound_s
        )

        started = time.monotonic()
        result, call = run(provider)
        elapsed = time.monotonic() - started

    assert bound_s <= elapsed < bound_s + SLACK_S
    assert result.value == ANSWER
    assert call.cost_estimated
