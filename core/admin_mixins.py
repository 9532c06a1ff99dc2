"""Admin behaviour shared by the apps whose rows are an audit trail."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


def code_shown(code: str) -> str:
    """A code an administrator types (a catalogue's, a price's kind) shown as code, the way
    the back office quotes one, not as a word of the office."""
    return format_html("<code>{}</code>", code) if code else "-"


def labelled_column(field: str, description: Any, label: Callable[[str], Any]) -> Callable:
    """A change list's column of `field` under the label the back office shows for its code
    (`label(code)`), for a field whose codes are labelled elsewhere than in its choices."""

    @admin.display(description=description, ordering=field)
    def column(obj) -> str:
        code = getattr(obj, field)
        return str(label(code)) if code else "-"

    column.__name__ = field
    return column


def labelled_filter(field: str, title: Any, label: Callable[[str], Any]) -> type:
    """A change list's filter on `field`'s stored codes, each under `label(code)`."""

    class LabelledFilter(admin.SimpleListFilter):
        parameter_name = field

        def lookups(self, request, model_admin) -> list[tuple[str, str]]:
            codes = (
                model_admin.get_queryset(request).exclude(**{field: ""})
                .order_by(field).values_list(field, flat=True).distinct()
            )  # fmt: skip
            return [(code, str(label(code))) for code in codes]

        def queryset(self, request, queryset):
            return queryset.filter(**{field: self.value()}) if self.value() else queryset

    LabelledFilter.title = title
    return LabelledFilter
