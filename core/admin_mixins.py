"""Admin behaviour shared by the apps whose rows are an audit trail."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _


class NoDeleteMixin:
    """An audited row: no delete page, no "delete selected" action, for superusers too."""

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class NoEditMixin:
    """A row written by the services only (each change validated, and recorded where a person
    makes it): shown, never added or edited here, for superusers too. Whether it may be
    deleted is the admin's own decision; ReadOnlyMixin refuses that as well. Works on a
    ModelAdmin and on an inline."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyMixin(NoEditMixin, NoDeleteMixin):
    """A record written by the services only: shown, never added, edited or deleted here."""


class BackOfficeLinkMixin:
    """A read-only change page that says where the row is changed: first on the page, a link
    to the back-office page whose service checks and records the change. The admin names the
    page with `back_office_url(obj)` and the link's words with `back_office_text`."""

    back_office_text: str

    def back_office_url(self, obj) -> str | None:
        raise NotImplementedError

    @admin.display(description=_("Where to change it"))
    def back_office(self, obj) -> str:
        url = self.back_office_url(obj) if obj is not None else None
        if not url:
            return "-"
        return format_html('<a href="{}">{}</a>', url, self.back_office_text)

    def get_readonly_fields(self, request, obj=None):
        return ("back_office", *super().get_readonly_fields(request, obj))

    def get_fields(self, request, obj=None):
        fields = [name for name in super().get_fields(request, obj) if name != "back_office"]
        return ["back_office", *fields]
