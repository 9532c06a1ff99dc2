"""Reads of the briefing app: what the producer's pages and the status lines show, and the
state of one briefing."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal
from statistics import median
from typing import Any

from django.conf import settings
from django.db.models import (
    Case,
    CharField,
    Count,
    Exists,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.utils import timezone

from briefing.common.inbox import InboxFacts, inbox_facts
from briefing.common.status import PENDING_TURN, WaitingFor
from briefing.models import (
    BriefingEvent,
    BriefingNote,
    CannedReply,
    LockedEntity,
    Project,
    StageRun,
    Turn,
)
from dlq.ledger import ledger_turn_costs
from dlq.models import DeadLetter
from dlq.selectors import share_or_none

Kind = BriefingEvent.Kind


def project_report(project: Project) -> dict[str, Any]:
    """The whole state of one briefing as plain JSON (the simulator's --json output)."""
    project.refresh_from_db()
    return {
        "project": project.pk,
        "status": project.status,
        "language": project.language,
        "stages": [
            {"key": s.key, "status": s.status, "closed_by": s.closed_by, "fields": s.fields}
            for s in project.stages.order_by("order")
        ],
        "locks": {lock.key: lock.value for lock in project.locks.all()},
        "brief": project.brief,
        "summary_markdown": project.summary_markdown,
        "transcript": [
            {"role": t.role, "text": t.text}
            for t in project.turns.exclude(role=Turn.Role.SYSTEM).order_by("seq")
        ],
        "events": list(project.events.order_by("id").values_list("kind", flat=True)),
    }


def stage_closed_by(project: Project) -> dict[str, str]:
    return {s.key: s.closed_by for s in project.stages.filter(status=StageRun.Status.CLOSED)}


def with_waiting_for(projects: QuerySet[Project]) -> QuerySet[Project]:
    """Annotate `waiting_for_live` (one of WaitingFor) in SQL (the inbox stores its own, see
    briefing.common.inbox): completed → nobody; taken over, paused, a
    client turn waiting for the producer, or a failed turn the producer has not answered →
    the producer; a client turn received or processing → the agent; else the client."""
    client_turns = Turn.objects.filter(project=OuterRef("pk"), role=Turn.Role.CLIENT)
    last_client = client_turns.order_by("-seq")
    last_producer = Turn.objects.filter(project=OuterRef("pk"), role=Turn.Role.PRODUCER)
    projects = projects.annotate(
        last_client_status=Subquery(last_client.values("status")[:1]),
        last_client_seq=Subquery(last_client.values("seq")[:1]),
        last_producer_seq=Subquery(last_producer.order_by("-seq").values("seq")[:1]),
    )
    unanswered_failure = Q(last_client_status=Turn.Status.FAILED) & (
        Q(last_producer_seq__isnull=True) | Q(last_producer_seq__lt=F("last_client_seq"))
    )
    return projects.annotate(
        waiting_for_live=Case(
            When(status=Project.Status.COMPLETED, then=Value(WaitingFor.NOBODY)),
            When(
                Q(taken_over_by__isnull=False)
                | Q(status=Project.Status.PAUSED)
                | Q(last_client_status=Turn.Status.WAITING_PRODUCER)
                | unanswered_failure,
                then=Value(WaitingFor.PRODUCER),
            ),
            When(last_client_status__in=PENDING_TURN, then=Value(WaitingFor.AGENT)),
            default=Value(WaitingFor.CLIENT),
            output_field=CharField(),
        )
    )


def waiting_for(project: Project) -> str:
    """Who one briefing waits for (the same SQL rule as the dashboard's)."""
    return (
        with_waiting_for(Project.objects.filter(pk=project.pk))
        .values_list("waiting_for_live", flat=True)
        .get()
    )


def lock_proposals_pending(project: Project) -> list[BriefingEvent]:
    """The client's proposed changes of locked values that no producer decided yet."""
    decided = {
        event.data.get("proposal")
        for event in project.events.filter(
            kind__in=[Kind.LOCK_CHANGE_ACCEPTED, Kind.LOCK_CHANGE_REJECTED]
        )
    }
    proposed = project.events.filter(kind=Kind.LOCK_CHANGE_PROPOSED).order_by("id")
    return [event for event in proposed if event.pk not in decided]


@dataclass(frozen=True)
class ProjectPageReads:
    """What the producer's page of one briefing reads from the database, each read once."""

    stages: list[StageRun]
    events: list[BriefingEvent]
    turns: list[Turn]
    # The dead letters of the turns' calls, by call id.
    letters: dict[int, DeadLetter]
    facts: InboxFacts
    # What each turn's model calls cost, by turn id (the ledger's).
    costs: dict[str, Decimal]
    locks: list[LockedEntity]
    lock_proposals: list[BriefingEvent]


def project_page_reads(project: Project) -> ProjectPageReads:
    """The rows of one briefing's page: its stages, events, turns with their calls and dead
    letters, stored inbox facts, costs per turn, locks and the proposals still undecided."""
    stages = list(project.stages.order_by("order"))
    events = list(project.events.select_related("actor").order_by("id"))
    turns = list(project.turns.select_related("call", "author").order_by("seq"))
    call_ids = [t.call_id for t in turns if t.call_id]
    return ProjectPageReads(
        stages=stages,
        events=events,
        turns=turns,
        letters={d.call_id: d for d in DeadLetter.objects.filter(call_id__in=call_ids)},
        facts=inbox_facts(project.pk),
        costs=ledger_turn_costs(project_id=project.pk),
        locks=list(project.locks.select_related("set_by")),
        lock_proposals=lock_proposals_pending(project),
    )


def workers_stalled_minutes(*, now: datetime.datetime | None = None) -> int | None:
    """Whole minutes the oldest client turn has waited for a worker, when that is longer
    than BRIEFING_STALL_ALERT_S (None otherwise): no worker is taking turns (stopped,
    crashed, or cut off from the broker), and the inbox tells every producer so."""
    oldest = (
        Turn.objects.filter(
            role=Turn.Role.CLIENT, status__in=[Turn.Status.RECEIVED, Turn.Status.PROCESSING]
        )
        .order_by("created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    if oldest is None:
        return None
    waited = ((now or timezone.now()) - oldest).total_seconds()
    return int(waited // 60) if waited > settings.BRIEFING_STALL_ALERT_S else None


def turn_figures(*, since: datetime.datetime, until: datetime.datetime) -> dict[str, Any]:
    """What the client turns received in [since, until) and processed cost, in two queries:
    the median of the model requests the router counted per turn (meta `route.calls`: level
    1, the tool step, each stage request and its retry; a turn never routed, answered
    without a model, made none), the turns without any tool call (no `tool_called` event),
    and the share of tool calls the turn's cache answered (the event's `cached`)."""
    turns = Turn.objects.filter(
        role=Turn.Role.CLIENT, status__in=(Turn.Status.DONE, Turn.Status.FAILED),
        created_at__gte=since, created_at__lt=until,
    )  # fmt: skip
    tool_events = BriefingEvent.objects.filter(kind=BriefingEvent.Kind.TOOL_CALLED)
    rows = list(
        turns.annotate(tooled=Exists(tool_events.filter(turn=OuterRef("pk"))))
        .order_by()
        .values_list("meta__route__calls", "tooled")
    )
    calls = [count if isinstance(count, int) else 0 for count, _ in rows]
    without_tools = sum(not tooled for _, tooled in rows)
    tools = tool_events.filter(turn__in=turns.values("pk")).aggregate(
        calls=Count("id"), hits=Count("id", filter=Q(data__cached=True))
    )
    return {
        "turns": len(rows),
        "calls_median": median(calls) if calls else None,
        "without_tools": without_tools,
        "without_tools_share": share_or_none(without_tools, len(rows)),
        "tool_calls": tools["calls"],
        "tool_cache_hits": tools["hits"],
        "tool_cache_hit_share": share_or_none(tools["hits"], tools["calls"]),
    }


# --- the inbox's people, notes and canned replies ------------------------------------------------

# The roles whose members a briefing may be assigned to (briefing.common.roles).
ASSIGNEE_GROUPS = ("Producers", "Managers")


def person_name(user: Any) -> str:
    """How the back office names a colleague: their full name, else their username."""
    if user is None:
        return ""
    return user.get_full_name().strip() or user.get_username()


def assignees() -> QuerySet:
    """Whom a briefing may be assigned to: the active producers and managers, by name."""
    from django.contrib.auth import get_user_model

    return (
        get_user_model()
        .objects.filter(is_active=True, groups__name__in=ASSIGNEE_GROUPS)
        .distinct()
        .order_by("first_name", "last_name", "username")
    )


def project_notes(project: Project) -> QuerySet[BriefingNote]:
    """The staff's notes on one briefing, oldest first, with their authors (read when a page
    shows them: the transcript's poll does not)."""
    return project.notes.select_related("author").order_by("id")


def canned_replies(*, language: str = "") -> QuerySet[CannedReply]:
    """The studio's canned replies, by title; of one language when `language` is given."""
    replies = CannedReply.objects.order_by("title", "id")
    return replies.filter(language=language) if language else replies
