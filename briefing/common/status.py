"""What the producer's pages say about a briefing, derived by code from its rows and events:
who it waits for (the SQL rule is briefing.common.selectors.with_waiting_for), the stage timeline
and the status lines, from the rows the caller read (briefing.common.selectors). Never written
by a model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.utils.translation import ngettext

from briefing.common.labels import (
    field_label,
    field_labels,
    label_language,
    lock_label,
    memory_fact_label,
    tool_label,
)
from briefing.models import BriefingEvent, Project, StageRun, Turn
from briefing.stages.base import StageSpec
from briefing.stages.registry import stage_title, stages_for
from dlq.error_labels import error_kind_label

Kind = BriefingEvent.Kind


class WaitingFor:
    CLIENT = "client"
    AGENT = "agent"
    PRODUCER = "producer"
    NOBODY = "nobody"

    CHOICES = (
        (CLIENT, _lazy("the client")),
        (AGENT, _lazy("the agent")),
        (PRODUCER, _lazy("the producer")),
        (NOBODY, _lazy("nobody (completed)")),
    )
    LABELS = dict(CHOICES)


PENDING_TURN = (Turn.Status.RECEIVED, Turn.Status.PROCESSING)


# --- the stage timeline ------------------------------------------------------------------

CLOSED_BY_LABELS = {
    StageRun.ClosedBy.AGENT: _lazy("the agent"),
    StageRun.ClosedBy.PREFILL: _lazy("the pre-parse"),
    StageRun.ClosedBy.PRODUCER: _lazy("the producer"),
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
        return str(CLOSED_BY_LABELS.get(self.run.closed_by, ""))

    @property
    def segment(self) -> str:
        """The progress bar's CSS class for this stage."""
        if self.run.status == StageRun.Status.CLOSED:
            return f"closed {self.run.closed_by or 'agent'}"
        return "open current" if self.is_current else "pending"


def stage_rows(project: Project, stages: Sequence[StageRun]) -> list[StageRow]:
    """The timeline: stages in order with their titles in the producer's language (the active
    one, never the client's); the current stage (the first not closed) carries its missing
    required fields."""
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
                title=stage_title(spec, label_language()),
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
        return stage_key or _("the briefing")
    return _("stage %(number)s of %(total)s (%(title)s)") % {
        "number": numbers[stage_key],
        "total": len(numbers),
        "title": titles[stage_key],
    }


def _values(values: Any) -> str:
    if isinstance(values, list | tuple):
        return ", ".join(str(v) for v in values)
    return "—" if values in (None, "") else str(values)


# Level 1's reasons for asking the producer to answer (the intents it acts on).
def _signature_label(signature: str) -> str:
    """A dead letter's error signature (`path: kind`) in words: the field's label and the
    kind's ("Бюджет: ожидалось целое число"), the whole answer's error by its kind alone."""
    path, _sep, kind = signature.rpartition(": ")
    if not kind:
        return "?"
    label = error_kind_label(kind)
    field = path.split(".")[0]
    return f"{field_label('', field)}: {label}" if field not in ("", "$") else label


ATTENTION_REASONS = {
    "human_request": _lazy(
        "attention: the client asks for a person and was told a person will answer"
    ),
    "complaint": _lazy("attention: the client complains and was told a person will answer"),
}


