"""Which model pool serves a client turn, why, and what it may spend: level 1's verdict (the
shipped classifier; with pools configured, the cheapest pool's model first) picks the pool
by complexity, a complaint, a stage that failed its gate twice or the producer's switch
raises it, and the turn's meter caps its model calls and output tokens."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from pydantic import ValidationError

from briefing.common.events import event_record
from briefing.models import BriefingEvent, Project, StageRun, Turn
from core.errors import ApplicationError, ErrorCode
from dlq.ledger import briefing_session, ledger_for_briefing
from dlq.models import ClassifierDisagreement
from dlq.services import llm_chain, llm_pools, structured_run
from llmkit.level1 import Level1Verdict, classify
from llmkit.level1_llm import (
    MAX_TOKENS,
    Level1Answer,
    disagreement,
    level1_messages,
    verdict_from_answer,
)
from llmkit.pools import (
    DEFAULT_CALL_CAPS,
    DEFAULT_TOKEN_CAPS,
    FREE_PROVIDERS,
    ROUTE_KEYS,
    PoolSet,
    Route,
    TurnMeter,
    parse_levels,
)
from llmkit.prompt import estimate_tokens
from llmkit.providers.rules import RulesProvider
from llmkit.structured import StructuredResult

logger = logging.getLogger(__name__)
Kind = BriefingEvent.Kind

# Events that mean a stage's answer failed validation (its gate could not even be tried).
_GATE_FAILURES = (Kind.DEAD_LETTERED, Kind.RETRY_USED)


def _level1(
    *, text: str, language: str, project_id: int, turn_id: int, budget_s: float | None
) -> tuple[Level1Verdict, StructuredResult | None]:
    """Level 1's verdict on a client message, and the model call's result when one was made.
    With pools configured (and LLM_LEVEL1_MODEL on) the cheapest pool's models answer the
    contract through the structured call, recorded in the ledger; any failure falls back to
    the shipped classifier, whose verdict is always computed too: where the two disagree, the
    message is recorded for managers."""
    classifier = classify(text, default_language=language)
    pools = llm_pools() if settings.LLM_LEVEL1_MODEL else None
    chain = pools.models_chain() if pools is not None else None
    if chain is None:
        return classifier, None
    messages = level1_messages(text)
    try:
        result, call = structured_run(
            messages=messages,
            target=Level1Answer,
            source_kind="level1",
            source_id=str(turn_id),
            raw_input=text,
            provider=chain,
            temperature=0.0,
            max_tokens=MAX_TOKENS,
            prompt_estimate=(
                estimate_tokens(messages[0].content),
                sum(estimate_tokens(m.content) for m in messages),
            ),
            budget_s=budget_s,
            pool=pools.first_pool,
            session=briefing_session(project_id),
        )
    except Exception:  # the classifier must answer whatever happened to the model call
        logger.exception("level 1's model call failed; the shipped classifier answers")
        return classifier, None
    if not result.ok:
        return classifier, result
    verdict = verdict_from_answer(result.value, classifier)
    differing = disagreement(verdict, classifier)
    if differing:
        ClassifierDisagreement.objects.create(
            call=call,
            source_kind="briefing_turn",
            source_id=str(turn_id),
            text=text,
            fields=differing,
            model_verdict=verdict.as_meta(),
            classifier_verdict=classifier.as_meta(),
        )
    return verdict, result


def gate_failures(*, project: Project, stage: StageRun) -> int:
    """How many of the stage's turns had an answer that failed validation (retried or
    dead-lettered)."""
    return (
        project.events.filter(stage_key=stage.key, kind__in=_GATE_FAILURES)
        .values("turn_id")
        .distinct()
        .count()
    )


def escalations_for(*, project: Project, stage: StageRun, verdict: Level1Verdict) -> list[str]:
    """The expert cases that send a turn to the escalation pool."""
    reasons = []
    if verdict.intent == "complaint":
        reasons.append("complaint")
    if gate_failures(project=project, stage=stage) >= 2:
        reasons.append("gate_failed_twice")
    if project.strong_model:
        reasons.append("producer_switch")
    return reasons


def _caps() -> tuple[dict[str, int], dict[str, int]]:
    return (
        parse_levels(settings.LLM_TURN_CALL_CAPS, DEFAULT_CALL_CAPS, name="LLM_TURN_CALL_CAPS"),
        parse_levels(settings.LLM_TURN_TOKEN_CAPS, DEFAULT_TOKEN_CAPS, name="LLM_TURN_TOKEN_CAPS"),
    )


def _single_chain_has_model() -> bool:
    providers = getattr(llm_chain(), "providers", ())
    return any(provider.name not in FREE_PROVIDERS for provider in providers)


def turn_route(*, project: Project, stage: StageRun, verdict: Level1Verdict) -> TurnMeter | None:
    """The turn's pool and caps as a meter to spend against. Without pools the one chain
    (LLM_PROVIDERS) serves the turn, capped all the same when it holds a model (pool "");
    None when only the rules agent answers: it is no model and cannot run on."""
    escalations = escalations_for(project=project, stage=stage, verdict=verdict)
    pools = llm_pools()
    if pools is not None:
        return TurnMeter(pools.route(complexity=verdict.complexity, escalations=escalations))
    if not _single_chain_has_model():
        return None
    calls, tokens = _caps()
    single = PoolSet(chains={}, routes=dict.fromkeys(ROUTE_KEYS, ""), call_caps=calls,
                     token_caps=tokens)  # fmt: skip
    return TurnMeter(single.route(complexity=verdict.complexity, escalations=escalations))


# The turn `meta` key of what level 1's model call spent (charged to the turn's caps).
LEVEL1_SPENT = "level1_spent"


def level1_for_turn(
    *, project: Project, turn: Turn, budget_s: float | None = None
) -> Level1Verdict:
    """Level 1's verdict on a client turn, kept in the turn's meta with what
    its model call spent, so the router reuses both instead of asking again. A turn
    processed again (handed back by a producer) keeps the model's verdict it already got."""
    known = turn.meta.get("level1")
    if isinstance(known, dict) and known.get("source") == "model":
        return Level1Verdict.model_validate(known)
    verdict, result = _level1(
        text=turn.text, language=project.language, project_id=project.pk, turn_id=turn.pk,
        budget_s=budget_s,
    )  # fmt: skip
    turn.meta = {**turn.meta, "level1": verdict.as_meta()}
    if result is not None:
        spent = TurnMeter(Route("", "simple", (), 0, 0))
        spent.record(result)
        turn.meta[LEVEL1_SPENT] = {"calls": spent.calls, "output_tokens": spent.output_tokens}
    return verdict


