"""What a briefing's stages add up to: the profile (every stage's fields), the final brief
and its markdown, and completion once every stage is closed. The turn pipeline and the
producer's actions both call these: they sit under both."""

from __future__ import annotations

from django.utils import timezone

from briefing.common.events import event_record
from briefing.models import BriefingEvent, Project, StageRun
from briefing.stages.registry import stages_for
from briefing.turn.brief import Brief, brief_markdown
from webhooks.events import brief_completed_emit

# The languages a brief is written in; a conversation in another one gets an English brief.
BRIEF_LANGUAGES = ("ru", "uk", "en")


def project_profile_sync(project: Project) -> None:
    """Copy every stage's fields into the project's profile (what memory and exports read)."""
    project.profile = {s.key: s.fields for s in project.stages.order_by("order")}
    project.save(update_fields=["profile", "updated_at"])


def brief_finish(
    project: Project, stages: list[StageRun], *, add_request: dict[str, str] | None = None
) -> None:
    """The final brief, validated, and its markdown summary, both written by code (not
    saved: the caller writes the project). The client's additional requests are kept (a
    producer's change writes the brief again)."""
    language = project.language if project.language in BRIEF_LANGUAGES else "en"
    requests = list((project.brief or {}).get("additionalRequests") or [])
    if add_request is not None:
        requests.append(add_request)
    brief = Brief.from_profile(
        {s.key: s.fields for s in stages}, language=language, additional_requests=requests
    )
    project.brief = brief.model_dump(mode="json")
    project.summary_markdown = brief_markdown(
        brief, title=project.title, language=language,
        stage_specs=stages_for(project.briefing_type),
    )  # fmt: skip
    project.status, project.completed_at = Project.Status.COMPLETED, timezone.now()


def brief_refresh(project: Project) -> None:
    """Write a completed project's brief and summary again after a producer's change."""
    if project.status != Project.Status.COMPLETED:
        return
    completed_at = project.completed_at
    brief_finish(project, list(project.stages.order_by("order")))
    project.completed_at = completed_at
    project.save(update_fields=["brief", "summary_markdown", "updated_at"])


def project_complete_if_done(project: Project) -> bool:
    """Complete a project whose stages are all closed (after a producer's force-close)."""
    stages = list(project.stages.order_by("order"))
    if project.status == Project.Status.COMPLETED or any(
        s.status != StageRun.Status.CLOSED for s in stages
    ):
        return False
    brief_finish(project, stages)
    project.save()
    event_record(project=project, kind=BriefingEvent.Kind.BRIEF_COMPLETED)
    brief_completed_emit(project)
    return True
