"""Reads of the briefing app."""

from __future__ import annotations

from typing import Any

from briefing.models import Project, StageRun, Turn


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
