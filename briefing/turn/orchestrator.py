"""The turn, step by step: claim → takeover check → level-0 guard → language → pre-parse →
the current stage's agent → gate → advance → reply. Model calls happen outside any
transaction; everything the turn changes is written in one transaction at its end
(briefing.turn.outcome), and only if the turn is still this worker's claim
(briefing.turn.claims)."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from briefing.common.texts import text as code_text
from briefing.models import BriefingEvent, Project, StageRun, Turn
from briefing.reader.chatter import is_closing, is_confirmation, is_greeting, not_a_value
from briefing.reader.contacts import contacts_merged
from briefing.stages.base import StageSpec, is_empty
from briefing.stages.readers import read_contact
from briefing.stages.registry import stages_for
from briefing.turn.agents import StageCall, stage_agent_run, stage_messages
from briefing.turn.claims import late_answer_claim, turn_claim_fail, turn_claim_next
from briefing.turn.completion import brief_finish
from briefing.turn.dialogue import READBACK_FIELDS, readback
from briefing.turn.field_states import (
    LEFT,
    MAX_READBACKS,
    TO_CHECK,
    asks,
    exhausted,
    left_fields,
    readbacks,
    state_of,
    with_asked,
    with_readback,
    with_state,
)
from briefing.turn.outcome import turn_commit
from briefing.turn.reading import (
    asked_fields,
    last_question,
    reading_apply,
    reading_meta,
    turn_read,
)
from briefing.turn.routing import (
    code_call_options,
    cost_budget_exceeded,
    level1_for_turn,
    replay_route,
    stage_call_options,
    turn_route_decide,
)
from briefing.turn.tool_use import memory_prefill, turn_tools_run
from briefing.turn.work import Reply, TurnWork
from core.log_context import log_context_bind
from llmkit.guard import guard_check, guard_reply
from llmkit.language import detect_language
from llmkit.structured import StructuredResult
from webhooks.events import brief_completed_emit

Kind = BriefingEvent.Kind
logger = logging.getLogger(__name__)

# Level 1's attacks get level 0's refusal (the turn's meta "guard" names the canned reply).
GUARD_LEVEL1_KIND = "prompt_extraction"

# The turn `meta` key of a request for a person or a complaint (its intent), on both turns.
ATTENTION = "attention"

# The turn `meta` key of a client's message after completion (appended to the brief).
ADDITIONAL_REQUEST = "additional_request"

ADDITIONAL_REQUEST_EVENT_CHARS = 500


def project_turns_drain(*, project_id: int, time_left_s: float | None = None) -> float | None:
    """Process the project's waiting client turns in order. Returns None when done, or how
    long to wait before draining again (another worker's live claim; 0.0 when the caller's
    `time_left_s` cannot hold one more turn's lease: a turn cut off by a task time limit
    would count as a lost claim)."""
    started = time.monotonic()
    while True:
        if (
            time_left_s is not None
            and time.monotonic() - started + settings.BRIEFING_TURN_LEASE_S > time_left_s
        ):
            return 0.0
        claimed = turn_claim_next(project_id=project_id, now=timezone.now())
        if claimed is None:
            return None
        if isinstance(claimed, float):
            if claimed > 0:
                return claimed
            continue
        log_context_bind(briefing_id=project_id, turn_id=claimed.turn.pk)
        try:
            more = turn_process(claimed.turn, earlier=claimed.earlier)
        except SoftTimeLimitExceeded:
            raise
        except Exception as error:  # one turn's failure must not hold up the briefing
            logger.exception("briefing %s: turn %s failed", project_id, claimed.turn.pk)
            turn_claim_fail(claimed.turn, error)
            continue
        if not more:
            return None


# --- the turn --------------------------------------------------------------------------------


def turn_process(turn: Turn, *, earlier: list[Turn] | None = None) -> bool:
    """Process one claimed client turn (`earlier`: the turns before it, where the claim read
    them). Returns whether a later turn may be waiting: False when the turn was the
    briefing's last as it was written (a message stored after that queues its own
    processing)."""
    work = TurnWork.begin(turn=turn, earlier=earlier)
    _decide(work)
    _cost_flag(work)
    return turn_commit(work)


def _decide(work: TurnWork) -> None:
    project, turn = work.project, work.turn
    if project.taken_over_by_id or project.status == Project.Status.PAUSED:
        work.turn_status = Turn.Status.WAITING_PRODUCER
        reason = "taken_over" if project.taken_over_by_id else "paused"
        work.event(Kind.TURN_WAITING, reason=reason)
        return
    language = detect_language(turn.text, default=project.language)
    if language != project.language:
        work.event(Kind.LANGUAGE_DETECTED, old=project.language, new=language)
        project.language = language
    verdict = guard_check(turn.text)
    if verdict is not None:
        # Both sides of the exchange are marked: later stage prompts leave them out, and the
        # rules agent still reads the next message as the answer to its own last question.
        turn.meta = {**turn.meta, "guard": verdict.kind}
        work.replies.append(
            Reply(guard_reply(verdict.kind, language), turn.stage_key, meta={"guard": verdict.kind})
        )
        work.event(Kind.GUARD_ANSWERED, guard=verdict.kind, matched=verdict.matched)
        _facts_of_refused(work, verdict.kind)
        return
    # Before the additional request: an attack is not appended to a completed brief.
    if _level1_answered(work, language):
        return
    if project.status == Project.Status.COMPLETED and _agrees(turn.text):
        # "Confirmed." after the summary a closing client got: it confirms that summary
        # (the locks follow), and asks the producer nothing; so does a "thank you".
        if not is_greeting(turn.text):
            _locks_confirm(work, reason="confirmed")
        work.replies.append(Reply(code_text("completed_thanks", language), ""))
        return
    if project.status == Project.Status.COMPLETED and ADDITIONAL_REQUEST not in turn.meta:
        _additional_request(work)
    if project.status == Project.Status.COMPLETED:
        work.replies.append(Reply(code_text("already_completed", language), ""))
        return
    was_in = work.current()
    _prefill(work)
    stage = work.current()
    if was_in is not None and stage is not was_in:
        # the message completed the stage the client was in: the ones after it it had
        # already completed are passed over, as `_advance` passes them
        for passed in work.stages[work.stages.index(was_in) + 1 :]:
            if passed is stage:
                break
            _skipped_mark(work, passed)
    if stage is None:
        _complete(work)
        return
    if _client_finishing(work, stage):
        stage = _skip_to_readback(work, stage)
        work.client_closed = is_closing(work.turn.text)
    opening = stage.status == StageRun.Status.PENDING
    if opening:
        # The stage before was closed by the pre-parse with this very message: the next
        # stage's agent opens with its first question.
        _start(work, stage)
    turn.stage_key = stage.key
    work.meter = turn_route_decide(
        project=project, turn=turn, stage=stage, budget_s=work.budget_left()
    )
    _run_stages(work, stage, opening=opening)


def _agrees(text: str) -> bool:
    return is_confirmation(text) or is_closing(text) or is_greeting(text)


def _level1_answered(work: TurnWork, language: str) -> bool:
    """Level 1 (the shipped classifier) on a message level 0 let through, its verdict kept
    in the turn's meta for the router. An attack gets level 0's canned answer; a request
    for a person or a complaint flags the briefing for its producer (the turn waits for
    the producer, as the dashboard's attention filter reads it) after the message's facts
    are read, and the client is told a person will answer. True when the turn is answered."""
    turn = work.turn
    # The shipped classifier, or with pools the cheapest model first (briefing.turn.routing).
    verdict = level1_for_turn(project=work.project, turn=turn, budget_s=work.budget_left())
    if verdict.is_attack:
        turn.meta = {**turn.meta, "guard": GUARD_LEVEL1_KIND}
        reply = guard_reply(GUARD_LEVEL1_KIND, language)
        work.replies.append(Reply(reply, turn.stage_key, meta={"guard": GUARD_LEVEL1_KIND}))
        work.event(
            Kind.GUARD_ANSWERED, guard=GUARD_LEVEL1_KIND, level=1, risk=verdict.risk,
            score=verdict.scores.get("attack"),
        )  # fmt: skip
        _facts_of_refused(work, GUARD_LEVEL1_KIND)
        return True
    # A turn flagged once and handed back by the producer (takeover released) goes on.
    if not verdict.needs_human or ATTENTION in turn.meta:
        return False
    if work.project.status != Project.Status.COMPLETED:
        _prefill(work)
    elif ADDITIONAL_REQUEST not in turn.meta:
        _additional_request(work)
    turn.meta = {**turn.meta, ATTENTION: verdict.intent}
    work.turn_status = Turn.Status.WAITING_PRODUCER
    work.event(Kind.ATTENTION_REQUESTED, turn.stage_key, reason=verdict.intent)
    # The agent's last question stays the open one: the client's next message answers it.
    last = last_question(work.earlier())
    asked = last.meta if last is not None else {}
    meta = {k: asked[k] for k in ("asked_field", "asked_fields") if k in asked}
    meta[ATTENTION] = verdict.intent
    work.replies.append(Reply(code_text("person_will_answer", language), turn.stage_key, meta=meta))
    return True


def _client_finishing(work: TurnWork, stage: StageRun) -> bool:
    """The client answers a question about a field with a closing ("Всё верно",
    "подтверждаю, больше нечего добавить"): they believe the brief is done, so
    the read-back comes now (a producer would sum up, not ask on). Only for a question about
    a required field of a stage before the last, which has the read-back."""
    reading, last = work.reading, work.stages[-1]
    if reading is None or not reading.confirms or reading.findings:
        return False
    if not is_closing(work.turn.text):
        return False  # "ок", "👍", "да": go on, not "that is all" ("всё верно", "больше ничего")
    if stage is last or work.spec(last).required:
        return False
    if stage.status != StageRun.Status.OPEN:
        return False
    asked = _asked_last(work, stage)
    return bool(asked & set(work.spec(stage).required))


def _skip_to_readback(work: TurnWork, stage: StageRun) -> StageRun:
    """Leave every required field still missing before the last stage for the producer, close
    those stages, and open the last one: its agent reads the brief back in this turn."""
    last = work.stages[-1]
    for other in work.stages[work.stages.index(stage) : -1]:
        if other.status == StageRun.Status.CLOSED:
            continue
        spec = work.spec(other)
        for name in spec.missing(other.fields, left=left_fields(other.dialogue)):
            other.dialogue = with_state(other.dialogue, name, LEFT, work.turn.text)
            work.event(Kind.FIELD_LEFT_FOR_PRODUCER, other.key, field=name,
                       reason="client_finished", asked=asks(other.dialogue, name))  # fmt: skip
        _close(work, other, by=StageRun.ClosedBy.AGENT)
    if last.status == StageRun.Status.CLOSED:
        return last
    last.status = StageRun.Status.PENDING
    return last


def _asked_last(work: TurnWork, stage: StageRun) -> set[str]:
    """The fields the agent's last question asked for, when it was asked in `stage`."""
    last = last_question(work.earlier())
    if last is None or last.stage_key != stage.key:
        return set()
    return set(asked_fields([last]))


def _start(work: TurnWork, stage: StageRun) -> None:
    for other in work.stages:
        if other.status == StageRun.Status.OPEN and other is not stage:
            other.status = StageRun.Status.PENDING
    stage.status = StageRun.Status.OPEN
    work.event(Kind.STAGE_STARTED, stage.key)


# What a message the guard refused may still give the briefing: values the deterministic
# reader extracts (it follows no instruction), never free text or a stage's answer. Names
# are such values: a false alarm on a client's long first message ("Imogen Ferrier here,
# head of brand at Derwent Heads … a gin called Pepperberry Navy …") must not cost them, and
# no text reaches a name through a refused message that an ordinary one could not bring.
REFUSED_FACTS = frozenset(
    {"clientName", "company", "productName", "contact", "budget", "currency", "deadline"}
)


def _facts_of_refused(work: TurnWork, guard: str) -> None:
    """ "Ignore the old logo, we rebranded: budget 500 000, deadline 1 March" refused as an
    attack still gives its budget and deadline (and any name it states): a false alarm costs
    the client nothing, and each value taken is recorded with the guard's flag, so the
    producer sees what it was.
    Not on a completed briefing (an attack is no additional request)."""
    if work.project.status == Project.Status.COMPLETED:
        return
    _prefill(work, only=REFUSED_FACTS, flagged=guard)


def _prefill(work: TurnWork, *, only: frozenset[str] | None = None, flagged: str = "") -> None:
    """Read the client's message for every stage's fields (briefing.turn.reading): what it states
    fills any stage, a correction replaces, a change to a locked value is proposed. `only`
    and `flagged`: the facts of a message the guard refused, its events marked with the
    guard's verdict."""
    event = (
        work.event if not flagged else (lambda *a, **data: work.event(*a, guard=flagged, **data))
    )
    reading = turn_read(
        turn=work.turn, earlier=work.earlier(), language=work.project.language,
        stages=work.stages, spec_of=work.spec,
    )  # fmt: skip
    work.reading = reading
    work.turn.meta = {**work.turn.meta, "reading": reading_meta(reading)}
    reading_apply(
        reading=reading, stages=work.stages, spec_of=work.spec, locks=work.lock_values(),
        event=event, close=lambda stage: _close(work, stage, by=StageRun.ClosedBy.PREFILL),
        lock_refine=lambda key, old, new: work.refined_locks.__setitem__(key, (old, new)),
        language=work.project.language, only=only,
    )  # fmt: skip


def _close(work: TurnWork, stage: StageRun, *, by: str) -> None:
    spec = work.spec(stage)
    stage.status, stage.closed_by, stage.closed_at = StageRun.Status.CLOSED, by, timezone.now()
    stage.summary = spec.summary(stage.fields, work.project.language)
    work.event(Kind.STAGE_CLOSED, stage.key, by=by)


@dataclass(frozen=True)
class _StageHistory:
    turns: list[tuple[str, str]]  # (role, text), oldest first, this client message last
    asked_field: str | None  # the field the agent asked about last
    omitted: int  # earlier turns of the stage left out of `turns`
    asked_fields: tuple[str, ...] = ()  # every field that last question asked


def _stage_history(work: TurnWork, stage: StageRun) -> _StageHistory:
    """The last turns of THIS stage (this client message included), the field the agent
    asked about last, and how many earlier turns were cut (from the turn's one read)."""
    earlier = [
        t for t in work.earlier()
        if t.stage_key == stage.key and t.role != Turn.Role.SYSTEM and "guard" not in t.meta
    ]  # fmt: skip
    shown = max(settings.BRIEFING_CONTEXT_TURNS - 1, 1)
    recent = earlier[-shown:]
    last_agent = next((t for t in reversed(recent) if t.role == Turn.Role.AGENT), None)
    asked = last_agent.meta.get("asked_field") if last_agent else None
    turns = [(t.role, t.text) for t in recent] if settings.BRIEFING_CONTEXT_TURNS >= 2 else []
    omitted = len(earlier) - len(turns)
    if work.turn.stage_key == stage.key:
        turns.append(("client", work.turn.text))
    asked_together = asked_fields([last_agent]) if last_agent else ()
    return _StageHistory(turns, asked, omitted, asked_together)


def _run_stages(
    work: TurnWork,
    stage: StageRun,
    *,
    opening: bool,
    holding_reply: bool = True,
    by_code: bool = False,
) -> tuple[StructuredResult | None, Any]:
    """Run the stage's agent and, while its gate closes, open the next stage and run its agent
    for the opening question in this same turn. Each run either holds its stage's gate (the
    loop ends) or closes the stage for the rest of the turn: the number of stages bounds the
    runs. Returns the first run's result and call record (`holding_reply` is for it alone;
    `by_code`: the first run is an opening written by code too)."""
    fresh_tools = work.tools is None and not by_code  # the first run calls the tools
    before = len(work.replies)
    first = None
    for _ in range(len(work.stages)):
        result, record, closed = _run_stage(
            work, stage, opening=opening, holding_reply=holding_reply, by_code=by_code
        )
        if first is None:
            first = (result, record)
        following = _advance(work, after=stage, call=record) if closed else None
        if following is None:
            break
        # The next stage's opening question is written by code (its dialogue asks what is
        # missing), never a model call of its own: it does not eat the turn's cap.
        stage, opening, holding_reply, by_code = following, True, True, True
    else:
        raise RuntimeError(f"turn {work.turn.pk}: stages still opening after {len(work.stages)}")
    result, record = first
    if (
        fresh_tools
        and result is not None
        and result.ok
        and result.provider == "rules"
        and len(work.replies) > before
    ):
        # The rules agent answers the client's question from the tool results, by code,
        # before its next question (a stage that closed on this turn keeps the answer too).
        answer = work.tools.answer()
        if answer:
            reply = work.replies[before]
            reply.text = f"{answer} {reply.text}".strip()
    return result, record


def _run_stage(
    work: TurnWork, stage: StageRun, *, opening: bool, holding_reply: bool, by_code: bool = False
) -> tuple[StructuredResult | None, Any, bool]:
    """One run of the stage's agent: (its result, its call record, whether the stage's gate
    closed on the answer). `by_code`: the rules agent answers (a next stage's opening
    question), with no model call, no tools and nothing counted against the turn's cap."""
    if work.tools is None:  # once per turn, before its first stage call
        memory_prefill(stages=work.stages, event=work.event, reads=work.snapshots)
    spec = work.spec(stage)
    history = _StageHistory([], None, 0) if opening else _stage_history(work, stage)
    call = StageCall(
        spec=spec,
        known=dict(stage.fields),
        locks=work.pinned_values(),
        summaries=[s.summary for s in work.stages if s.status == StageRun.Status.CLOSED],
        turns=history.turns,
        language=work.project.language,
        opening=opening,
        asked_field=history.asked_field,
        asked_fields=history.asked_fields,
        dialogue=stage.dialogue,
        dialogues={s.key: s.dialogue for s in work.stages},
        client_texts=work.client_texts,
        omitted_turns=history.omitted,
        reading=None if opening else work.reading,
        profile={s.key: dict(s.fields) for s in work.stages},
        closed_stages=tuple(s.key for s in work.stages if s.status == StageRun.Status.CLOSED),
        snapshots=work.snapshots,
    )
    if by_code:
        options = code_call_options(project_id=work.project.pk)
    elif work.meter is not None and not work.meter.allows():
        _capped(work, stage)
        return None, None, False
    else:
        options = stage_call_options(work.meter, project_id=work.project.pk)
    if work.tools is None and not by_code:
        work.tools = turn_tools_run(
            call=call, turn=work.turn, meter=work.meter, options=options,
            budget_left=work.budget_left, earlier=work.earlier,
            messages=lambda tools: stage_messages(dataclasses.replace(call, tools=tools)),
        )  # fmt: skip
        for outcome in work.tools.outcomes:
            work.event(Kind.TOOL_CALLED, stage.key, **outcome.as_event())
        if work.tools.outcomes:
            work.turn.meta = {**work.turn.meta, "tools": work.tools.as_meta()}
    call = dataclasses.replace(call, tools=None if by_code else work.tools)
    first_answer = None  # the tool step's answer in text, when there is one
    if work.tools is not None and not by_code:
        first_answer, work.tools.text_answer = work.tools.text_answer, None
    result, record = stage_agent_run(
        call, source_id=str(work.turn.pk), raw_input=work.turn.text, budget_s=work.budget_left(),
        first_answer=first_answer, **options,
    )  # fmt: skip
    if work.meter is not None and not by_code:
        work.meter.record(result)
        work.turn.meta = {**work.turn.meta, "route": work.meter.as_meta()}
    violations = [
        e for a in result.attempts if a.outcome for e in a.outcome.errors
        if e.kind == "locked_entity"
    ]  # fmt: skip
    for error in violations:
        work.event(Kind.LOCK_VIOLATION_BLOCKED, stage.key, field=error.path, proposed=error.input)
    if result.retry_used:
        work.event(Kind.RETRY_USED, stage.key, call=record.pk)
    provider = options.get("provider")
    first = getattr(provider, "providers", [provider])[0].name if provider else _first_provider()
    if len(set(result.providers)) > 1 or (result.provider and result.provider != first):
        work.event(Kind.PROVIDER_FAILOVER, stage.key, served_by=result.provider)
    if not result.ok:
        work.event(Kind.DEAD_LETTERED, stage.key, call=record.pk, signature=result.error_signature)
        if holding_reply:
            work.event(Kind.HOLDING_REPLY_SENT, stage.key)
            reply = Reply(code_text("holding", work.project.language), stage.key, record)
            work.replies.append(reply)
        work.turn_status = Turn.Status.FAILED
        return result, record, False

    data = result.final.outcome.data if result.final.outcome else {}
    closed = _accept(
        work, stage, result.value, data if isinstance(data, dict) else {}, record=record,
        provider=result.provider, layer=result.layer, retry=result.retry_used,
    )  # fmt: skip
    return result, record, closed


def _capped(work: TurnWork, stage: StageRun) -> None:
    """The turn reached its route's cap on model calls or output tokens: no further call, the
    client gets the holding reply (the stage stays as it is, its gate closed), and the turn
    ends instead of looping."""
    meter = work.meter
    work.turn.meta = {**work.turn.meta, "route": meter.as_meta()}
    work.event(Kind.TURN_CAPPED, stage.key, cap=meter.capped, calls=meter.calls,
               output_tokens=meter.output_tokens, pool=meter.route.pool)  # fmt: skip
    work.event(Kind.HOLDING_REPLY_SENT, stage.key)
    work.replies.append(Reply(code_text("holding", work.project.language), stage.key))


def _cost_flag(work: TurnWork) -> None:
    """Flag the briefing to its producer once its model calls cost more than the budget."""
    spent = cost_budget_exceeded(project=work.project)
    if spent is not None:
        budget = str(settings.BRIEFING_COST_BUDGET)
        work.event(Kind.COST_BUDGET_EXCEEDED, cost=str(spent), budget=budget)


def _accept(
    work: TurnWork,
    stage: StageRun,
    answer: Any,
    data: dict[str, Any],
    *,
    record: Any,
    provider: str,
    layer: str | None,
    retry: bool,
) -> bool:
    """A valid stage answer (the model's, or a manager's fix of a dead letter): merge its
    fields under the locks and producer values, then the gate. True when the gate closed
    the stage (the caller opens the next one); else the reply asks on."""
    spec = work.spec(stage)
    locked = work.pinned_values()
    _block_foreign_renames(work, stage, data, locked)
    for name in spec.fields:
        value = getattr(answer, name, None)
        if is_empty(value) or name in stage.producer_fields or not_a_value(name, value):
            continue
        lock_key = spec.locks.get(name)
        if lock_key and lock_key in locked:
            value = locked[lock_key]
        stage.fields = {**stage.fields, name: value}
    _dialogue_settle(work, stage, data)
    flag = bool(getattr(answer, spec.status_field, False))
    missing = spec.missing(stage.fields, left=left_fields(stage.dialogue))
    work.event(
        Kind.AGENT_REPLIED, stage.key, call=record.pk if record else None, provider=provider,
        layer=layer, retry=retry,
    )  # fmt: skip
    read_back = _readback_due(work, stage)
    if flag and not missing and not read_back:
        _close(work, stage, by=StageRun.ClosedBy.AGENT)
        return True
    if read_back and work.client_closed:
        # The client said they are done before any read-back: they get the summary, and the
        # brief completes now (a later message is an additional request for the producer).
        summary = _readback_text(work, ask=False)
        stage.dialogue = with_readback(stage.dialogue)
        work.event(Kind.READ_BACK, stage.key, given=readbacks(stage.dialogue), closing=True)
        work.replies.append(Reply(summary, stage.key, record))
        _close(work, stage, by=StageRun.ClosedBy.AGENT)
        return True
    work.event(Kind.GATE_HELD, stage.key, missing=missing, flag=flag)
    message = answer.message.strip() or _fallback_question(spec, missing, work.project.language)
    asked = data.get("askedField") or (missing[0] if missing else None)
    if read_back:
        # Written by code from the stored fields and their states, whatever the agent wrote.
        message = _readback_text(work, again=readbacks(stage.dialogue) > 0)
        stage.dialogue = with_readback(stage.dialogue)
        asked = spec.fields[0]
        work.event(Kind.READ_BACK, stage.key, given=readbacks(stage.dialogue))
    meta = {"asked_field": asked}
    asked_together = [asked] if asked else []
    if isinstance(data.get("askedFields"), list):  # two related fields asked together
        asked_together = [f for f in data["askedFields"] if isinstance(f, str)]
        meta["asked_fields"] = asked_together
    stage.dialogue = with_asked(stage.dialogue, [f for f in asked_together if f in spec.fields])
    work.replies.append(Reply(message, stage.key, record, meta))
    return False


def _readback_text(work: TurnWork, **options: bool) -> str:
    """The read-back of every stage's fields and states (briefing.turn.dialogue.readback)."""
    return readback({s.key: s.fields for s in work.stages}, work.project.language,
                    {s.key: s.dialogue for s in work.stages}, **options)  # fmt: skip


def _is_readback_stage(work: TurnWork, stage: StageRun) -> bool:
    """The last stage, with no required field: it opens with the read-back."""
    return stage is work.stages[-1] and not work.spec(stage).required


def _readback_due(work: TurnWork, stage: StageRun) -> bool:
    """Whether this answer of the read-back stage is replaced by the read-back: the stage has
    not read the brief back yet, or the client's reply to it corrected something (read back
    once more, MAX_READBACKS in all). Every agent, model or rules, passes through it."""
    if not _is_readback_stage(work, stage):
        return False
    given = readbacks(stage.dialogue)
    if given == 0:
        return True
    corrected = work.reading is not None and work.reading.corrects
    return (
        (corrected or _readback_changed(work))
        and given < MAX_READBACKS
        and work.turn.stage_key == stage.key
    )


def _readback_changed(work: TurnWork) -> bool:
    """Whether this reply to the read-back filled or changed something the read-back shows
    (a name, the contact, the product, the budget, the deadline) or named as missing: the
    client added to it ("Email is priya@…"), so it is read back once more, never taken as a
    yes."""
    missing = {name for stage in work.stages for name in left_fields(stage.dialogue)}
    return any(
        kind in (Kind.PREFILL_FILLED, Kind.FIELD_CORRECTED_BY_CLIENT)
        and (data.get("field") in READBACK_FIELDS or data.get("field") in missing)
        for kind, _, data in work.events
    )


def _dialogue_settle(work: TurnWork, stage: StageRun, data: dict[str, Any]) -> None:
    """The field states this answer settles (briefing.turn.field_states), whichever agent gave it:
    a reply the rules agent took as the answer to a question asked twice is "to check"; a
    field the client declined, or asked MAX_ASKS times and still empty, is left for the
    producer, and the gate stops waiting for it."""
    spec, dialogue = work.spec(stage), stage.dialogue
    evidence = work.turn.text if work.turn.stage_key == stage.key else ""
    for name in _names(data.get("toCheckFields")):
        if name in spec.fields and not is_empty(stage.fields.get(name)):
            dialogue = with_state(dialogue, name, TO_CHECK, evidence)
            work.event(Kind.FIELD_TO_CHECK, stage.key, field=name, value=stage.fields[name],
                       evidence=evidence[:300])  # fmt: skip
    declined = set(_names(data.get("declinedFields")))
    for name in spec.required:
        if not is_empty(stage.fields.get(name)) or state_of(dialogue, name) == LEFT:
            continue
        # Asked MAX_ASKS times, and this reply (or an earlier one) did not answer it.
        if name in declined or exhausted(dialogue, name):
            dialogue = with_state(dialogue, name, LEFT, evidence)
            reason = "declined" if name in declined else "asked_twice"
            work.event(Kind.FIELD_LEFT_FOR_PRODUCER, stage.key, field=name, reason=reason,
                       asked=asks(dialogue, name))  # fmt: skip
    stage.dialogue = dialogue


def _names(value: Any) -> list[str]:
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def turn_answer_apply(*, turn: Turn, answer: Any, data: dict[str, Any], call: Any) -> None:
    """Answer a failed turn with a fixed stage answer (a manager's fix of its dead letter),
    as if the model had given it: the gate, the next stage, one reply. When the fix closes
    the stage, the manager's message still reaches the client, before the next stage's
    question (written by code)."""
    work = late_answer_claim(turn)
    stage = next(s for s in work.stages if s.key == turn.stage_key)
    if _accept(
        work, stage, answer, data, record=call, provider="manager fix", layer=None, retry=False
    ):
        before = len(work.replies)
        following = _advance(work, after=stage, call=call)
        if following is not None:
            _run_stages(work, following, opening=True, by_code=True)
        message = (getattr(answer, "message", "") or "").strip()
        if message and len(work.replies) > before:
            work.replies[before].text = f"{message} {work.replies[before].text}"
        elif message:
            work.replies.append(Reply(message, stage.key, call))
    turn_commit(work)


def turn_replay(*, turn: Turn, settle: Callable[[Any, bool], None]) -> None:
    """Run a failed turn's stage agent again with today's prompts and providers, through the
    pool its route picks (briefing.turn.routing.replay_route). A parsed answer goes through the
    gate as usual; a failure is recorded (a new dead letter) and the turn stays failed, with
    no second holding reply. `settle(call, ok)` runs in the turn's final transaction."""
    work = late_answer_claim(turn)
    stage = next(s for s in work.stages if s.key == turn.stage_key)
    work.meter = replay_route(turn=work.turn, stage=stage)
    opening = not any(
        t.role == Turn.Role.AGENT and t.stage_key == stage.key for t in work.earlier()
    )
    result, record = _run_stages(work, stage, opening=opening, holding_reply=False)
    work.also_write.append(lambda: settle(record, result.ok))
    turn_commit(work)


def _block_foreign_renames(
    work: TurnWork, stage: StageRun, data: dict[str, Any], locked: dict[str, str]
) -> None:
    """A model echoing a locked entity under another value in a stage that does not own it
    (a "productName" key in the budget stage) changes nothing; the attempt is recorded."""
    own = set(work.spec(stage).answer_model.model_fields)
    for spec in stages_for(work.project.briefing_type):
        for field_name, lock_key in spec.locks.items():
            proposed = data.get(field_name)
            value = locked.get(lock_key)
            if (
                field_name not in own
                and value
                and isinstance(proposed, str)
                and proposed.strip()
                and proposed.strip().casefold() != value.casefold()
            ):
                work.event(
                    Kind.LOCK_VIOLATION_BLOCKED, stage.key, field=field_name, proposed=proposed
                )


def _fallback_question(spec: StageSpec, missing: list[str], language: str) -> str:
    questions = spec.questions.get(language) or spec.questions["en"]
    return questions[missing[0] if missing else spec.fields[0]]


def _first_provider() -> str:
    from dlq.services import llm_chain

    providers = getattr(llm_chain(), "providers", None)
    return providers[0].name if providers else ""


def _skipped_mark(work: TurnWork, stage: StageRun) -> None:
    """A stage the pre-parse closed before the client reached it is recorded as skipped."""
    if stage.closed_by == StageRun.ClosedBy.PREFILL and not stage.skipped:
        stage.skipped = True
        work.event(Kind.STAGE_SKIPPED, stage.key, by="prefill")


def _advance(work: TurnWork, *, after: StageRun, call: Any) -> StageRun | None:
    """Open the next stage not yet closed (skipping those the pre-parse closed) and return
    it: its agent asks the opening question in this same turn. None when every stage is
    closed: the briefing is completed."""
    passed = False
    for stage in work.stages:
        if stage is after:
            passed = True
            continue
        if not passed:
            continue
        if stage.status == StageRun.Status.CLOSED:
            _skipped_mark(work, stage)
            continue
        _start(work, stage)
        return stage
    # Nothing after this stage is open: an earlier one may still be (after a reopen).
    remaining = work.current()
    if remaining is not None:
        _start(work, remaining)
        return remaining
    _complete(work, call=call)
    return None


def _additional_request(work: TurnWork) -> None:
    """A client's message after completion is a request the brief did not hold: it is
    appended to the brief (and its markdown) as an additional request, and flagged to the
    producer with an event, whatever the message is answered with."""
    project, turn = work.project, work.turn
    turn.meta = {**turn.meta, ADDITIONAL_REQUEST: True}
    _late_contacts(work)
    received = timezone.localtime(turn.created_at or timezone.now())
    request = {"text": turn.text, "receivedAt": received.isoformat(timespec="seconds")}
    completed_at = project.completed_at
    brief_finish(project, work.stages, add_request=request)
    project.completed_at = completed_at
    work.event(Kind.ADDITIONAL_REQUEST, text=turn.text[:ADDITIONAL_REQUEST_EVENT_CHARS])


def _late_contacts(work: TurnWork) -> None:
    """A phone, an address or a handle the client gives after completion ("забыл: мой
    телефон …") joins the contact field (every contact kept), so the brief's contacts hold
    it and not only the additional request's text."""
    given = read_contact(work.turn.text, work.project.language)
    if not given:
        return
    for stage in work.stages:
        if "contact" not in work.spec(stage).fields or "contact" in stage.producer_fields:
            continue
        current = stage.fields.get("contact")
        merged = contacts_merged(current, given, correction=False) if current else given
        if merged != current:
            stage.fields = {**stage.fields, "contact": merged}
            work.event(Kind.PREFILL_FILLED, stage.key, field="contact", value=merged,
                       evidence=work.turn.text[:200], statement="mention")  # fmt: skip
        return


def _complete(work: TurnWork, *, call: Any = None) -> None:
    if _readback_answered(work):
        _locks_confirm(work)
    brief_finish(work.project, work.stages)
    work.event(Kind.BRIEF_COMPLETED)
    work.also_write.append(lambda: brief_completed_emit(work.project))
    work.replies.append(Reply(code_text("completed", work.project.language), "", call))


def _readback_answered(work: TurnWork) -> bool:
    """Whether the client saw a read-back before this message (one given in this turn, to a
    client who closed before it, confirms nothing)."""
    given_now = sum(1 for kind, _, _ in work.events if kind == Kind.READ_BACK)
    return readbacks(work.stages[-1].dialogue) > given_now


def _locks_confirm(work: TurnWork, *, reason: str = "") -> None:
    """Identity is locked once the client answered the read-back: confirmed it, corrected it
    (the correction settles it) or went on without changing it; never on first sight."""
    reading = work.reading
    if not reason and reading is not None and reading.corrects:
        reason = "corrected"
    elif not reason and reading is not None and reading.confirms:
        reason = "confirmed"
    reason = reason or "read_back_answered"
    locked = work.lock_values()
    for stage in work.stages:
        for name, lock_key in work.spec(stage).locks.items():
            value = stage.fields.get(name)
            if lock_key not in locked and isinstance(value, str) and value.strip():
                work.new_locks[lock_key] = value.strip()
                work.event(
                    Kind.LOCK_SET, stage.key, key=lock_key, new=value.strip(), source="client",
                    reason=reason,
                )  # fmt: skip
