"""Writes for structured calls and dead letters: run a call through the configured chain and
record it, so no failed model answer is ever lost; and the review's actions on a dead letter
(fix, replay, discard), each audited and none able to act twice."""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError, ErrorCode
from core.queueing import queue_after_commit
from dlq.ledger import call_price
from dlq.models import DeadLetter, DeadLetterAction, StructuredCall
from dlq.sources import dead_letter_settled, dead_letter_source
from llmkit.config import chain_from_env
from llmkit.fields import StructuredModel
from llmkit.parse import FieldError, ParseOutcome, SemanticValidator, Target
from llmkit.pools import PoolSet, pools_from_env
from llmkit.providers.answered import AnsweredOnce
from llmkit.providers.rules import Responder, rules_answering
from llmkit.session import cache_session, cache_worthy
from llmkit.structured import StructuredResult, run_structured
from llmkit.types import Completion, Message, Provider
from webhooks.events import dead_letter_created_emit


@functools.cache
def llm_chain() -> Provider:
    """The process-wide failover chain built from the environment (one per worker process,
    so circuit breakers and OAuth tokens are shared by every call of that process)."""
    environ = dict(os.environ)
    environ.setdefault("LLM_PROVIDERS", ",".join(settings.LLM_PROVIDERS))
    environ.setdefault("LLM_CALL_BUDGET_S", str(settings.LLM_CALL_BUDGET_S))
    return chain_from_env(environ)


@functools.cache
def llm_pools() -> PoolSet | None:
    """The process-wide model pools (LLM_POOLS), each its own failover chain ending with the
    rules agent; None when LLM_POOLS is not set and one chain serves every call."""
    environ = dict(os.environ)
    environ["LLM_POOLS"] = settings.LLM_POOLS
    for name in ("LLM_POOL_ROUTES", "LLM_TURN_CALL_CAPS", "LLM_TURN_TOKEN_CAPS"):
        environ[name] = getattr(settings, name)
    environ.setdefault("LLM_CALL_BUDGET_S", str(settings.LLM_CALL_BUDGET_S))
    # The same rules agent as the single chain's (a call gives it its own responder).
    rules = getattr(llm_chain(), "providers", [None])[-1]
    return pools_from_env(environ, rules_provider=rules)


def structured_call_record(
    *,
    result: StructuredResult,
    source_kind: str = "",
    source_id: str = "",
    raw_input: str = "",
    prompt_estimate: tuple[int, int] = (0, 0),
    pool: str = "",
    session: str = "",
) -> StructuredCall:
    """Persist one structured call, priced for the cost ledger, and, when it failed, its
    dead letter.

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
        pool=pool,
        session=session,
    )
    call_price(call)
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
        dead_letter_created_emit(dead_letter)
    return call


def dead_letter_create(
    *,
    source_kind: str,
    source_id: str,
    schema_name: str,
    raw_input: str,
    errors: Sequence[FieldError],
) -> DeadLetter:
    """A dead letter for work that failed with no model answer to record (its processing
    was lost with its worker, again and again): reviewed, fixed and replayed like any other.
    Runs in the caller's transaction."""
    dead_letter = DeadLetter(
        source_kind=source_kind,
        source_id=str(source_id),
        schema_name=schema_name,
        raw_input=raw_input,
        errors=[error.as_dict() for error in errors],
        error_signature=errors[0].signature if errors else "$: unknown",
    )
    dead_letter.full_clean(exclude=["call"], validate_constraints=False)
    dead_letter.save()
    dead_letter_created_emit(dead_letter)
    return dead_letter


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
    budget_s: float | None = None,
    stream: bool | None = None,
    pool: str = "",
    session: str = "",
    rules_responder: Responder | None = None,
    first_answer: Completion | None = None,
) -> tuple[StructuredResult, StructuredCall]:
    """Run a structured call through the configured chain (or `provider`) and record it.

    The whole call, every provider tried and the retry, takes at most LLM_CALL_BUDGET_S, or
    `budget_s` when the caller has less left (a turn's second stage call). Answers are
    streamed and read only up to the top-level `}` unless LLM_STREAM is off (`stream`
    overrides it). The model call happens outside any transaction.

    `pool` names the pool whose chain is `provider` and `session` the conversation (the
    cost ledger's keys); the session goes to the providers that cache per session only when
    the prompt's stable prefix is worth a cache write (LLM_CACHE_MIN_TOKENS).
    `rules_responder` is the caller's own logic for the rules agent at the chain's end (a
    stage's dialogue, a lead card's reading); without it the rules agent fills the schema
    from the extractors. `first_answer` is an answer already received for these messages
    (a tool-calling request answered in text): it is validated as the first attempt, and
    only its retry, if needed, is a request.
    """
    budget = settings.LLM_CALL_BUDGET_S
    chain = provider or llm_chain()
    if rules_responder is not None:
        chain = rules_answering(chain, rules_responder)
    if first_answer is not None:
        chain = AnsweredOnce(chain, first_answer)
    worthy = cache_worthy(prompt_estimate[0], settings.LLM_CACHE_MIN_TOKENS)
    with cache_session(session if worthy else None):
        result = run_structured(
            chain,
            messages,
            target,
            validators=validators,
            context=context,
            language=language,
            temperature=temperature,
            max_tokens=max_tokens,
            budget_s=budget if budget_s is None else min(budget, budget_s),
            stream=settings.LLM_STREAM if stream is None else stream,
        )
    call = structured_call_record(
        result=result,
        source_kind=source_kind,
        source_id=source_id,
        raw_input=raw_input,
        prompt_estimate=prompt_estimate,
        pool=pool,
        session=session,
    )
    return result, call


