"""Who may see which briefing: a producer sees the briefings assigned to them; a user with
`view_all_projects` (managers) sees all. Outsiders get a 404, never a 403."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from briefing.models import Project


def projects_for_user(user) -> QuerySet[Project]:
    if user.has_perm("briefing.view_all_projects"):
        return Project.objects.all()
    return Project.objects.filter(producer=user)


def project_for_user(user, pk: int) -> Project:
    if not user.has_perm("briefing.view_project"):
        raise Http404("No such briefing")
    return get_object_or_404(projects_for_user(user), pk=pk)


def project_for_client(token: str) -> Project:
    """The client's page is reached by its unguessable link only; a rotated or revoked
    link is a 404 like any other."""
    if not token:
        raise Http404("No such briefing")
    return get_object_or_404(Project, client_token=token)
