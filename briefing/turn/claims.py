"""Claiming a briefing's client turns: one conditional UPDATE with a lease, so a turn is
processed by one worker even when its task runs twice; a failed turn claimed again for a
late answer (a manager's fix or a replay of its dead letter)."""

from __future__ import annotations

import datetime
from typing import NamedTuple

from django.conf import settings
from django.db.models import Q, Subquery
from django.utils import timezone

from briefing.models import Project, StageRun, Turn
from briefing.turn.outcome import turn_dead_letter_lost
from briefing.turn.work import CLAIMS_LOST, PROCESSING_ERROR, TurnWork, briefing_state_read
from core.errors import ApplicationError


class Claim(NamedTuple):
    """A claimed client turn and the briefing's turns before it (oldest first), read together."""

    turn: Turn
    earlier: list[Turn]


def turn_claim_next(*, project_id: int, now: datetime.datetime) -> Claim | float | None:
    """Claim the project's oldest unfinished client turn (turns of one project strictly in
    order). Returns the claim, the seconds until a live claim by another worker expires, or
    None when there is nothing to do. The turn is read with the turns before it (the agent's
    context) in one query; the claim is one conditional UPDATE: a turn is processed by one
    worker even if the task runs twice.

    Taking over an expired claim counts as a lost one (in the turn's `meta`); a turn that
    lost BRIEFING_TURN_MAX_LOST_CLAIMS claims (its worker died each time, perhaps killed by
    the turn itself) is dead-lettered with a holding reply instead, and 0.0 is returned:
    the next turn may go."""
    lease = datetime.timedelta(seconds=settings.BRIEFING_TURN_LEASE_S)
    waiting = (
        Turn.objects.filter(
            project_id=project_id,
            role=Turn.Role.CLIENT,
            status__in=[Turn.Status.RECEIVED, Turn.Status.PROCESSING],
        )
        .order_by("seq")
        .values("seq")[:1]
    )
    turns = list(
        Turn.objects.filter(project_id=project_id, seq__lte=Subquery(waiting)).order_by("seq")
    )
    if not turns:
        return None
    *earlier, oldest = turns
    if oldest.status == Turn.Status.PROCESSING and oldest.claimed_at + lease > now:
        return (oldest.claimed_at + lease - now).total_seconds()
    meta = dict(oldest.meta)
    if oldest.status == Turn.Status.PROCESSING:
        meta[CLAIMS_LOST] = meta.get(CLAIMS_LOST, 0) + 1
    # The claim's conditions pin claimed_at, which every claim changes: the meta read above
    # is still the turn's when the UPDATE wins.
    claimed = Turn.objects.filter(
        Q(claimed_at=oldest.claimed_at) if oldest.claimed_at else Q(claimed_at__isnull=True),
        pk=oldest.pk,
        status=oldest.status,
    ).update(status=Turn.Status.PROCESSING, claimed_at=now, meta=meta)
    if not claimed:
        return 0.0  # another worker won the race: look again
    oldest.status, oldest.claimed_at, oldest.meta = Turn.Status.PROCESSING, now, meta
    if meta.get(CLAIMS_LOST, 0) >= settings.BRIEFING_TURN_MAX_LOST_CLAIMS:
        turn_dead_letter_lost(oldest)
        return 0.0
    return Claim(oldest, earlier)


def turn_claim_fail(turn: Turn, error: Exception) -> None:
    """The claimed turn's processing raised `error` (a bug, or input no code foresaw): its
    claim ends now, as an expired one, with the error in its `meta`. The drain then claims
    it again at once (a lost claim), and after BRIEFING_TURN_MAX_LOST_CLAIMS it becomes a
    dead letter with the holding reply: the briefing's later turns do not wait a lease each
    time behind it."""
    lease = datetime.timedelta(seconds=settings.BRIEFING_TURN_LEASE_S)
    stored = Turn.objects.filter(pk=turn.pk).values_list("meta", flat=True).first() or {}
    meta = {**stored, PROCESSING_ERROR: f"{type(error).__name__}: {error}"[:300]}
    expired = turn.claimed_at - lease - datetime.timedelta(seconds=1)
    Turn.objects.filter(
        pk=turn.pk, status=Turn.Status.PROCESSING, claimed_at=turn.claimed_at
    ).update(claimed_at=expired, meta=meta)


def turns_pending_project_ids() -> list[int]:
    """Projects with a client turn still waiting for a worker."""
    return sorted(
        set(
            Turn.objects.filter(
                role=Turn.Role.CLIENT, status__in=[Turn.Status.RECEIVED, Turn.Status.PROCESSING]
            ).values_list("project_id", flat=True)
        )
    )


def late_answer_claim(turn: Turn) -> TurnWork:
    """Claim a failed turn for a late answer (a manager's fix or a replay of its dead letter)
    and build its work. Claimed like any turn, so a second fix or replay answers nothing.
    Refused when the conversation has moved past the turn's stage or a producer holds it."""
    state = briefing_state_read(turn.project_id)
    project, stages = state.project, state.stages
    stage = next((s for s in stages if s.key == turn.stage_key), None)
    if stage is None or stage.status == StageRun.Status.CLOSED:
        raise ApplicationError("the stage of this turn is closed: the conversation moved on")
    if project.taken_over_by_id or project.status != Project.Status.ACTIVE:
        raise ApplicationError(f"the briefing is {_project_state(project)}: no agent answer now")
    now = timezone.now()
    claimed = Turn.objects.filter(pk=turn.pk, status=Turn.Status.FAILED).update(
        status=Turn.Status.PROCESSING, claimed_at=now
    )
    if not claimed:
        raise ApplicationError("this turn is not waiting for an answer (it was answered already)")
    turn.status, turn.claimed_at = Turn.Status.PROCESSING, now
    return TurnWork.begin(turn=turn, state=state)


def _project_state(project: Project) -> str:
    return "taken over by a producer" if project.taken_over_by_id else project.status
