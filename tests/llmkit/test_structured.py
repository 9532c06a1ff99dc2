"""One call, the pipeline, at most ONE retry at temperature 0, all within one time budget,
otherwise a full failure record."""

import json
import time

from llmkit.failover import FailoverChain
from llmkit.providers.openai_compat import OpenAICompatProvider
from llmkit.structured import feedback_message, run_structured
from llmkit.types import Completion, Message, ProviderError, Usage
from tests.llmkit.schemas import LeadCard
from tests.llmkit.wire_servers import JsonReply, SlowReply, WireServer, openai_completion

GOOD = json.dumps({"client_intent": "purchase", "budget_rub": 500000})
BROKEN = '{"client_intent": "purchase", "budget_rub": "ask my wife"}'


class ScriptedProvider:
    """A provider that answers from a script and remembers every request it got."""

    name = "scripted"
    model = "script-1"

    def __init__(self, *answers, clock=None, cost_s=0.0):
        self.answers = list(answers)
        self.requests = []
        self.clock = clock
        self.cost_s = cost_s

    def chat(self, messages, *, temperature=0.3, max_tokens=1024, schema=None, stream=False,
             timeout=None):  # fmt: skip
        self.requests.append(
            {"messages": list(messages), "temperature": temperature, "schema": schema,
             "stream": stream, "timeout": timeout}
        )  # fmt: skip
        if self.clock is not None:
            self.clock.now += self.cost_s
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return Completion(answer, self.name, self.model, Usage(100, 40, 20), 0.01)


PROMPT = [Message("system", "Extract the lead."), Message("user", "Хочу машину, бюджет уточню")]


def test_valid_first_answer_needs_no_retry():
    provider = ScriptedProvider(GOOD)
    result = run_structured(provider, PROMPT, LeadCard)
    assert result.ok
    assert not result.retry_used
    assert len(provider.requests) == 1
    assert provider.requests[0]["schema"] == LeadCard.model_json_schema()


def test_one_retry_at_temperature_zero_with_field_feedback():
    provider = ScriptedProvider(BROKEN, GOOD)
    result = run_structured(provider, PROMPT, LeadCard, language="ru", temperature=0.7)
    assert result.ok
    assert result.retry_used
    first, retry = provider.requests
    assert first["temperature"] == 0.7
    assert retry["temperature"] == 0.0
    assert retry["messages"][:2] == PROMPT
    assert retry["messages"][2] == Message("assistant", BROKEN)
    feedback = retry["messages"][3].content
    assert feedback.startswith("Ваш предыдущий ответ не принят")
    assert "поле budget_rub: ожидалось целое число, получено 'ask my wife'" in feedback


def test_never_more_than_one_retry():
    provider = ScriptedProvider(BROKEN, BROKEN, GOOD, GOOD)
    result = run_structured(provider, PROMPT, LeadCard)
    assert not result.ok
    assert len(provider.requests) == 2
    assert len(provider.answers) == 2  # the later good answers were never asked for


def test_failure_carries_everything_a_dead_letter_needs():
    provider = ScriptedProvider(BROKEN, "{not json at all")
    result = run_structured(provider, PROMPT, LeadCard)
    assert not result.ok
    assert result.raw_responses == [BROKEN, "{not json at all"]
    assert result.schema_name == "LeadCard"
    assert result.providers == ["scripted", "scripted"]
    assert result.usage == Usage(200, 80, 40)
    assert result.error_signature == result.errors[0].signature
    assert [len(a.messages) for a in result.attempts] == [2, 4]


def test_unreachable_providers_fail_without_a_retry():
    provider = ScriptedProvider(ProviderError("connection", "refused", provider="x"), GOOD)
    result = run_structured(provider, PROMPT, LeadCard)
    assert not result.ok
    assert len(provider.requests) == 1
    assert result.error_signature == "$: provider_unavailable"
    assert result.raw_responses == []


def test_feedback_is_english_for_other_languages_and_quotes_are_capped():
    from llmkit.parse import FieldError

    message = feedback_message(
        [FieldError("summary", "string_too_long", "too long", "x" * 500)], "de"
    )
    assert message.startswith("Your previous answer could not be accepted")
    assert "field summary: too long" in message
    assert len(message) < 400


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


def test_the_retry_gets_only_what_the_first_request_left_of_the_budget():
    clock = Clock()
    provider = ScriptedProvider(BROKEN, GOOD, clock=clock, cost_s=35.0)
    result = run_structured(provider, PROMPT, LeadCard, budget_s=100.0, clock=clock, stream=True)
    assert result.ok
    assert [r["timeout"] for r in provider.requests] == [100.0, 65.0]
    assert all(r["stream"] for r in provider.requests)
    assert result.latency_s == 70.0


def test_a_retry_with_the_budget_spent_is_sent_with_no_time_at_all():
    clock = Clock()
    provider = ScriptedProvider(BROKEN, GOOD, clock=clock, cost_s=120.0)
    run_structured(provider, PROMPT, LeadCard, budget_s=100.0, clock=clock)
    # A chain skips every provider that needs time and lets the rules agent answer.
    assert [r["timeout"] for r in provider.requests] == [100.0, 0.0]


def test_without_a_budget_each_request_is_left_to_the_provider():
    provider = ScriptedProvider(BROKEN, GOOD)
    run_structured(provider, PROMPT, LeadCard)
    assert [r["timeout"] for r in provider.requests] == [None, None]


def test_two_slow_providers_and_the_retry_finish_within_one_budget():
    """Over HTTP: the first provider fails slowly, the second answers slowly with a broken
    answer, and the retry gets only the rest of the call's budget. Per request, the call
    would take twice as long."""
    path = "/v1/chat/completions"
    budget_s, delay_s = 2.0, 0.8
    with WireServer() as first, WireServer() as second:
        first.route(path, SlowReply(delay_s, JsonReply({"error": "overloaded"}, status=503)))
        second.route(path, SlowReply(delay_s, JsonReply(openai_completion(BROKEN))))
        chain = FailoverChain(
            [
                OpenAICompatProvider(first.url("/v1"), model="a", name="first"),
                OpenAICompatProvider(second.url("/v1"), model="b", name="second"),
            ],
            budget_s=100.0,
        )
        started = time.monotonic()
        result = run_structured(chain, PROMPT, LeadCard, budget_s=budget_s)
        elapsed = time.monotonic() - started
        first_requests, second_requests = len(first.requests), len(second.requests)
    assert elapsed < budget_s + 0.5
    assert result.retry_used
    assert result.raw_responses == [BROKEN]
    # The retry reached the first provider, timed out there, and the second was skipped.
    assert (first_requests, second_requests) == (2, 1)
    error = result.final.provider_error
    assert error is not None
    assert error.kind == "timeout"
    assert [(a.provider, a.error_kind) for a in chain.last_attempts] == [
        ("first", "timeout"),
        ("second", "timeout"),
    ]
