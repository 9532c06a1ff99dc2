"""Admin behaviour shared by the apps whose rows are an audit trail."""

from __future__ import annotations


class NoDeleteMixin:
    """An audited row: no delete page, no "delete selected" action, for superusers too."""

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyMixin(NoDeleteMixin):
    """A record written by the services only: shown, never added or edited here."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