def event_line(event: BriefingEvent, numbers: dict[str, int], titles: dict[str, str]) -> StatusLine:
    """One event as one line of plain text (the template escapes it: event data can hold
    client text)."""
    data, kind = event.data or {}, event.kind
    stage = _stage_label(event.stage_key, numbers, titles)
    by = str(CLOSED_BY_LABELS.get(data.get("by", ""), data.get("by", "")))
    # Fields and locks under their labels in the producer's language, never as code.
    name = field_label(event.stage_key, data["field"]) if data.get("field") else "?"
    lock = lock_label(data["key"]) if data.get("key") else "?"
    lines: dict[str, tuple[str, str]] = {
        Kind.TURN_RECEIVED: (
            _("client message #%(seq)s received") % {"seq": data.get("seq", "?")},
            "",
        ),
        Kind.GUARD_ANSWERED: (
            _("guard answered (%(guard)s) without a model") % {"guard": data.get("guard", "")}
            + (
                _(", level 1: %(risk)s") % {"risk": data.get("risk", "")}
                if data.get("level") == 1
                else ""
            ),
            "warn",
        ),
        Kind.ATTENTION_REQUESTED: (
            str(
                ATTENTION_REASONS.get(
                    data.get("reason", ""),
                    _lazy("attention: the client asks and was told a person will answer"),
                )
            ),
            "bad",
        ),
        Kind.LANGUAGE_DETECTED: (
            _("language switched from %(old)s to %(new)s")
            % {"old": data.get("old", "?"), "new": data.get("new", "?")},
            "",
        ),
        Kind.PREFILL_FILLED: (
            (
                _("%(stage)s: %(field)s taken from “%(evidence)s”, a message the guard refused")
                if data.get("guard")
                else _("%(stage)s: %(field)s filled by the pre-parse from “%(evidence)s”")
            )
            % {"stage": stage, "field": name, "evidence": data.get("evidence", "")},
            "warn" if data.get("guard") else "",
        ),
        Kind.STAGE_STARTED: (_("%(stage)s started") % {"stage": stage}, ""),
        Kind.AGENT_REPLIED: (
            (
                _("%(stage)s: agent replied via %(provider)s (%(layer)s, retry used)")
                if data.get("retry")
                else _("%(stage)s: agent replied via %(provider)s (%(layer)s)")
            )
            % {
                "stage": stage,
                "provider": data.get("provider") or "?",
                "layer": _layer_label(data.get("layer")),
            },
            "",
        ),
        Kind.GATE_HELD: (
            _("%(stage)s held open: missing %(missing)s")
            % {"stage": stage, "missing": field_labels(event.stage_key, data["missing"])}
            if data.get("missing")
            else _("%(stage)s held open: the agent did not confirm it") % {"stage": stage},
            "",
        ),
        Kind.STAGE_CLOSED: (
            _("%(stage)s closed by %(by)s") % {"stage": stage, "by": by or _("the agent")}
            + (
                _(" (reason: %(reason)s)") % {"reason": data["reason"]}
                if data.get("reason")
                else ""
            ),
            "ok",
        ),
        Kind.STAGE_SKIPPED: (
            _("%(stage)s skipped: already closed by %(by)s")
            % {"stage": stage, "by": by or _("the pre-parse")},
            "ok",
        ),
        Kind.STAGE_REOPENED: (_("%(stage)s reopened") % {"stage": stage}, "warn"),
        Kind.RETRY_USED: (_("%(stage)s: retry used") % {"stage": stage}, "warn"),
        Kind.DEAD_LETTERED: (
            _("%(stage)s: answer dead-lettered (%(signature)s)")
            % {"stage": stage, "signature": _signature_label(data.get("signature", ""))},
            "bad",
        ),
        Kind.HOLDING_REPLY_SENT: (_("%(stage)s: holding reply sent") % {"stage": stage}, "bad"),
        Kind.PROVIDER_FAILOVER: (
            _("%(stage)s: served by %(provider)s after failover")
            % {"stage": stage, "provider": data.get("served_by", "?")},
            "warn",
        ),
        Kind.LOCK_SET: (
            _("lock %(lock)s set to “%(new)s”") % {"lock": lock, "new": data.get("new", "")}
            + (_(" (was “%(old)s”)") % {"old": data["old"]} if data.get("old") else ""),
            "",
        ),
        Kind.LOCK_REMOVED: (_("lock %(lock)s removed") % {"lock": lock}, ""),
        Kind.LOCK_VIOLATION_BLOCKED: (
            _("%(stage)s: locked %(field)s kept; “%(proposed)s” blocked")
            % {"stage": stage, "field": name, "proposed": data.get("proposed", "")},
            "bad",
        ),
        Kind.FIELD_CORRECTED: (
            _("%(stage)s: %(field)s corrected from %(old)s to %(new)s")
            % {
                "stage": stage,
                "field": name,
                "old": _values(data.get("old")),
                "new": _values(data.get("new")),
            },
            "",
        ),
        Kind.FIELD_CORRECTED_BY_CLIENT: (
            _("%(stage)s: the client corrected %(field)s from %(old)s to %(new)s (“%(evidence)s”)")
            % {
                "stage": stage,
                "field": name,
                "old": _values(data.get("old")),
                "new": _values(data.get("new")),
                "evidence": data.get("evidence", ""),
            },
            "warn",
        ),
        Kind.LOCK_CHANGE_PROPOSED: (
            _(
                "the client proposes %(lock)s “%(new)s” instead of the locked “%(old)s”: "
                "accept or reject it under Locked entities"
            )
            % {"lock": lock, "new": data.get("new", ""), "old": data.get("old", "")},
            "warn",
        ),
        Kind.LOCK_CHANGE_ACCEPTED: (
            _("proposed %(lock)s “%(new)s” accepted") % {"lock": lock, "new": data.get("new", "")},
            "",
        ),
        Kind.LOCK_CHANGE_REJECTED: (
            _("proposed %(lock)s “%(new)s” rejected; “%(old)s” stays")
            % {"lock": lock, "new": data.get("new", ""), "old": data.get("old", "")},
            "",
        ),
        Kind.PRODUCER_TAKEOVER: (_("taken over by the producer"), "warn"),
        Kind.PRODUCER_RELEASED: (_("handed back to the agents"), ""),
        Kind.PRODUCER_MESSAGE: (_("producer wrote to the client"), ""),
        Kind.TURN_WAITING: (
            _("client message waits for the producer (%(reason)s)")
            % {"reason": str(data.get("reason", "")).replace("_", " ")},
            "warn",
        ),
        Kind.PROJECT_PAUSED: (_("paused"), "warn"),
        Kind.PROJECT_RESUMED: (_("resumed"), ""),
        Kind.BRIEF_COMPLETED: (_("brief completed"), "ok"),
        Kind.PROJECT_ARCHIVED: (_("archived (kept with its history, no longer deletable)"), ""),
        Kind.CLIENT_FORGOTTEN: (
            _("the client's data was erased at their request (%(turns)s messages)")
            % {"turns": data.get("turns", 0)},
            "warn",
        ),
        Kind.FOLLOW_UP_REQUESTED: (
            _("the holding reply was not followed up in time: write to the client yourself"),
            "bad",
        ),
        Kind.TOOL_CALLED: (_tool_called_line(data), "warn" if data.get("error") else ""),
        Kind.MEMORY_CORRECTED: (
            (
                _("client memory: %(fact)s “%(old)s” corrected to “%(new)s”")
                if data.get("new")
                else _("client memory: %(fact)s “%(old)s” removed")
            )
            % {
                "fact": memory_fact_label(data.get("fact", "")),
                "old": data.get("old", ""),
                "new": data.get("new", ""),
            },
            "",
        ),
        Kind.FIELD_LEFT_FOR_PRODUCER: (
            (
                _("%(stage)s: %(field)s left for you: the client declined it")
                if data.get("reason") == "declined"
                else _("%(stage)s: %(field)s left for you: the client finished without it")
                if data.get("reason") == "client_finished"
                else _("%(stage)s: %(field)s left for you: asked twice without an answer")
            )
            % {"stage": stage, "field": name},
            "warn",
        ),
        Kind.FIELD_TO_CHECK: (
            _("%(stage)s: %(field)s “%(value)s” taken from a reply to a second question: check it")
            % {"stage": stage, "field": name, "value": _values(data.get("value"))},
            "warn",
        ),
        Kind.READ_BACK: (
            (
                _("the brief read back to the client once more, after a correction")
                if data.get("given", 1) > 1
                else _("the brief read back to the client, who had already said it was all")
                if data.get("closing")
                else _("the brief read back to the client for confirmation")
            ),
            "",
        ),
        Kind.ADDITIONAL_REQUEST: (
            _("the client asked for more after completion (added to the brief): “%(text)s”")
            % {"text": data.get("text", "")},
            "bad",
        ),
        Kind.PRODUCER_ASSIGNED: (
            (
                _("assigned to %(new)s (was %(old)s)")
                if data.get("old_name")
                else _("assigned to %(new)s")
            )
            % {"new": data.get("new_name") or "?", "old": data.get("old_name") or ""},
            "",
        ),
        Kind.BRIEFING_RESOLVED: (_("conversation resolved"), "ok"),
        Kind.BRIEFING_REOPENED: (_("conversation reopened"), ""),
        Kind.BRIEFING_SNOOZED: (
            _("snoozed until %(until)s") % {"until": moment_shown(data.get("until"))},
            "",
        ),
        Kind.BRIEFING_WOKEN: (_("snooze ended by the producer"), ""),
        Kind.MARKED_UNREAD: (_("marked unread"), ""),
        Kind.NOTE_ADDED: (_("internal note added"), ""),
        Kind.CLIENT_RATE_LIMITED: (
            _(
                "client messages refused: over %(rate)s per %(scope)s (%(channel)s); nothing "
                "stored, open again in %(seconds)s s"
            )
            % {
                "rate": data.get("rate", "?"),
                "scope": _("sender address") if data.get("scope") == "address" else _("link"),
                "channel": "API" if data.get("channel") == "api" else _("chat page"),
                "seconds": data.get("retry_after_s", "?"),
            },
            "bad",
        ),
    }
    text, level = lines.get(kind, (kind.replace("_", " "), ""))
    actor = event.actor.get_username() if event.actor_id and event.actor else ""
    return StatusLine(text=text, level=level, at=event.created_at, actor=actor)


