"""The roles: Producers run the briefings assigned to them; Managers see and act on all,
and review dead letters. Created by a data migration and kept after every migrate/flush."""

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
]
ROLES = {"Producers": PRODUCER_PERMISSIONS, "Managers": MANAGER_PERMISSIONS}


def roles_ensure(*, group_model, permission_model) -> None:
    """Create the groups with exactly their permissions. Takes the models as arguments so a
    migration can pass its historical ones."""
    for name, pairs in ROLES.items():
        group, _ = group_model.objects.get_or_create(name=name)
        group.permissions.set(
            permission_model.objects.get(content_type__app_label=app, codename=codename)
            for app, codename in pairs
        )


def roles_ensure_after_migrate(sender, **kwargs) -> None:
    """post_migrate: a flush (tests) or a fresh database gets the roles back. The apps'
    permissions are made first: post_migrate reaches the apps one at a time."""
    from django.apps import apps
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Group, Permission

    for app_config in apps.get_app_configs():
        create_permissions(app_config, verbosity=0, using=kwargs.get("using", "default"))
    roles_ensure(group_model=Group, permission_model=Permission)
