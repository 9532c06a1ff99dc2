"""The prefix-caching wire server (tests/llmkit/caching_server.py) reports cached tokens by
each provider's documented rule, in the field each provider's client reads."""

from __future__ import annotations

import pytest

from llmkit.providers.gigachat import GigaChatProvider
from llmkit.providers.openai_compat import OpenAICompatProvider
from llmkit.session import cache_session
from llmkit.types import Message
from tests.llmkit.caching_server import (
    CachingServer,
    ModelAnswer,
    OpenAIPrefixCache,
    SessionPrefixCache,
    request_text,
    tokens_chars4,
    tokens_words,
)

# "<|system|>" and "<|user|>" each count 5 tokens with the project's estimate (< | role | >).
MARK = 5


def words(count: int, start: int = 0) -> str:
    return " ".join(f"w{index}" for index in range(start, start + count))


@pytest.fixture
def server():
    with CachingServer() as running:
        yield running


@pytest.fixture
def openai(server):
    provider = OpenAICompatProvider(server.openai_base_url, model="scripted", name="openai")
    yield provider
    provider.close()


@pytest.fixture
def gigachat(server):
    provider = GigaChatProvider(
        "a2V5OnNlY3JldA==",
        base_url=server.gigachat_base_url,
        oauth_url=server.gigachat_oauth_url,
    )
    yield provider
    provider.close()


def ask(provider, system: str, user: str, **kwargs):
    return provider.chat([Message("system", system), Message("user", user)], **kwargs).usage


def test_openai_caches_the_longest_earlier_prefix_in_128_token_steps_from_1024(openai):
    system = words(1300)
    first = ask(openai, system, "first question")
    assert (first.prompt_tokens, first.cached_tokens) == (MARK + 1300 + MARK + 2, 0)
    # Same system message, another question: the shared prefix is 1,310 tokens.
    second = ask(openai, system, "second one")
    assert second.prompt_tokens == MARK + 1300 + MARK + 2
    assert second.cached_tokens == 1280  # 1024 + 2 * 128 <= 1310 < 1024 + 3 * 128
    # A change at word 1,200: 1,204 tokens shared, one step less.
    changed = ask(openai, words(1199) + " CHANGED " + words(100, start=1200), "first question")
    assert changed.cached_tokens == 1152


def test_openai_caches_nothing_under_1024_tokens(openai):
    short = words(900)
    ask(openai, short, "question")
    again = ask(openai, short, "question")
    assert again.prompt_tokens == MARK + 900 + MARK + 1 < 1024
    assert again.cached_tokens == 0  # the very same prompt: still under the minimum
    # Over the minimum, but sharing only 1,000 tokens with what came before: a miss.
    ask(openai, words(1000) + " " + words(400, start=5000), "question")
    other = ask(openai, words(1000) + " " + words(400, start=9000), "question")
    assert other.prompt_tokens > 1024
    assert other.cached_tokens == 0


def test_openai_reports_cached_tokens_at_the_end_of_a_stream_too(openai):
    system = words(1100)
    ask(openai, system, '{"a": 1}')
    streamed = openai.chat(
        [Message("system", system), Message("user", "again")], stream=True
    )  # the scripted model answers {"message": "ok"}
    assert streamed.text == '{"message": "ok"}'
    assert streamed.usage.cached_tokens == 1024


def test_gigachat_caches_only_within_one_x_session_id(gigachat, server):
    system = words(40)
    ask(gigachat, system, "first question")
    no_session = ask(gigachat, system, "second question")
    assert no_session.cached_tokens == 0  # no header: nothing promised
    with cache_session("briefing:1"):
        ask(gigachat, system, "first question")
        again = ask(gigachat, system, "second question")
    # No minimum and no step: every shared token, up to where the questions differ.
    assert again.prompt_tokens == MARK + 40 + MARK + 2
    assert again.cached_tokens == MARK + 40 + MARK
    with cache_session("briefing:2"):
        other = ask(gigachat, system, "second question")
    assert other.cached_tokens == 0  # another briefing's session starts empty
    sessions = [call.session for call in server.calls]
    assert sessions[0] is None
    assert sessions[2] == sessions[3] != sessions[4]