def moment_shown(moment: Any) -> str:
    """A moment (a datetime or its ISO text) as the back office shows one: in the studio's
    time zone, the active language's short format."""
    if isinstance(moment, str):
        moment = parse_datetime(moment)
    if moment is None:
        return "?"
    return date_format(timezone.localtime(moment), "SHORT_DATETIME_FORMAT")


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
    waiting_text = _("waiting for %(whom)s") % {"whom": WaitingFor.LABELS[waiting]}
    lines = [StatusLine(waiting_text, _waiting_level(waiting))]
    if project.status == Project.Status.PAUSED:
        lines.append(StatusLine(_("paused by the producer"), "warn"))
    if project.taken_over_by_id:
        name = project.taken_over_by.get_username()
        lines.append(StatusLine(_("taken over by %(name)s") % {"name": name}, "warn"))
    if project.resolved_at is not None:
        lines.append(StatusLine(_("resolved: out of the open list until the client writes"), "ok"))
    elif project.snoozed_until is not None and project.snoozed_until > timezone.now():
        until = moment_shown(project.snoozed_until)
        lines.append(StatusLine(_("snoozed until %(until)s") % {"until": until}, "warn"))
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
            label = _stage_label(row.key, numbers, titles)
            text = _("%(stage)s closed by %(by)s") % {"stage": label, "by": row.closed_by_label}
            reason_text = _(" (reason: %(reason)s)") % {"reason": reason} if reason else ""
            lines.append(StatusLine(text + reason_text, "ok"))
        elif row.is_current:
            label = _stage_label(row.key, numbers, titles)
            if row.missing:
                missing = field_labels(row.key, row.missing)
                text = _("%(stage)s open: missing %(missing)s") % {
                    "stage": label,
                    "missing": missing,
                }
            else:
                text = _("%(stage)s open") % {"stage": label}
            lines.append(StatusLine(text))
    if counts[Kind.RETRY_USED]:
        lines.append(StatusLine(_times(_("retry used"), counts[Kind.RETRY_USED]), "warn"))
    if counts[Kind.HOLDING_REPLY_SENT]:
        lines.append(
            StatusLine(_times(_("holding reply sent"), counts[Kind.HOLDING_REPLY_SENT]), "bad")
        )
    if counts[Kind.LOCK_VIOLATION_BLOCKED]:
        text = _times(_("rename of a locked entity blocked"), counts[Kind.LOCK_VIOLATION_BLOCKED])
        lines.append(StatusLine(text, "bad"))
    return lines


