"""Recording structured calls and dead letters."""

import json

import pytest

from dlq.models import DeadLetter, StructuredCall
from dlq.services import llm_check_run, structured_run
from llmkit.types import Message
from tests.llmkit.schemas import LeadCard
from tests.llmkit.test_structured import ScriptedProvider

pytestmark = pytest.mark.django_db

PROMPT = [Message("user", "Перезвоните мне: 8 916 123-45-67, хочу купить машину")]


def test_successful_call_is_recorded_with_its_layer_and_usage():
    provider = ScriptedProvider('{"client_intent": "купить", "phones": ["8 916 123-45-67"]}')
    result, call = structured_run(
        messages=PROMPT, target=LeadCard, provider=provider, source_kind="lead", source_id="42"
    )
    assert result.ok
    call.refresh_from_db()
    assert call.outcome == StructuredCall.Outcome.COERCED
    assert (call.provider, call.model, call.retry_used, call.attempts) == (
        "scripted", "script-1", False, 1
    )  # fmt: skip
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (100, 40, 20)
    assert {c["kind"] for c in call.coercions} == {"enum", "phone_e164"}
    assert not DeadLetter.objects.exists()


def test_failure_after_the_retry_becomes_a_dead_letter_with_everything():
    broken = '{"client_intent": "purchase", "budget_rub": "ask my wife"}'
    provider = ScriptedProvider(broken, broken)
    result, call = structured_run(
        messages=PROMPT,
        target=LeadCard,
        provider=provider,
        source_kind="lead",
        source_id="7",
        raw_input="Перезвоните мне",
        language="ru",
    )
    assert not result.ok
    letter = DeadLetter.objects.get()
    assert letter.call == call
    assert call.outcome == "failed"
    assert call.retry_used
    assert call.attempts == 2
    assert letter.error_signature == "budget_rub: int_parsing"
    assert letter.raw_responses == [broken, broken]
    assert letter.raw_input == "Перезвоните мне"
    assert letter.status == DeadLetter.Status.OPEN
    assert letter.resolved_at is None
    assert (letter.source_kind, letter.source_id, letter.schema_name) == ("lead", "7", "LeadCard")
    assert len(letter.prompt_messages) == 2
    assert letter.prompt_messages[1][-1]["content"].startswith("Ваш предыдущий ответ")
    assert letter.usage == {"prompt_tokens": 200, "cached_tokens": 80, "completion_tokens": 40}
    assert json.dumps(letter.errors)  # stored as plain JSON


def test_llm_check_through_the_default_chain_is_recorded():
    result, call = llm_check_run(source_id="test")
    assert call.provider == "rules"
    assert call.source_kind == "llm_check"
    assert StructuredCall.objects.filter(pk=call.pk).exists()
    assert result.ok, result.errors


def test_postgres_enforces_at_most_one_retry(postgres):
    from django.db import IntegrityError

    with pytest.raises(IntegrityError):
        StructuredCall.objects.create(schema_name="x", outcome="failed", attempts=3)


def test_old_successful_calls_lose_their_prompts_and_answers_but_keep_their_figures():
    from datetime import timedelta

    from django.utils import timezone

    from dlq.models import StructuredCall
    from dlq.services import call_details_prune

    def call(outcome, days_ago):
        made = StructuredCall.objects.create(
            schema_name="LeadCard", provider="rules", outcome=outcome, latency_ms=12,
            prompt_messages=[[{"role": "user", "content": "client text"}]],
            raw_responses=['{"a": 1}'],
        )  # fmt: skip
        StructuredCall.objects.filter(pk=made.pk).update(
            created_at=timezone.now() - timedelta(days=days_ago)
        )
        return made.pk

    old_ok, old_failed, recent_ok = call("fast", 40), call("failed", 40), call("fast", 5)
    assert call_details_prune(older_than_days=30) == 1
    assert call_details_prune(older_than_days=30) == 0  # nothing left to clear
    assert call_details_prune(older_than_days=0) == 0  # 0 keeps everything
    details = dict(StructuredCall.objects.values_list("pk", "prompt_messages").order_by("pk"))
    assert details[old_ok] == []
    assert details[old_failed] != []
    assert details[recent_ok] != []
    assert StructuredCall.objects.get(pk=old_ok).latency_ms == 12
