"""One call, the pipeline, at most ONE retry at temperature 0, otherwise a full failure record."""

import json

from llmkit.structured import feedback_message, run_structured
from llmkit.types import Completion, Message, ProviderError, Usage
from tests.llmkit.schemas import LeadCard

GOOD = json.dumps({"client_intent": "purchase", "budget_rub": 500000})
BROKEN = '{"client_intent": "purchase", "budget_rub": "ask my wife"}'


class ScriptedProvider:
    """A provider that answers from a script and remembers every request it got."""

    name = "scripted"
    model = "script-1"

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def chat(self, messages, *, temperature=0.3, max_tokens=1024, schema=None, stream=False,
             timeout=None):  # fmt: skip
        self.requests.append(
            {"messages": list(messages), "temperature": temperature, "schema": schema}
        )
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
