"""The cache session: GigaChat gets one X-Session-ID per conversation, only inside a
session, and the economics rule on what is worth caching."""

from __future__ import annotations

import uuid

from llmkit.session import cache_session, cache_worthy, current_cache_session
from tests.llmkit.test_gigachat import CHAT, MESSAGES, OAUTH, make_provider
from tests.llmkit.wire_servers import JsonReply, WireServer, gigachat_completion, gigachat_token


def test_gigachat_sends_one_session_id_per_conversation():
    with WireServer() as server:
        server.route(OAUTH, JsonReply(gigachat_token("tok")))
        server.route(CHAT, JsonReply(gigachat_completion('{"a": 1}', precached=40)))
        provider = make_provider(server)
        provider.chat(MESSAGES)  # outside any session: no header
        with cache_session("briefing:7"):
            first = provider.chat(MESSAGES)
            provider.chat(MESSAGES)
        with cache_session("briefing:8"):
            provider.chat(MESSAGES)
        ids = [r.headers.get("x-session-id") for r in server.requests_to(CHAT)]
    assert ids[0] is None
    assert ids[1] == ids[2] == str(uuid.uuid5(uuid.NAMESPACE_URL, "briefing:7"))
    assert ids[3] not in (None, ids[1])
    assert first.usage.cached_tokens == 40  # precached_prompt_tokens, as reported


def test_the_session_is_left_when_the_block_ends():
    with cache_session("a"):
        with cache_session(None):
            assert current_cache_session() is None
        assert current_cache_session() == "a"
    assert current_cache_session() is None


def test_a_prefix_under_the_threshold_is_not_worth_caching():
    assert cache_worthy(0)  # no provider of ours charges for a cache write
    assert not cache_worthy(1999, min_tokens=2000)
    assert cache_worthy(300, min_tokens=256)