def call_details_prune(*, older_than_days: int, batch: int = 1000) -> int:
    """Clear the prompts and raw answers of successful calls made more than
    `older_than_days` ago: they hold client text, and the parse-quality figures need none
    of it. Dead-lettered calls keep theirs (their letter is still to be reviewed). Returns
    how many calls were cleared; 0 days keeps everything."""
    if older_than_days <= 0:
        return 0
    cutoff = timezone.now() - timedelta(days=older_than_days)
    stale = (
        StructuredCall.objects.filter(created_at__lt=cutoff)
        .exclude(outcome=StructuredCall.Outcome.FAILED)
        .exclude(prompt_messages=[], raw_responses=[])
    )
    cleared = 0
    while ids := list(stale.values_list("pk", flat=True)[:batch]):
        cleared += StructuredCall.objects.filter(pk__in=ids).update(
            prompt_messages=[], raw_responses=[]
        )
    return cleared


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


def _letter_locked_open(dead_letter: DeadLetter, action: str) -> DeadLetter:
    """The letter re-read under a row lock, refused unless it is open with no replay running:
    two reviewers (or a reviewer and a replay) never both act on the same letter."""
    letter = DeadLetter.objects.select_for_update().get(pk=dead_letter.pk)
    if letter.status != DeadLetter.Status.OPEN:
        raise ApplicationError(
            f"only an open dead letter can be {action}; this one is {letter.status}",
            code=ErrorCode.CONFLICT,
        )
    if dead_letter_replay_running(letter):
        raise ApplicationError(
            "a replay of this dead letter is running; wait for its outcome",
            code=ErrorCode.CONFLICT,
        )
    return letter


def dead_letter_replay_running(letter: DeadLetter) -> bool:
    """A replay asked for within the turn lease is still owned by the worker; after that it
    is taken as lost (a killed worker) and may be asked for again."""
    if letter.replay_requested_at is None:
        return False
    lease = timedelta(seconds=settings.BRIEFING_TURN_LEASE_S * 2)
    return letter.replay_requested_at + lease > timezone.now()


def _resolve(letter: DeadLetter, status: str, *, user_id: int | None, note: str) -> None:
    letter.status = status
    letter.resolved_at = timezone.now()
    letter.resolved_by_id = user_id
    letter.resolution_note = note
    letter.replay_requested_at = None
    # `call` is nullable without blank=True: an older letter without its call stays valid.
    letter.full_clean(exclude=["call"])
    letter.save(
        update_fields=[
            "status", "resolved_at", "resolved_by", "resolution_note", "replay_requested_at"
        ]
    )  # fmt: skip
    dead_letter_settled(letter)


def _audit(
    letter: DeadLetter, kind: str, *, user_id: int | None, note: str = "", **data: Any
) -> None:
    DeadLetterAction.objects.create(
        dead_letter=letter, kind=kind, user_id=user_id, note=note, data=data
    )


def dead_letter_discard(*, dead_letter: DeadLetter, user: Any, reason: str) -> DeadLetter:
    """Close an open dead letter without applying anything. The reason, who and when stay on
    the row and in its audit trail: they are the record of the decision."""
    reason = reason.strip()
    if not reason:
        raise ApplicationError("a reason is required")
    with transaction.atomic():
        letter = _letter_locked_open(dead_letter, "discarded")
        _resolve(letter, DeadLetter.Status.DISCARDED, user_id=user.pk, note=reason)
        _audit(letter, DeadLetterAction.Kind.DISCARDED, user_id=user.pk, note=reason)
    return letter


def dead_letter_fix_check(*, dead_letter: DeadLetter, data: Any) -> ParseOutcome:
    """Validate a manager's corrected answer like a model answer (shape and semantics),
    changing nothing: the live check of the fix editor."""
    return dead_letter_source(dead_letter).answer_check(dead_letter, _json_text(data))


