"""What the producer's pages say about a briefing, derived by code from its rows and events:
who it waits for, the stage timeline and the status lines. Never written by a model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import (
    Case,
    CharField,
    Count,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from briefing.models import BriefingEvent, Project, StageRun, Turn
from briefing.stages.base import StageSpec
from briefing.stages.registry import stage_title, stages_for

Kind = BriefingEvent.Kind


class WaitingFor:
    CLIENT = "client"
    AGENT = "agent"
    PRODUCER = "producer"
    NOBODY = "nobody"

    CHOICES = (
        (CLIENT, "the client"),
        (AGENT, "the agent"),
        (PRODUCER, "the producer"),
        (NOBODY, "nobody (completed)"),
    )
    LABELS = dict(CHOICES)


PENDING_TURN = (Turn.Status.RECEIVED, Turn.Status.PROCESSING)


def _count(queryset: QuerySet) -> Coalesce:
    """A correlated COUNT(*) over `queryset` (already filtered on OuterRef("pk"))."""
    counted = queryset.order_by().values("project").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def with_waiting_for(projects: QuerySet[Project]) -> QuerySet[Project]:
    """Annotate `waiting_for_live` (one of WaitingFor) in SQL (the inbox stores its own, see
    briefing.inbox): completed → nobody; taken over, paused, a
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


def with_dashboard_facts(projects: QuerySet[Project]) -> QuerySet[Project]:
    """The flags a dashboard row shows beside its stored inbox facts; for the rows of one
    page only (each is a correlated count over that briefing's rows)."""
    events = BriefingEvent.objects.filter(project=OuterRef("pk"))
    dead_turns = Turn.objects.filter(project=OuterRef("pk"), call__dead_letter__status="open")
    return projects.annotate(
        dead_letter_id=Subquery(dead_turns.order_by("-seq").values("call__dead_letter__pk")[:1]),
        open_dead_letters=_count(dead_turns),
        lock_violations=_count(events.filter(kind=Kind.LOCK_VIOLATION_BLOCKED)),
        holding_replies=_count(events.filter(kind=Kind.HOLDING_REPLY_SENT)),
    )


def waiting_for(project: Project) -> str:
    """Who one briefing waits for (the same SQL rule as the dashboard's)."""
    return (
        with_waiting_for(Project.objects.filter(pk=project.pk))
        .values_list("waiting_for_live", flat=True)
        .get()
    )


# --- the stage timeline ------------------------------------------------------------------

CLOSED_BY_LABELS = {
    StageRun.ClosedBy.AGENT: "the agent",
    StageRun.ClosedBy.PREFILL: "the pre-parse",
    StageRun.ClosedBy.PRODUCER: "the producer",
}


@dataclass
class StageRow:
    """One stage as the pages show it."""

    run: StageRun
    spec: StageSpec
    number: int
    total: int
    title: str
    is_current: bool
    missing: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.run.key

    @property
    def status(self) -> str:
        return self.run.status

    @property
    def closed_by_label(self) -> str:
        return CLOSED_BY_LABELS.get(self.run.closed_by, "")

    @property
    def segment(self) -> str:
        """The progress bar's CSS class for this stage."""
        if self.run.status == StageRun.Status.CLOSED:
            return f"closed {self.run.closed_by or 'agent'}"
        return "open current" if self.is_current else "pending"


def stage_rows(project: Project, stages: Sequence[StageRun]) -> list[StageRow]:
    """The timeline: stages in order with their titles in the project's language; the
    current stage (the first not closed) carries its missing required fields."""
    specs = {spec.key: spec for spec in stages_for(project.briefing_type)}
    ordered = sorted(stages, key=lambda s: s.order)
    current = next((s for s in ordered if s.status != StageRun.Status.CLOSED), None)
    rows = []
    for number, run in enumerate(ordered, start=1):
        spec = specs[run.key]
        is_current = run is current and project.status != Project.Status.COMPLETED
        rows.append(
            StageRow(
                run=run,
                spec=spec,
                number=number,
                total=len(ordered),
                title=stage_title(spec, project.language),
                is_current=is_current,
                missing=spec.missing(run.fields) if is_current else [],
            )
        )
    return rows


# --- status lines --------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusLine:
    text: str
    level: str = ""  # "", "ok", "warn" or "bad": the badge colour
    at: Any = None
    actor: str = ""