def replay_route(*, turn: Turn, stage: StageRun) -> TurnMeter | None:
    """The replay's pool and fresh caps, with LLM_POOLS: the route of the turn's recorded
    level-1 verdict (no model is asked again; a complaint, the stage's failures or the
    producer's switch raise it as for a turn), or the simple route when the turn has none.
    None without pools: the one chain (LLM_PROVIDERS) answers, as before."""
    pools = llm_pools()
    if pools is None:
        return None
    try:
        verdict = Level1Verdict.model_validate(turn.meta.get("level1"))
    except ValidationError:  # none recorded (the turn was never routed), or unreadable
        return TurnMeter(pools.route(complexity="simple"))
    return turn_route(project=turn.project, stage=stage, verdict=verdict)


def turn_route_decide(
    *, project: Project, turn: Turn, stage: StageRun, budget_s: float | None = None
) -> TurnMeter | None:
    """Route a client turn before its stage call: level 1's verdict (the one already on the
    turn when a model gave it or no model could, else asked now), the pool, and the route
    written to the turn's meta for the briefing page; what level 1's model call spent is
    charged to the turn's caps. None when only the rules agent answers."""
    pools = llm_pools()
    if pools is None and not _single_chain_has_model():
        return None
    known = turn.meta.get("level1")
    asked_model = isinstance(known, dict) and (
        known.get("source") == "model" or LEVEL1_SPENT in turn.meta
    )
    if isinstance(known, dict) and (asked_model or pools is None):
        verdict = Level1Verdict.model_validate(known)
    else:
        verdict = level1_for_turn(project=project, turn=turn, budget_s=budget_s)
    meter = turn_route(project=project, stage=stage, verdict=verdict)
    spent = turn.meta.get(LEVEL1_SPENT) or {}
    meter.calls += spent.get("calls", 0)
    meter.output_tokens += spent.get("output_tokens", 0)
    turn.meta = {**turn.meta, "route": meter.as_meta()}
    return meter