def _json_text(data: Any) -> str:
    """A corrected answer as the text a model would have sent (the form posts text)."""
    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)


def dead_letter_fix_apply(*, dead_letter: DeadLetter, data: Any, user: Any) -> DeadLetter:
    """Apply a manager's corrected JSON to what the dead letter belongs to, exactly as an
    accepted model answer (a briefing turn's stage goes through its gate and the client gets
    one reply). Invalid JSON changes nothing and the errors come back at their fields."""
    if dead_letter.status != DeadLetter.Status.OPEN:
        raise ApplicationError(
            f"only an open dead letter can be fixed; this one is {dead_letter.status}",
            code=ErrorCode.CONFLICT,
        )
    raw = _json_text(data)
    outcome = dead_letter_fix_check(dead_letter=dead_letter, data=raw)
    if not outcome.ok:
        raise ApplicationError(
            "the answer is not valid for this schema",
            extra={"fields": [error.as_dict() for error in outcome.errors]},
        )
    with transaction.atomic():
        letter = _letter_locked_open(dead_letter, "fixed")
        dead_letter_source(letter).answer_apply(letter, outcome, letter.call)
        _resolve(letter, DeadLetter.Status.FIXED, user_id=user.pk, note=raw)
        _audit(letter, DeadLetterAction.Kind.FIXED, user_id=user.pk, note=raw)
    return letter


def dead_letter_replay_request(*, dead_letter: DeadLetter, user: Any) -> DeadLetter:
    """Queue a replay of the letter's original input through today's prompts and providers.
    The outcome arrives on the letter (and its audit trail) when the worker is done."""
    from dlq.tasks import dead_letter_replay

    dead_letter_source(dead_letter)  # a clear error for a kind that cannot be replayed
    with transaction.atomic():
        letter = _letter_locked_open(dead_letter, "replayed")
        letter.replay_requested_at = timezone.now()
        letter.save(update_fields=["replay_requested_at"])
        user_id = user.pk
        _audit(letter, DeadLetterAction.Kind.REPLAY_REQUESTED, user_id=user_id)
        queue_after_commit(
            functools.partial(dead_letter_replay.delay, letter.pk, user_id),
            what=f"replay of dead letter {letter.pk}",
        )
    return letter


def dead_letters_replay_group(*, signature: str, user: Any) -> tuple[int, dict[str, int]]:
    """Queue a replay of every open letter with this error signature. Returns how many were
    queued and, by reason, how many were skipped (a replay already running, a kind that
    cannot be replayed)."""
    queued, skipped = 0, Counter()
    letters = DeadLetter.objects.filter(
        status=DeadLetter.Status.OPEN, error_signature=signature
    ).order_by("created_at", "id")
    for letter in letters.iterator():
        try:
            dead_letter_replay_request(dead_letter=letter, user=user)
        except ApplicationError as error:
            skipped[error.message] += 1
        else:
            queued += 1
    return queued, dict(skipped)


def dead_letter_replay_run(*, dead_letter_id: int, user_id: int | None) -> DeadLetter:
    """The worker's half of a replay. A letter no longer open is left alone, so a task
    delivered twice replays once; an answer that parses is applied by the source in the same
    transaction that marks the letter replayed; one that fails again is a new dead letter
    linked to this one."""
    letter = DeadLetter.objects.get(pk=dead_letter_id)
    if letter.status != DeadLetter.Status.OPEN:
        return letter

    def settle(call: StructuredCall, ok: bool) -> None:
        locked = DeadLetter.objects.select_for_update().get(pk=letter.pk)
        if locked.status != DeadLetter.Status.OPEN:
            raise ApplicationError(
                f"the dead letter was {locked.status} during the replay", code=ErrorCode.CONFLICT
            )
        new_letter = None
        if not ok:
            new_letter = DeadLetter.objects.get(call=call)
            new_letter.replay_of = locked
            new_letter.save(update_fields=["replay_of"])
        outcome = "applied" if ok else f"failed again: dead letter {new_letter.pk}"
        _resolve(locked, DeadLetter.Status.REPLAYED, user_id=user_id, note=f"replay {outcome}")
        _audit(
            locked, DeadLetterAction.Kind.REPLAYED, user_id=user_id, call=call.pk, applied=ok,
            new_dead_letter=new_letter.pk if new_letter else None,
        )  # fmt: skip

    try:
        dead_letter_source(letter).replay(letter, settle)
    except ApplicationError as error:
        with transaction.atomic():
            locked = DeadLetter.objects.select_for_update().get(pk=letter.pk)
            locked.replay_requested_at = None
            locked.save(update_fields=["replay_requested_at"])
            refused = DeadLetterAction.Kind.REPLAY_REFUSED
            _audit(locked, refused, user_id=user_id, note=error.message)
    letter.refresh_from_db()
    return letter