def _stage_label(stage_key: str, numbers: dict[str, int], titles: dict[str, str]) -> str:
    if stage_key not in numbers:
        return stage_key or "the briefing"
    return f"stage {numbers[stage_key]} of {len(numbers)} ({titles[stage_key]})"


def _values(values: Any) -> str:
    if isinstance(values, list | tuple):
        return ", ".join(str(v) for v in values)
    return "—" if values in (None, "") else str(values)


def event_line(event: BriefingEvent, numbers: dict[str, int], titles: dict[str, str]) -> StatusLine:
    """One event as one line of plain text (the template escapes it: event data can hold
    client text)."""
    data, kind = event.data or {}, event.kind
    stage = _stage_label(event.stage_key, numbers, titles)
    by = CLOSED_BY_LABELS.get(data.get("by", ""), data.get("by", ""))
    lines: dict[str, tuple[str, str]] = {
        Kind.TURN_RECEIVED: (f"client message #{data.get('seq', '?')} received", ""),
        Kind.GUARD_ANSWERED: (f"guard answered ({data.get('guard', '')}) without a model", "warn"),
        Kind.LANGUAGE_DETECTED: (
            f"language switched from {data.get('old', '?')} to {data.get('new', '?')}",
            "",
        ),
        Kind.PREFILL_FILLED: (
            f"{stage}: {data.get('field', '?')} filled by the pre-parse from "
            f"“{data.get('evidence', '')}”",
            "",
        ),
        Kind.STAGE_STARTED: (f"{stage} started", ""),
        Kind.AGENT_REPLIED: (
            f"{stage}: agent replied via {data.get('provider') or '?'}"
            f" ({data.get('layer') or '?'}{', retry used' if data.get('retry') else ''})",
            "",
        ),
        Kind.GATE_HELD: (
            f"{stage} held open: missing {_values(data.get('missing') or [])}"
            if data.get("missing")
            else f"{stage} held open: the agent did not confirm it",
            "",
        ),
        Kind.STAGE_CLOSED: (
            f"{stage} closed by {by or 'the agent'}"
            + (f" (reason: {data['reason']})" if data.get("reason") else ""),
            "ok",
        ),
        Kind.STAGE_SKIPPED: (f"{stage} skipped: already closed by {by or 'the pre-parse'}", "ok"),
        Kind.STAGE_REOPENED: (f"{stage} reopened", "warn"),
        Kind.RETRY_USED: (f"{stage}: retry used", "warn"),
        Kind.DEAD_LETTERED: (
            f"{stage}: answer dead-lettered ({data.get('signature', '?')})",
            "bad",
        ),
        Kind.HOLDING_REPLY_SENT: (f"{stage}: holding reply sent", "bad"),
        Kind.PROVIDER_FAILOVER: (
            f"{stage}: served by {data.get('served_by', '?')} after failover",
            "warn",
        ),
        Kind.LOCK_SET: (
            f"lock {data.get('key', '?')} set to “{data.get('new', '')}”"
            + (f" (was “{data['old']}”)" if data.get("old") else ""),
            "",
        ),
        Kind.LOCK_REMOVED: (f"lock {data.get('key', '?')} removed", ""),
        Kind.LOCK_VIOLATION_BLOCKED: (
            f"{stage}: locked {data.get('field', '?')} kept; “{data.get('proposed', '')}” blocked",
            "bad",
        ),
        Kind.FIELD_CORRECTED: (
            f"{stage}: {data.get('field', '?')} corrected from {_values(data.get('old'))} "
            f"to {_values(data.get('new'))}",
            "",
        ),
        Kind.FIELD_CORRECTED_BY_CLIENT: (
            f"{stage}: the client corrected {data.get('field', '?')} from "
            f"{_values(data.get('old'))} to {_values(data.get('new'))} "
            f"(“{data.get('evidence', '')}”)",
            "warn",
        ),
        Kind.LOCK_CHANGE_PROPOSED: (
            f"the client proposes {data.get('key', '?')} “{data.get('new', '')}” instead of "
            f"the locked “{data.get('old', '')}”: accept or reject it under Locked entities",
            "warn",
        ),
        Kind.LOCK_CHANGE_ACCEPTED: (
            f"proposed {data.get('key', '?')} “{data.get('new', '')}” accepted",
            "",
        ),
        Kind.LOCK_CHANGE_REJECTED: (
            f"proposed {data.get('key', '?')} “{data.get('new', '')}” rejected; "
            f"“{data.get('old', '')}” stays",
            "",
        ),
        Kind.PRODUCER_TAKEOVER: ("taken over by the producer", "warn"),
        Kind.PRODUCER_RELEASED: ("handed back to the agents", ""),
        Kind.PRODUCER_MESSAGE: ("producer wrote to the client", ""),
        Kind.TURN_WAITING: (
            f"client message waits for the producer ({data.get('reason', '')})".replace("_", " "),
            "warn",
        ),
        Kind.PROJECT_PAUSED: ("paused", "warn"),
        Kind.PROJECT_RESUMED: ("resumed", ""),
        Kind.BRIEF_COMPLETED: ("brief completed", "ok"),
        Kind.ADDITIONAL_REQUEST: (
            f"the client asked for more after completion (added to the brief): "
            f"“{data.get('text', '')}”",
            "bad",
        ),
        Kind.CLIENT_RATE_LIMITED: (
            f"client messages refused: over {data.get('rate', '?')} per "
            f"{'sender address' if data.get('scope') == 'address' else 'link'}"
            f" ({'API' if data.get('channel') == 'api' else 'chat page'}); nothing stored, "
            f"open again in {data.get('retry_after_s', '?')} s",
            "bad",
        ),
    }
    text, level = lines.get(kind, (kind.replace("_", " "), ""))
    actor = event.actor.get_username() if event.actor_id and event.actor else ""
    return StatusLine(text=text, level=level, at=event.created_at, actor=actor)