def stage_call_options(meter: TurnMeter | None, *, project_id: int) -> dict[str, Any]:
    """The stage call's provider, pool and output cap from the turn's route, and the
    briefing's ledger session (always: the single chain's calls are priced too)."""
    options: dict[str, Any] = {"session": briefing_session(project_id)}
    if meter is None:
        return options
    pool = meter.route.pool
    if not pool:  # the one chain, capped
        return {**options, "max_tokens": meter.max_tokens(settings.BRIEFING_MAX_TOKENS)}
    return {
        **options,
        "provider": llm_pools().chains[pool],
        "pool": pool,
        "max_tokens": meter.max_tokens(settings.BRIEFING_MAX_TOKENS),
    }


def code_call_options(*, project_id: int) -> dict[str, Any]:
    """A stage call answered by the rules agent, by code (a next stage's opening question):
    no model, no pool, nothing against the turn's caps; the briefing's ledger session."""
    return {"provider": RulesProvider(), "session": briefing_session(project_id)}


def cost_budget_exceeded(*, project: Project) -> Decimal | None:
    """The briefing's cost when it passed BRIEFING_COST_BUDGET and was not flagged yet."""
    budget = settings.BRIEFING_COST_BUDGET
    if budget <= 0:
        return None
    spent = ledger_for_briefing(project_id=project.pk).cost
    if spent <= Decimal(str(budget)):
        return None
    if project.events.filter(kind=Kind.COST_BUDGET_EXCEEDED).exists():
        return None
    return spent


# --- the producer's switch ----------------------------------------------------------------
# Kept beside the routing it steers (one sub-domain, one module) rather than in the
# briefing's services, which already hold every other producer action (the services sit
# above the orchestrator, and the orchestrator above this module).


@transaction.atomic
def project_strong_model_set(*, project: Project, on: bool, user: Any) -> None:
    """The producer's "use the strong model" switch: while on, every turn of the briefing
    goes to the escalation pool. Recorded as an event with who, the old and the new value."""
    locked = Project.objects.select_for_update().get(pk=project.pk)
    if locked.strong_model == on:
        state = "on" if on else "off"
        raise ApplicationError(
            f"the strong model is already {state} for this briefing", code=ErrorCode.CONFLICT
        )
    locked.strong_model = on
    locked.save(update_fields=["strong_model", "updated_at"])
    event_record(
        project=locked, kind=Kind.STRONG_MODEL_SET, actor=user, data={"old": not on, "new": on}
    )


def briefing_cost(*, project: Project) -> dict[str, Any]:
    """What the briefing page shows of the ledger: money and tokens so far, and whether the
    cost budget was passed."""
    budget = settings.BRIEFING_COST_BUDGET
    totals = ledger_for_briefing(project_id=project.pk)
    return {
        "totals": totals,
        "budget": budget,
        "over_budget": bool(budget) and totals.cost > Decimal(str(budget)),
        "pools_on": bool(settings.LLM_POOLS),
    }
