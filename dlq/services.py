"""Writes for structured calls and dead letters: run a call through the configured chain and
record it, so no failed model answer is ever lost."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from briefing.errors import ApplicationError
from dlq.models import DeadLetter, StructuredCall
from llmkit.config import chain_from_env
from llmkit.fields import StructuredModel
from llmkit.parse import SemanticValidator, Target
from llmkit.structured import StructuredResult, run_structured
from llmkit.types import Message, Provider


@functools.cache
def llm_chain() -> Provider:
    """The process-wide failover chain built from the environment (one per worker process,
    so circuit breakers and OAuth tokens are shared by every call of that process)."""
    environ = dict(os.environ)
    environ.setdefault("LLM_PROVIDERS", ",".join(settings.LLM_PROVIDERS))
    environ.setdefault("LLM_CALL_BUDGET_S", str(settings.LLM_CALL_BUDGET_S))
    return chain_from_env(environ, rules_responder=import_string(settings.LLM_RULES_RESPONDER))


def structured_call_record(
    *,
    result: StructuredResult,
    source_kind: str = "",
    source_id: str = "",
    raw_input: str = "",
    prompt_estimate: tuple[int, int] = (0, 0),
) -> StructuredCall:
    """Persist one structured call and, when it failed, its dead letter.

    `prompt_estimate` is (cacheable prefix, whole prompt) in estimated tokens."""
    usage = result.usage
    call = StructuredCall(
        schema_name=result.schema_name,
        provider=result.provider,
        model=result.model,
        providers=result.providers,
        outcome=result.layer if result.ok else StructuredCall.Outcome.FAILED,
        retry_used=result.retry_used,
        attempts=len(result.attempts),
        latency_ms=round(result.latency_s * 1000),
        prompt_tokens=usage.prompt_tokens,
        cached_tokens=usage.cached_tokens,
        completion_tokens=usage.completion_tokens,
        cacheable_tokens_estimate=prompt_estimate[0],
        prompt_tokens_estimate=prompt_estimate[1],
        coercions=[c.as_dict() for c in result.final.outcome.coercions]
        if result.final.outcome
        else [],
        prompt_messages=[[m.as_dict() for m in a.messages] for a in result.attempts],
        raw_responses=result.raw_responses,
        source_kind=source_kind,
        source_id=str(source_id),
    )
    # The database enforces the check constraints; validating them here costs a query on
    # every model call.
    call.full_clean(validate_constraints=False)
    if result.ok:
        call.save()
        return call
    with transaction.atomic():
        call.save()
        dead_letter = DeadLetter(
            call=call,
            source_kind=source_kind,
            source_id=str(source_id),
            schema_name=result.schema_name,
            provider=result.provider,
            model=result.model,
            raw_input=raw_input,
            prompt_messages=call.prompt_messages,
            raw_responses=call.raw_responses,
            errors=[e.as_dict() for e in result.errors],
            error_signature=result.error_signature or "$: unknown",
            usage={
                "prompt_tokens": usage.prompt_tokens,
                "cached_tokens": usage.cached_tokens,
                "completion_tokens": usage.completion_tokens,
            },
        )
        dead_letter.full_clean(validate_constraints=False)
        dead_letter.save()
    return call


def structured_run(
    *,
    messages: Sequence[Message],
    target: Any | Target,
    source_kind: str = "",
    source_id: str = "",
    raw_input: str = "",
    validators: Iterable[SemanticValidator] = (),
    context: Mapping[str, Any] | None = None,
    language: str = "en",
    provider: Provider | None = None,
    temperature: float = 0.3,
    max_tokens: int = 1024,
    prompt_estimate: tuple[int, int] = (0, 0),
) -> tuple[StructuredResult, StructuredCall]:
    """Run a structured call through the configured chain (or `provider`) and record it.

    The model call happens outside any transaction: it can take up to the call budget.
    """
    result = run_structured(
        provider or llm_chain(),
        messages,
        target,
        validators=validators,
        context=context,
        language=language,
        temperature=temperature,
        max_tokens=max_tokens,
    )
    call = structured_call_record(
        result=result,
        source_kind=source_kind,
        source_id=source_id,
        raw_input=raw_input,
        prompt_estimate=prompt_estimate,
    )
    return result, call


class LlmCheckAnswer(StructuredModel):
    """The tiny schema of the provider health check."""

    message: str
    ok: bool


LLM_CHECK_PROMPT = (
    'Reply with exactly this JSON object and nothing else: {"message": "pong", "ok": true}'
)


def llm_check_run(*, source_id: str = "") -> tuple[StructuredResult, StructuredCall]:
    """Send one small structured call through the configured chain and record it, to show
    which provider answers from this process (web or worker) and how well it parses."""
    return structured_run(
        messages=[Message("user", LLM_CHECK_PROMPT)],
        target=LlmCheckAnswer,
        source_kind="llm_check",
        source_id=source_id,
        max_tokens=64,
    )


def dead_letter_discard(*, dead_letter: DeadLetter, user: Any, reason: str) -> DeadLetter:
    """Close an open dead letter without replaying it. The reason, who and when stay on the
    row: they are the record of the decision."""
    reason = reason.strip()
    if not reason:
        raise ApplicationError("a reason is required")
    with transaction.atomic():
        # Locked and re-read so two reviewers cannot both discard the same letter.
        locked = DeadLetter.objects.select_for_update().get(pk=dead_letter.pk)
        if locked.status != DeadLetter.Status.OPEN:
            raise ApplicationError(
                f"only an open dead letter can be discarded; this one is {locked.status}"
            )
        locked.status = DeadLetter.Status.DISCARDED
        locked.resolved_at = timezone.now()
        locked.resolved_by = user
        locked.resolution_note = reason
        # `call` is nullable without blank=True: an older letter without its call stays valid.
        locked.full_clean(exclude=["call"])
        locked.save(update_fields=["status", "resolved_at", "resolved_by", "resolution_note"])
    return locked


def dead_letter_fix_apply(*, dead_letter: DeadLetter, data: Any, user: Any) -> DeadLetter:
    """Apply a manager's corrected JSON to what the dead letter belongs to, exactly as an
    accepted model answer: a briefing turn's stage goes through its gate and the client
    gets one reply. The JSON is validated like a model answer (shape and semantics);
    invalid JSON changes nothing and the errors come back at their fields."""
    import json

    from briefing.agents import stage_answer_check
    from briefing.models import Turn
    from briefing.orchestrator import turn_answer_apply

    if dead_letter.status != DeadLetter.Status.OPEN:
        raise ApplicationError(
            f"only an open dead letter can be fixed; this one is {dead_letter.status}"
        )
    if dead_letter.source_kind != "briefing_turn":
        raise ApplicationError(
            f"fixing a {dead_letter.source_kind or 'sourceless'} dead letter is not supported yet"
        )
    turn = Turn.objects.filter(pk=dead_letter.source_id).first()
    if turn is None:
        raise ApplicationError("the briefing turn of this dead letter no longer exists")
    raw = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    outcome = stage_answer_check(turn=turn, raw=raw)
    if not outcome.ok:
        raise ApplicationError(
            "the answer is not valid for this stage",
            extra={"fields": [error.as_dict() for error in outcome.errors]},
        )
    with transaction.atomic():
        letter = DeadLetter.objects.select_for_update().get(pk=dead_letter.pk)
        if letter.status != DeadLetter.Status.OPEN:
            raise ApplicationError(
                f"only an open dead letter can be fixed; this one is {letter.status}"
            )
        turn_answer_apply(turn=turn, answer=outcome.value, data=outcome.data, call=letter.call)
        letter.status = DeadLetter.Status.FIXED
        letter.resolved_at = timezone.now()
        letter.resolved_by = user
        letter.resolution_note = raw
        letter.full_clean(exclude=["call"])
        letter.save(update_fields=["status", "resolved_at", "resolved_by", "resolution_note"])
    return letter


def _not_open(letter: DeadLetter) -> str:
    return f"only an open dead letter can be fixed; this one is {letter.status}"