def status_lines(
    project: Project,
    *,
    waiting: str,
    rows: Sequence[StageRow],
    events: Iterable[BriefingEvent],
) -> list[StatusLine]:
    """The page's headline lines: who it waits for, where the stages stand, and what went
    wrong on the way (retries, holding replies, blocked renames). `events` oldest first."""
    numbers = {row.key: row.number for row in rows}
    titles = {row.key: row.title for row in rows}
    lines = [StatusLine(f"waiting for {WaitingFor.LABELS[waiting]}", _waiting_level(waiting))]
    if project.status == Project.Status.PAUSED:
        lines.append(StatusLine("paused by the producer", "warn"))
    if project.taken_over_by_id:
        lines.append(StatusLine(f"taken over by {project.taken_over_by.get_username()}", "warn"))
    closed = {}
    counts = {Kind.RETRY_USED: 0, Kind.HOLDING_REPLY_SENT: 0, Kind.LOCK_VIOLATION_BLOCKED: 0}
    for event in events:
        if event.kind in counts:
            counts[event.kind] += 1
        elif event.kind == Kind.STAGE_CLOSED:
            closed[event.stage_key] = event
        elif event.kind == Kind.STAGE_REOPENED:
            closed.pop(event.stage_key, None)
    for row in rows:
        if row.status == StageRun.Status.CLOSED:
            reason = closed.get(row.key).data.get("reason") if row.key in closed else ""
            text = f"{_stage_label(row.key, numbers, titles)} closed by {row.closed_by_label}"
            lines.append(StatusLine(text + (f" (reason: {reason})" if reason else ""), "ok"))
        elif row.is_current:
            missing = f": missing {', '.join(row.missing)}" if row.missing else ""
            lines.append(StatusLine(f"{_stage_label(row.key, numbers, titles)} open{missing}"))
    if counts[Kind.RETRY_USED]:
        lines.append(StatusLine(_times("retry used", counts[Kind.RETRY_USED]), "warn"))
    if counts[Kind.HOLDING_REPLY_SENT]:
        lines.append(
            StatusLine(_times("holding reply sent", counts[Kind.HOLDING_REPLY_SENT]), "bad")
        )
    if counts[Kind.LOCK_VIOLATION_BLOCKED]:
        text = _times("rename of a locked entity blocked", counts[Kind.LOCK_VIOLATION_BLOCKED])
        lines.append(StatusLine(text, "bad"))
    return lines


def _times(text: str, count: int) -> str:
    return text if count == 1 else f"{text} ({count} times)"


def _waiting_level(waiting: str) -> str:
    return {WaitingFor.PRODUCER: "bad", WaitingFor.AGENT: "warn", WaitingFor.NOBODY: "ok"}.get(
        waiting, ""
    )


def activity_lines(events: Sequence[BriefingEvent], rows: Sequence[StageRow]) -> list[StatusLine]:
    """Every event as a line, newest first (the page's activity log)."""
    numbers = {row.key: row.number for row in rows}
    titles = {row.key: row.title for row in rows}
    return [event_line(event, numbers, titles) for event in reversed(events)]
