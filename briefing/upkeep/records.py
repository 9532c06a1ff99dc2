"""The briefing app's side of studio's memory (studio.records): completed briefings as a
client's history, and erasing the client from every briefing of theirs when the client is
forgotten (briefing.upkeep.retention)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import Q

from briefing.models import Project
from briefing.upkeep.retention import client_briefings_erase
from studio.records import PastBriefing

FIELDS = ("id", "title", "profile", "completed_at", "created_at")


def _past(project: Project) -> PastBriefing:
    return PastBriefing(
        pk=project.pk,
        title=project.title,
        profile=project.profile or {},
        completed_at=project.completed_at,
        created_at=project.created_at,
    )


def _same_client(profile: Any, *, company: str, contact: str) -> bool:
    """Whether a briefing's profile names this client: the company case-insensitively (in
    any script), or the very contact."""
    intro = profile.get("intro") if isinstance(profile, dict) else None
    if not isinstance(intro, dict):
        return False
    theirs = intro.get("company")
    if company and isinstance(theirs, str) and theirs.casefold() == company.casefold():
        return True
    return bool(contact) and intro.get("contact") == contact


class CompletedBriefings:
    def completed(self) -> Iterable[PastBriefing]:
        # Streamed in chunks: the daily rebuild reads every completed briefing once.
        completed = Project.objects.filter(status=Project.Status.COMPLETED).order_by("id")
        return (_past(project) for project in completed.only(*FIELDS).iterator(chunk_size=1000))

    def completed_of(
        self, *, company: str, contact: str, exclude: int | None, limit: int
    ) -> list[PastBriefing]:
        projects = (
            Project.objects.filter(status=Project.Status.COMPLETED)
            .exclude(pk=exclude)
            .order_by("-completed_at")
            .only(*FIELDS)
        )
        if connection.vendor == "postgresql":
            match = Q(pk__in=[])
            if company:
                match |= Q(profile__intro__company__iexact=company)
            if contact:
                match |= Q(profile__intro__contact=contact)
            return [_past(project) for project in projects.filter(match)[:limit]]
        # SQLite folds only ASCII letters in iexact ("полярная ягода" is not "Полярная
        # Ягода" there): the embedded default's few briefings are compared here instead.
        return [
            _past(project)
            for project in projects
            if _same_client(project.profile, company=company, contact=contact)
        ][:limit]

    def client_erase(
        self, *, company: str, contact: str, actor: Any = None
    ) -> tuple[int, set[str]]:
        return client_briefings_erase(company=company, contact=contact, actor=actor)