def test_tool_definitions_come_first_in_the_prefix():
    body = {
        "tools": [{"type": "function", "function": {"name": "rate_card_quote"}}],
        "response_format": {"type": "json_schema"},
        "messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": "hi"}],
    }
    text = request_text(body)
    assert text.index("rate_card_quote") < text.index("json_schema") < text.index("rules")
    cache = OpenAIPrefixCache()
    tools_then_rules = tokens_words(request_text({**body, "messages": [
        {"role": "system", "content": words(1200)}]}))  # fmt: skip
    assert cache.lookup_and_store(tools_then_rules) == 0
    assert cache.lookup_and_store(tools_then_rules) == 1024 + 128 * 1
    # One tool fewer changes the very start: nothing of the rest is reused.
    fewer = tokens_words(request_text({**body, "tools": [], "messages": [
        {"role": "system", "content": words(1200)}]}))  # fmt: skip
    assert cache.lookup_and_store(fewer) == 0


def test_entries_expire_after_their_ttl():
    now = [0.0]
    openai = OpenAIPrefixCache(ttl_s=300, clock=lambda: now[0])
    gigachat = SessionPrefixCache(ttl_s=30, clock=lambda: now[0])
    prompt = tokens_words(words(1100))
    assert openai.lookup_and_store(prompt) == gigachat.lookup_and_store(prompt, "s") == 0
    now[0] = 29.0
    assert gigachat.lookup_and_store(prompt, "s") == 1100  # the same prompt, in time
    now[0] = 60.0  # 31 s after its last use
    assert gigachat.lookup_and_store(prompt, "s") == 0
    assert openai.lookup_and_store(prompt) == 1024
    now[0] = 400.0  # 340 s after its last use
    assert openai.lookup_and_store(prompt) == 0


def test_four_characters_make_a_token_with_the_chars4_tokenizer():
    assert tokens_chars4("abcdefghij") == ["abcd", "efgh", "ij"]
    assert tokens_words("Бюджет 500 000, ok?") == ["Бюджет", "500", "000", ",", "ok", "?"]


def test_a_tool_call_answer_is_sent_in_each_wire_format(server, openai, gigachat):
    from llmkit.tools import ToolSpec
    from studio.tools import RateCardQuoteArgs, RateCardQuoteResult

    spec = ToolSpec(name="rate_card_quote", description="prices", args_model=RateCardQuoteArgs,
                    result_model=RateCardQuoteResult, run=lambda args: None)  # fmt: skip
    server.model = lambda request: ModelAnswer(tool_call=("rate_card_quote", {"query": "ролик"}))
    messages = [Message("system", words(10)), Message("user", "сколько стоит?")]
    for provider in (openai, gigachat):
        step = provider.chat_tools(messages, exchanges=[], tools=[spec])
        [call] = step.tool_calls
        assert (call.name, call.arguments_object()) == ("rate_card_quote", {"query": "ролик"})
    assert [c.request.tool_names for c in server.calls] == [["rate_card_quote"]] * 2


def test_a_gigachat_tool_step_carries_the_session_and_its_usage(server, gigachat):
    """A tool step is a request of the conversation like any: it carries the X-Session-ID
    (its prefix is cached), and its reported usage comes back whole (a text answer may be
    the stage's answer, recorded in the ledger)."""
    from llmkit.tools import ToolSpec
    from studio.tools import RateCardQuoteArgs, RateCardQuoteResult

    spec = ToolSpec(name="rate_card_quote", description="prices", args_model=RateCardQuoteArgs,
                    result_model=RateCardQuoteResult, run=lambda args: None)  # fmt: skip
    messages = [Message("system", words(40)), Message("user", "first question")]
    with cache_session("briefing:7"):
        gigachat.chat_tools(messages, exchanges=[], tools=[spec])
        step = gigachat.chat_tools(messages, exchanges=[], tools=[spec])
    assert server.calls[0].session is not None
    assert server.calls[0].session == server.calls[1].session
    assert step.usage.prompt_tokens > 0
    assert 0 < step.usage.cached_tokens <= step.usage.prompt_tokens