def _times(text: str, count: int) -> str:
    if count == 1:
        return text
    return ngettext("%(text)s (%(count)s time)", "%(text)s (%(count)s times)", count) % {
        "text": text,
        "count": count,
    }


def _waiting_level(waiting: str) -> str:
    return {WaitingFor.PRODUCER: "bad", WaitingFor.AGENT: "warn", WaitingFor.NOBODY: "ok"}.get(
        waiting, ""
    )


def activity_lines(events: Sequence[BriefingEvent], rows: Sequence[StageRow]) -> list[StatusLine]:
    """Every event as a line, newest first (the page's activity log)."""
    numbers = {row.key: row.number for row in rows}
    titles = {row.key: row.title for row in rows}
    return [event_line(event, numbers, titles) for event in reversed(events)]


def _layer_label(layer: Any) -> str:
    """How far the parse pipeline had to go ("быстрый путь"), not its code ("fast")."""
    from dlq.models import StructuredCall

    try:
        return str(StructuredCall.Outcome(layer).label)
    except ValueError:
        return str(layer or "?")


def _tool_called_line(data: dict[str, Any]) -> str:
    """A studio tool's call on the timeline, the tool under the name of its data."""
    tool = tool_label(str(data.get("name", "?")))
    if data.get("error"):
        line = _("studio data: %(tool)s, error: %(error)s") % {
            "tool": tool,
            "error": data.get("error"),
        }
    elif data.get("truncated"):
        line = _("studio data: %(tool)s, %(size)s characters, %(shown)s of %(total)s shown") % {
            "tool": tool,
            "size": data.get("size", 0),
            "shown": data.get("shown"),
            "total": data.get("total"),
        }
    else:
        line = _("studio data: %(tool)s, %(size)s characters") % {
            "tool": tool,
            "size": data.get("size", 0),
        }
    return line + (" " + _("(from the turn's cache)") if data.get("cached") else "")
