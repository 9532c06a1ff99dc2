"""The end of a turn: everything it decided written in one transaction, and only while the
turn is still this worker's claim; and the dead letter of a turn whose processing was lost
too often."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from briefing.common.inbox import (
    inbox_columns,
    inbox_dead_letters_refresh,
    inbox_refresh,
    inbox_turn_processed,
    project_lock,
    project_lock_after,
)
from briefing.common.texts import text as code_text
from briefing.models import BriefingEvent, LockedEntity, Project, StageRun, Turn
from briefing.turn.work import (
    CLAIMS_LOST,
    PROCESSING_ERROR,
    STAGE_STATE_FIELDS,
    Reply,
    TurnWork,
    stage_state,
)
from dlq.models import StructuredCall
from llmkit.parse import FieldError, as_target
from studio.memory import memory_key_pair

Kind = BriefingEvent.Kind


class _ClaimLost(Exception):
    """The turn's claim expired and another worker took it: this result is dropped."""


def turn_commit(work: TurnWork) -> bool:
    """Write the turn; whether a later turn may be waiting (see turn_process)."""
    try:
        return _write(work)
    except _ClaimLost:  # the other worker's result stands
        return True


@transaction.atomic
def _write(work: TurnWork) -> bool:
    turn, project = work.turn, work.project
    turn.status, turn.processed_at = work.turn_status, timezone.now()
    # The briefing's row is locked until commit, with the numbers of the turn's replies taken;
    # it comes with its stored inbox facts, which the turn's own changes update below.
    locked = _claim_release_and_lock(work)
    changed = [s for s in work.stages if work.stages_before.get(s.pk) != stage_state(s)]
    if changed:  # one statement however many stages the turn changed
        StageRun.objects.bulk_update(changed, STAGE_STATE_FIELDS)
    for key, (old, value) in work.refined_locks.items():
        LockedEntity.objects.filter(project=project, key=key, value=old).update(value=value)
    # One statement for the turn's new locks; a key locked meanwhile (a producer) keeps its value.
    LockedEntity.objects.bulk_create(
        (LockedEntity(project=project, key=key, value=value, source=LockedEntity.Source.CLIENT)
         for key, value in work.new_locks.items()),
        ignore_conflicts=True,
    )  # fmt: skip
    events = BriefingEvent.objects.bulk_create(
        BriefingEvent(project=project, turn=turn, kind=kind, stage_key=stage_key, data=data)
        for kind, stage_key, data in work.events
    )
    Turn.objects.bulk_create(
        Turn(
            project=project,
            seq=locked.top_seq + 1 + offset,
            role=Turn.Role.AGENT,
            text=reply.text,
            stage_key=reply.stage_key,
            reply_to=turn,
            call=reply.call,
            meta=reply.meta,
        )
        for offset, reply in enumerate(work.replies)
    )
    for write in work.also_write:
        write()
    now = timezone.now()
    facts = inbox_turn_processed(locked=locked, project=project, turn=turn, events=events, now=now)
    kinds = Counter(kind for kind, _, _ in work.events)
    profile = {s.key: s.fields for s in work.stages}
    memory_contact_key, memory_company_key = memory_key_pair(profile)
    Project.objects.filter(pk=project.pk).update(
        language=project.language, status=project.status, brief=project.brief,
        summary_markdown=project.summary_markdown, completed_at=project.completed_at,
        profile=profile, memory_contact_key=memory_contact_key,
        memory_company_key=memory_company_key, updated_at=now,
        lock_violations=F("lock_violations") + kinds[Kind.LOCK_VIOLATION_BLOCKED],
        holding_replies=F("holding_replies") + kinds[Kind.HOLDING_REPLY_SENT],
        **(inbox_columns(facts) if facts else {}),
    )  # fmt: skip
    if facts is None:
        inbox_refresh(project_id=project.pk)
    if any(_dead_lettered(reply.call) for reply in work.replies):
        inbox_dead_letters_refresh(project_id=project.pk)
    return locked.top_seq > turn.seq


# The claim checked and released with the turn's outcome (which also locks the turn's row).
_RELEASE_SQL = (
    f"UPDATE {Turn._meta.db_table} SET status = %s, stage_key = %s, meta = %s, "  # noqa: S608
    "processed_at = %s WHERE id = %s AND status = %s AND claimed_at = %s RETURNING id"
)


def _claim_release_and_lock(work: TurnWork) -> Project:
    """Release the turn's claim with its outcome, only while the claim is still this worker's
    (else _ClaimLost), and lock the briefing's row (`project_lock`): one statement on
    PostgreSQL, two elsewhere."""
    turn, numbers = work.turn, len(work.replies)
    if connection.vendor == "postgresql":
        meta = Turn._meta.get_field("meta").get_db_prep_save(turn.meta, connection)
        params = [turn.status, turn.stage_key, meta, turn.processed_at, turn.pk,
                  Turn.Status.PROCESSING, turn.claimed_at]  # fmt: skip
        locked = project_lock_after(
            _RELEASE_SQL, params, project_id=work.project.pk, numbers=numbers
        )
        if locked is None:
            raise _ClaimLost
        return locked
    released = Turn.objects.filter(
        pk=turn.pk, status=Turn.Status.PROCESSING, claimed_at=turn.claimed_at
    ).update(
        status=turn.status, stage_key=turn.stage_key, meta=turn.meta,
        processed_at=turn.processed_at,
    )  # fmt: skip
    if not released:
        raise _ClaimLost
    return project_lock(work.project.pk, numbers=numbers)


def _dead_lettered(call: Any) -> bool:
    """A reply's call that failed has an open dead letter, shown on the dashboard's row."""
    return call is not None and call.outcome == StructuredCall.Outcome.FAILED


def turn_dead_letter_lost(turn: Turn) -> None:
    """A turn whose processing was lost too often (claimed by `turn_claim_next`): no model is
    called again; it becomes a dead letter of its stage, and the client gets the holding
    reply, as for an answer that failed after its retry. A manager fixes or replays it."""
    work = TurnWork.begin(turn=turn)
    project = work.project
    stage = next((s for s in work.stages if s.key == turn.stage_key), None) or work.current()
    stage_key = stage.key if stage else turn.stage_key
    turn.stage_key = stage_key
    lost, raised = turn.meta.get(CLAIMS_LOST, 0), turn.meta.get(PROCESSING_ERROR)
    error = (
        FieldError(
            "$", "processing_failed",
            f"the turn's processing failed {lost} times, the last with {raised}; it was not "
            "tried again",
        )
        if raised
        else FieldError(
            "$", "processing_lost",
            f"the turn's processing was lost {lost} times (its worker died or hung past the "
            f"{settings.BRIEFING_TURN_LEASE_S}-second lease); it was not tried again",
        )
    )  # fmt: skip
    schema_name = as_target(work.spec(stage).answer_model).name if stage else "turn"

    def letter() -> None:
        from dlq.services import dead_letter_create

        dead_letter_create(
            source_kind="briefing_turn", source_id=str(turn.pk), schema_name=schema_name,
            raw_input=turn.text, errors=[error],
        )  # fmt: skip

    work.also_write.append(letter)
    work.event(Kind.DEAD_LETTERED, stage_key, signature=error.signature, claims_lost=lost)
    work.event(Kind.HOLDING_REPLY_SENT, stage_key)
    work.replies.append(Reply(code_text("holding", project.language), stage_key))
    work.turn_status = Turn.Status.FAILED
    turn_commit(work)
