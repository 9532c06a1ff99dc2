"""Recording a briefing's domain events one at a time (a person's change, a client's refused
message, a completion): the event row, then the inbox's facts in the same transaction. A
turn's own events are written in bulk with the turn (briefing.turn.outcome)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from briefing.common.inbox import inbox_refresh
from briefing.models import BriefingEvent, Project, Turn


def event_record(
    *,
    project: Project,
    kind: str,
    turn: Turn | None = None,
    stage_key: str = "",
    data: Mapping[str, Any] | None = None,
    actor: Any = None,
) -> BriefingEvent:
    event = BriefingEvent.objects.create(
        project=project, kind=kind, turn=turn, stage_key=stage_key, data=dict(data or {}),
        actor=actor,
    )  # fmt: skip
    # Every change a person or the client makes is an event: the inbox's facts follow in the
    # same transaction.
    inbox_refresh(project_id=project.pk)
    return event
