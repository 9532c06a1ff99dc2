"""The roles: Producers run the briefings assigned to them; Managers see and act on all,
review dead letters and work the leads. Created by a data migration and kept after every
migrate/flush."""

from __future__ import annotations

PRODUCER_PERMISSIONS = [
    ("briefing", "view_project"),
    ("briefing", "add_project"),
    ("briefing", "change_project"),
    ("briefing", "view_turn"),
    ("briefing", "add_turn"),
    ("briefing", "view_stagerun"),
    ("briefing", "change_stagerun"),
    ("briefing", "view_lockedentity"),
    ("briefing", "change_lockedentity"),
    ("briefing", "view_briefingevent"),
]
MANAGER_PERMISSIONS = [
    *PRODUCER_PERMISSIONS,
    ("briefing", "view_all_projects"),
    ("dlq", "view_deadletter"),
    ("dlq", "change_deadletter"),
    ("dlq", "view_structuredcall"),
    ("crm", "view_lead"),
    ("crm", "change_lead"),
    ("crm", "view_inboundmessage"),
    ("crm", "change_inboundmessage"),
    # what the bot quotes: the studio data pages (studio/views.py)
    *[
        ("studio", f"{action}_{model}")
        for model in ("ratecarditem", "portfolioitem", "calendarperiod")
        for action in ("view", "add", "change", "delete")
    ],
]
ROLES = {"Producers": PRODUCER_PERMISSIONS, "Managers": MANAGER_PERMISSIONS}


def roles_ensure(*, group_model, permission_model) -> None:
    """Give the groups exactly their permissions. Takes the models as arguments so a
    migration can pass its historical ones; a permission of an app not migrated yet is
    added by the post_migrate run that follows every migrate."""
    from django.db.models import Q

    for name, pairs in ROLES.items():
        group, _ = group_model.objects.get_or_create(name=name)
        wanted = Q(pk__in=[])
        for app, codename in pairs:
            wanted |= Q(content_type__app_label=app, codename=codename)
        group.permissions.set(permission_model.objects.filter(wanted))


def roles_ensure_after_migrate(sender, **kwargs) -> None:
    """post_migrate: a flush (tests) or a fresh database gets the roles back. The apps'
    permissions are made first: post_migrate reaches the apps one at a time."""
    from django.apps import apps
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Group, Permission

    for app_config in apps.get_app_configs():
        create_permissions(app_config, verbosity=0, using=kwargs.get("using", "default"))
    roles_ensure(group_model=Group, permission_model=Permission)
