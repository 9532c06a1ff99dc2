"""CircuitBreaker states and FailoverChain order, budget, Retry-After and attempt records."""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import get_args

import pytest

from llmkit.failover import CircuitBreaker, FailoverChain, FailoverExhausted, schema_in_prompt
from llmkit.prompt import stable_json
from llmkit.providers.gigachat import GigaChatProvider
from llmkit.providers.openai_compat import OpenAICompatProvider
from llmkit.providers.yandex import YandexGPTProvider
from llmkit.types import Completion, Message, Provider, ProviderError, ProviderErrorKind
from tests.llmkit.wire_servers import (
    JsonReply,
    SlowReply,
    WireServer,
    free_port,
    gigachat_token,
    openai_completion,
    yandex_result,
)

MESSAGES = [Message("user", "hi")]


class FakeClock:
    """Monotonic time that moves only when told, and a sleep that moves it."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class ScriptedProvider:
    """Answers or fails in the scripted order (the last outcome repeats), taking `cost_s`."""

    def __init__(self, name: str, *outcomes: str | ProviderError, clock=None, cost_s=0.0):
        self.name = name
        self.model = f"{name}-model"
        self.outcomes = deque(outcomes)
        self.clock = clock
        self.cost_s = cost_s
        self.timeouts: list[float | None] = []
        self.asked: list[tuple[list[Message], dict | None]] = []

    @property
    def calls(self) -> int:
        return len(self.timeouts)

    def chat(self, messages, *, temperature=0.3, max_tokens=1024, schema=None, stream=False,
             timeout=None) -> Completion:  # fmt: skip
        self.timeouts.append(timeout)
        self.asked.append((list(messages), schema))
        if self.clock is not None:
            self.clock.advance(self.cost_s)
        outcome = self.outcomes.popleft() if len(self.outcomes) > 1 else self.outcomes[0]
        if isinstance(outcome, ProviderError):
            raise outcome
        return Completion(text=outcome, provider=self.name, model=self.model)


def fail(kind: ProviderErrorKind, **kwargs) -> ProviderError:
    return ProviderError(kind, f"{kind} happened", **kwargs)


def make_chain(*providers, clock: FakeClock, budget_s: float = 100.0, **kwargs) -> FailoverChain:
    return FailoverChain(providers, budget_s=budget_s, clock=clock, sleep=clock.sleep, **kwargs)


# --- circuit breaker ---------------------------------------------------------------------


def test_breaker_opens_after_consecutive_failures_and_half_opens_after_cooldown():
    clock = FakeClock()
    breaker = CircuitBreaker(failure_threshold=3, cooldown_s=30, clock=clock)

    for _ in range(2):
        assert breaker.allow()
        breaker.record_failure()
    assert breaker.state == "closed"
    breaker.record_failure()
    assert breaker.state == "open"
    assert not breaker.allow()

    clock.advance(29.9)
    assert not breaker.allow()
    clock.advance(0.1)
    assert breaker.state == "half_open"
    assert breaker.allow()  # the one trial call
    assert not breaker.allow()  # nobody else while it is in flight

    breaker.record_failure()  # the trial failed: open for another cooldown
    assert breaker.state == "open"
    assert not breaker.allow()
    clock.advance(30)
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state == "closed"
    assert breaker.consecutive_failures == 0
    assert breaker.allow()
    assert breaker.allow()


def test_breaker_counts_only_consecutive_failures():
    breaker = CircuitBreaker(failure_threshold=2, clock=FakeClock())
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    assert breaker.state == "closed"
    breaker.record_failure()
    assert breaker.state == "open"


def test_breaker_rejects_nonsense_settings():
    with pytest.raises(ValueError, match="failure_threshold"):
        CircuitBreaker(failure_threshold=0)


# --- chain -------------------------------------------------------------------------------


def test_chain_is_a_provider_and_the_first_success_serves():
    clock = FakeClock()
    first = ScriptedProvider("gigachat", "from gigachat")
    second = ScriptedProvider("yandex", "from yandex")
    chain = make_chain(first, second, clock=clock)

    completion = chain.chat(MESSAGES)

    assert isinstance(chain, Provider)
    assert chain.name == "chain"
    assert (completion.text, completion.provider) == ("from gigachat", "gigachat")
    assert second.calls == 0
    assert [(a.provider, a.error_kind) for a in chain.last_attempts] == [("gigachat", None)]


def test_chain_moves_on_in_order_and_records_every_attempt():
    clock = FakeClock()
    providers = [
        ScriptedProvider("gigachat", fail("connection"), clock=clock, cost_s=1),
        ScriptedProvider("yandex", fail("server", status=503), clock=clock, cost_s=2),
        ScriptedProvider("openai", "from openai", clock=clock, cost_s=3),
        ScriptedProvider("rules", "from rules"),
    ]
    chain = make_chain(*providers, clock=clock)

    completion = chain.chat(MESSAGES)

    assert completion.provider == "openai"
    assert [p.calls for p in providers] == [1, 1, 1, 0]
    attempts = chain.last_attempts
    assert [(a.provider, a.error_kind, a.latency_s) for a in attempts] == [
        ("gigachat", "connection", 1),
        ("yandex", "server", 2),
        ("openai", None, 3),
    ]
    assert attempts[1].status == 503


@pytest.mark.parametrize("kind", get_args(ProviderErrorKind))
def test_every_error_kind_moves_on(kind):
    clock = FakeClock()
    chain = make_chain(
        ScriptedProvider("first", fail(kind)), ScriptedProvider("second", "ok"), clock=clock
    )
    assert chain.chat(MESSAGES).provider == "second"


def test_all_failing_raises_exhausted_with_the_attempts():
    clock = FakeClock()
    chain = make_chain(
        ScriptedProvider("a", fail("connection")),
        ScriptedProvider("b", fail("auth", status=401)),
        clock=clock,
    )

    with pytest.raises(FailoverExhausted) as caught:
        chain.chat(MESSAGES)

    assert isinstance(caught.value, ProviderError)
    assert caught.value.kind == "auth"
    assert caught.value.provider == "chain"
    assert [(a.provider, a.error_kind) for a in caught.value.attempts] == [
        ("a", "connection"),
        ("b", "auth"),
    ]
    assert chain.last_attempts == caught.value.attempts


def test_each_provider_gets_what_is_left_of_the_budget():
    clock = FakeClock()
    first = ScriptedProvider("a", fail("server"), clock=clock, cost_s=30)
    second = ScriptedProvider("b", fail("server"), clock=clock, cost_s=25)
    third = ScriptedProvider("c", "ok")
    chain = make_chain(first, second, third, clock=clock, budget_s=100)

    chain.chat(MESSAGES)
    assert (first.timeouts, second.timeouts, third.timeouts) == ([100], [70], [45])

    # A tighter caller deadline wins over the budget; the slow first link then spends it all.
    with pytest.raises(FailoverExhausted):
        chain.chat(MESSAGES, timeout=20)
    assert first.timeouts[-1] == 20
    assert second.calls == 1


def test_spent_budget_skips_the_rest_and_is_a_timeout():
    clock = FakeClock()
    slow = ScriptedProvider("gigachat", fail("timeout"), clock=clock, cost_s=100)
    never = ScriptedProvider("yandex", "too late")
    chain = make_chain(slow, never, clock=clock, budget_s=100)

    with pytest.raises(FailoverExhausted) as caught:
        chain.chat(MESSAGES)

    assert caught.value.kind == "timeout"
    assert never.calls == 0
    assert [(a.provider, a.error_kind) for a in caught.value.attempts] == [
        ("gigachat", "timeout"),
        ("yandex", "timeout"),
    ]
    assert "budget" in caught.value.attempts[1].detail


def test_a_provider_that_needs_no_budget_still_answers_after_it_is_spent():
    clock = FakeClock()
    slow = ScriptedProvider("gigachat", fail("timeout"), clock=clock, cost_s=100)
    rules = ScriptedProvider("rules", "template question")
    rules.needs_budget = False
    chain = make_chain(slow, rules, clock=clock, budget_s=100)

    assert chain.chat(MESSAGES).provider == "rules"


def test_retry_after_within_the_budget_waits_and_retries_the_same_provider():
    clock = FakeClock()
    limited = ScriptedProvider("gigachat", fail("rate_limited", retry_after=5), "after the wait")
    other = ScriptedProvider("yandex", "other")
    chain = make_chain(limited, other, clock=clock, budget_s=100)

    completion = chain.chat(MESSAGES)

    assert completion.text == "after the wait"
    assert clock.sleeps == [5]
    assert limited.timeouts == [100, 95]
    assert other.calls == 0
    assert [(a.provider, a.error_kind) for a in chain.last_attempts] == [
        ("gigachat", "rate_limited"),
        ("gigachat", None),
    ]


def test_retry_after_beyond_the_budget_moves_on_without_waiting():
    clock = FakeClock()
    limited = ScriptedProvider("gigachat", fail("rate_limited", retry_after=120))
    other = ScriptedProvider("yandex", "other")
    chain = make_chain(limited, other, clock=clock, budget_s=100)

    assert chain.chat(MESSAGES).provider == "yandex"
    assert clock.sleeps == []
    assert limited.calls == 1


def test_retry_after_is_honoured_once_then_the_chain_moves_on():
    clock = FakeClock()
    limited = ScriptedProvider("gigachat", fail("rate_limited", retry_after=1))
    other = ScriptedProvider("yandex", "other")
    chain = make_chain(limited, other, clock=clock)

    assert chain.chat(MESSAGES).provider == "yandex"
    assert clock.sleeps == [1]
    assert limited.calls == 2


def test_429_without_retry_after_moves_on_at_once():
    clock = FakeClock()
    chain = make_chain(
        ScriptedProvider("a", fail("rate_limited")), ScriptedProvider("b", "ok"), clock=clock
    )
    assert chain.chat(MESSAGES).provider == "b"
    assert clock.sleeps == []


def test_open_breaker_skips_the_provider_until_the_cooldown_passes():
    clock = FakeClock()
    flaky = ScriptedProvider("gigachat", fail("server"), fail("server"), "recovered")
    backup = ScriptedProvider("rules", "backup")
    breakers = [CircuitBreaker(2, 30, clock=clock), CircuitBreaker(2, 30, clock=clock)]
    chain = make_chain(flaky, backup, clock=clock, breakers=breakers)

    chain.chat(MESSAGES)
    chain.chat(MESSAGES)  # second consecutive failure opens the breaker
    completion = chain.chat(MESSAGES)

    assert completion.provider == "rules"
    assert flaky.calls == 2  # not called while open
    assert chain.last_attempts[0].error_kind == "circuit_open"

    clock.advance(30)
    assert chain.chat(MESSAGES).provider == "gigachat"  # the half-open trial succeeds
    assert breakers[0].state == "closed"


def test_request_specific_errors_do_not_open_the_breaker():
    clock = FakeClock()
    picky = ScriptedProvider("gigachat", fail("schema_rejected"))
    breakers = [CircuitBreaker(1, 30, clock=clock), CircuitBreaker(1, 30, clock=clock)]
    chain = make_chain(picky, ScriptedProvider("rules", "ok"), clock=clock, breakers=breakers)

    chain.chat(MESSAGES)
    chain.chat(MESSAGES)

    assert picky.calls == 2
    assert breakers[0].state == "closed"


SCHEMA = {
    "title": "Answer",
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}
PROMPT = [Message("system", "You answer in JSON."), Message("user", "Is it ok?")]


def test_a_rejected_schema_is_asked_again_in_the_prompt_before_failing_over():
    clock = FakeClock()
    picky = ScriptedProvider(
        "gigachat", fail("schema_rejected", status=422), '{"ok": true}', clock=clock, cost_s=2
    )
    backup = ScriptedProvider("rules", "backup")
    chain = make_chain(picky, backup, clock=clock, budget_s=100)

    completion = chain.chat(PROMPT, schema=SCHEMA)

    assert completion.provider == "gigachat"
    assert backup.calls == 0
    (native_messages, native_schema), (again_messages, again_schema) = picky.asked
    assert (native_messages, native_schema) == (PROMPT, SCHEMA)
    assert again_schema is None
    assert again_messages[0].content == (
        "You answer in JSON.\n\nAnswer with ONE JSON object that follows this JSON schema: "
        + stable_json(SCHEMA)
    )
    assert again_messages[1:] == PROMPT[1:]
    assert picky.timeouts == [100, 98]  # the same call, the same budget
    assert [(a.provider, a.error_kind, a.detail) for a in chain.last_attempts] == [
        ("gigachat", "schema_rejected", "schema_rejected happened"),
        ("gigachat", None, "schema in the prompt only"),
    ]


def test_a_provider_failing_with_the_schema_in_the_prompt_too_is_left_for_the_next():
    clock = FakeClock()
    picky = ScriptedProvider("gigachat", fail("schema_rejected"), fail("server"))
    backup = ScriptedProvider("yandex", "backup")
    breakers = [CircuitBreaker(1, 30, clock=clock), CircuitBreaker(1, 30, clock=clock)]
    chain = make_chain(picky, backup, clock=clock, breakers=breakers)

    assert chain.chat(PROMPT, schema=SCHEMA).provider == "yandex"
    assert picky.calls == 2  # asked once natively, once with the schema in the prompt
    assert [(a.provider, a.error_kind) for a in chain.last_attempts] == [
        ("gigachat", "schema_rejected"),
        ("gigachat", "server"),
        ("yandex", None),
    ]
    assert breakers[0].state == "open"  # the provider itself failed the second time


def test_a_schema_the_prompt_already_quotes_is_not_written_twice():
    quoting = [Message("system", f"Response JSON schema: {stable_json(SCHEMA)}"), PROMPT[1]]
    assert schema_in_prompt(quoting, SCHEMA) == quoting
    bare = [Message("user", "Is it ok?")]
    assert [m.role for m in schema_in_prompt(bare, SCHEMA)] == ["system", "user"]


def test_last_attempts_belong_to_the_calling_thread():
    clock = FakeClock()
    chain = make_chain(
        ScriptedProvider("a", fail("server")), ScriptedProvider("b", "ok"), clock=clock
    )
    chain.chat(MESSAGES)
    seen_in_thread: list[list] = []
    thread = threading.Thread(target=lambda: seen_in_thread.append(chain.last_attempts))
    thread.start()
    thread.join(timeout=5)

    assert seen_in_thread == [[]]
    assert len(chain.last_attempts) == 2


def test_chain_needs_providers_and_matching_breakers():
    with pytest.raises(ValueError, match="at least one"):
        FailoverChain([])
    with pytest.raises(ValueError, match="one breaker per provider"):
        FailoverChain([ScriptedProvider("a", "x")], breakers=[])


# --- over real HTTP ------------------------------------------------------------------------


@pytest.fixture
def server():
    with WireServer() as wire:
        yield wire


def test_chain_over_http_skips_a_dead_host_and_a_failing_server(server):
    server.route("/api/v2/oauth", JsonReply(gigachat_token("tok")))
    server.route("/api/v1/chat/completions", JsonReply({"message": "down"}, status=502))
    server.route("/yc/completion", JsonReply(yandex_result('{"served": "yandex"}')))
    chain = FailoverChain(
        [
            OpenAICompatProvider(f"http://127.0.0.1:{free_port()}/v1", model="m"),
            GigaChatProvider(
                "key", base_url=server.url("/api/v1"), oauth_url=server.url("/api/v2/oauth")
            ),
            YandexGPTProvider("folder", api_key="k", base_url=server.url("/yc")),
        ],
        budget_s=10,
    )

    completion = chain.chat(MESSAGES)

    assert completion.provider == "yandex"
    assert completion.text == '{"served": "yandex"}'
    assert [(a.provider, a.error_kind) for a in chain.last_attempts] == [
        ("openai", "connection"),
        ("gigachat", "server"),
        ("yandex", None),
    ]


def test_chain_over_http_stops_when_a_hung_provider_spends_the_budget(server):
    server.route("/hung/chat/completions", SlowReply(30))
    server.route("/ok/chat/completions", JsonReply(openai_completion("{}")))
    chain = FailoverChain(
        [
            OpenAICompatProvider(server.url("/hung"), model="m", name="hung"),
            OpenAICompatProvider(server.url("/ok"), model="m", name="ok"),
        ],
        budget_s=0.4,
    )

    started = time.monotonic()
    with pytest.raises(FailoverExhausted) as caught:
        chain.chat(MESSAGES)

    assert time.monotonic() - started < 2
    assert caught.value.kind == "timeout"
    assert server.requests_to("/ok/chat/completions") == []


def test_chain_over_http_asks_a_schema_rejecting_server_again_without_response_format(server):
    path = "/v1/chat/completions"
    rejection = {
        "error": {
            "message": "Invalid schema for response_format 'Answer': too many properties",
            "type": "invalid_request_error",
        }
    }
    server.route(path, JsonReply(rejection, status=400), JsonReply(openai_completion('{"ok": 1}')))
    backup = ScriptedProvider("rules", "backup")
    chain = FailoverChain([OpenAICompatProvider(server.url("/v1"), model="m"), backup], budget_s=10)

    completion = chain.chat(PROMPT, schema=SCHEMA)

    assert (completion.provider, completion.text) == ("openai", '{"ok": 1}')
    assert backup.calls == 0
    native, again = (request.json() for request in server.requests_to(path))
    assert native["response_format"]["json_schema"]["schema"] == SCHEMA
    assert "response_format" not in again
    assert stable_json(SCHEMA) in again["messages"][0]["content"]
    assert [a.error_kind for a in chain.last_attempts] == ["schema_rejected", None]
