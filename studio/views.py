"""The studio's back-office pages: the rate card, the portfolio and the production calendar
that the bot quotes, listed, added, changed and deleted by whoever holds the model's
permission (studio.add_…, change_…, delete_…; view_… or change_… to see a list). Each change
goes through studio.services, so it is validated and recorded in the audit trail that each
list shows at its foot. Plain forms: every page works without JavaScript."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_GET, require_http_methods

from config.http import HtmxHttpRequest
from core.errors import ApplicationError, ErrorCode
from studio import services
from studio.forms import FORMS
from studio.models import CalendarPeriod, PortfolioItem, RateCardItem, StudioChange
from studio.selectors import studio_changes

FORM_TEMPLATE = "studio/item_form.html"
DELETE_TEMPLATE = "studio/item_delete.html"
INDEX_TEMPLATE = "studio/index.html"
# The changes a list shows at its foot, and the index across the sections.
CHANGES_SHOWN = 20


@dataclass(frozen=True)
class Section:
    """One part of the studio's data: its model, address and words."""

    slug: str
    model: type[models.Model]
    key: str  # StudioChange.Section
    title: Promise
    add_label: Promise
    new_title: Promise
    template: str

    def perm(self, action: str) -> str:
        return f"studio.{action}_{self.model._meta.model_name}"


SECTIONS = {
    section.slug: section
    for section in (
        Section(
            "rate-card", RateCardItem, StudioChange.Section.RATE_CARD, _lazy("Rate card"),
            _lazy("Add a service"), _lazy("New service"), "studio/rate_card.html",
        ),
        Section(
            "portfolio", PortfolioItem, StudioChange.Section.PORTFOLIO, _lazy("Portfolio"),
            _lazy("Add a work"), _lazy("New work"), "studio/portfolio.html",
        ),
        Section(
            "calendar", CalendarPeriod, StudioChange.Section.CALENDAR,
            _lazy("Production calendar"), _lazy("Add a period"), _lazy("New period"),
            "studio/calendar.html",
        ),
    )
}  # fmt: skip


def may_see(user: Any, section: Section) -> bool:
    return user.has_perm(section.perm("view")) or user.has_perm(section.perm("change"))


def _section_for_user(request: HtmxHttpRequest, slug: str, action: str) -> Section:
    """The section, when the user may do `action` on it ("see": view or change; else a model
    permission's action); 404 for an unknown section, 403 without the permission."""
    section = SECTIONS.get(slug)
    if section is None:
        raise Http404("No such part of the studio's data")
    if action == "see":
        allowed = may_see(request.user, section)
    else:
        allowed = request.user.has_perm(section.perm(action))
    if not allowed:
        raise PermissionDenied
    return section


def _get_item_for_user(request: HtmxHttpRequest, section: Section, pk: int) -> models.Model:
    # Every row of a section is the studio's: who may act on one may act on all.
    return get_object_or_404(section.model, pk=pk)


@dataclass
class FieldChange:
    label: str
    old: Any
    new: Any


@dataclass
class ChangeView:
    change: StudioChange
    section: Section
    who: str
    fields: list[FieldChange]


def _shown(value: Any, choices: dict[str, str]) -> Any:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, str) and value in choices:
        return choices[value]  # a code ("busy") as its label
    return "—" if value in (None, "") else value


def _change_views(changes: list[StudioChange]) -> list[ChangeView]:
    """The changes with each changed field under its form's label and each code as its label
    (a field no form shows, such as a pushed period's source, under its name)."""
    by_key = {section.key: section for section in SECTIONS.values()}
    fields_of = {key: FORMS[section.model]().fields for key, section in by_key.items()}
    views = []
    for change in changes:
        form_fields = fields_of[change.section]
        fields = []
        if change.kind == StudioChange.Kind.CHANGED:
            for name, values in change.changes.items():
                if not isinstance(values, dict):
                    continue
                field = form_fields.get(name)
                label = str(field.label) if field is not None else name
                choices = {
                    str(code): str(text) for code, text in getattr(field, "choices", None) or ()
                }
                old, new = _shown(values.get("old"), choices), _shown(values.get("new"), choices)
                fields.append(FieldChange(label, old, new))
        section = by_key[change.section]
        views.append(ChangeView(change, section, _person(change.user), fields))
    return views


def _person(user: Any) -> str:
    if user is None:
        return "—"
    return user.get_full_name() or user.get_username()


# --- the pages ---------------------------------------------------------------------------------


@login_required
@require_GET
def studio_index(request: HtmxHttpRequest) -> HttpResponse:
    """The parts of the studio's data the user may see, with how many rows each has, and the
    latest changes to them."""
    sections = [s for s in SECTIONS.values() if may_see(request.user, s)]
    if not sections:
        raise PermissionDenied
    changes = list(studio_changes(sections=[s.key for s in sections])[:CHANGES_SHOWN])
    context = {
        "sections": [(s, s.model.objects.count()) for s in sections],
        "changes": _change_views(changes),
    }
    return render(request, INDEX_TEMPLATE, context)


@login_required
@require_GET
def item_list(request: HtmxHttpRequest, section: str) -> HttpResponse:
    """Every row of one part of the studio's data, with the links to change them and the
    latest changes to this part."""
    part = _section_for_user(request, section, "see")
    changes = list(studio_changes(sections=[part.key])[:CHANGES_SHOWN])
    context = {
        "section": part,
        "items": part.model.objects.all(),
        "changes": _change_views(changes),
        **_permissions(request, part),
    }
    return render(request, part.template, context)


def _permissions(request: HtmxHttpRequest, section: Section) -> dict[str, bool]:
    return {
        "can_add": request.user.has_perm(section.perm("add")),
        "can_change": request.user.has_perm(section.perm("change")),
        "can_delete": request.user.has_perm(section.perm("delete")),
    }


def _values(form: Any) -> dict[str, Any]:
    return {name: form.cleaned_data[name] for name in form.Meta.fields}


def _form_page(
    request: HtmxHttpRequest, section: Section, form: Any, item: models.Model | None, label: str
) -> HttpResponse:
    changes = (
        list(studio_changes(sections=[section.key], item_id=item.pk)[:CHANGES_SHOWN])
        if item is not None
        else []
    )
    context = {
        "section": section,
        "form": form,
        "item": item,
        "label": label,
        "changes": _change_views(changes),
        **_permissions(request, section),
    }
    return render(request, FORM_TEMPLATE, context, status=400 if form.errors else 200)


def _refused(form: Any, error: ApplicationError | ValidationError) -> None:
    """A refusal the form could not foresee (a row saved by someone else meanwhile) on top
    of the form."""
    if isinstance(error, ApplicationError):
        if error.code == ErrorCode.NOT_FOUND:
            raise Http404(error.message)
        form.add_error(None, error.message)
    else:
        form.add_error(None, " ".join(error.messages))


@login_required
@require_http_methods(["GET", "POST"])
def item_new(request: HtmxHttpRequest, section: str) -> HttpResponse:
    part = _section_for_user(request, section, "add")
    form = FORMS[part.model](request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            item = services.studio_item_create(
                model=part.model, values=_values(form), user=request.user
            )
        except (ApplicationError, ValidationError) as error:
            _refused(form, error)
        else:
            messages.success(request, _("Added: “%(item)s”.") % {"item": services.item_label(item)})
            return redirect("studio:list", section=part.slug)
    return _form_page(request, part, form, None, "")


@login_required
@require_http_methods(["GET", "POST"])
def item_edit(request: HtmxHttpRequest, section: str, pk: int) -> HttpResponse:
    part = _section_for_user(request, section, "change")
    item = _get_item_for_user(request, part, pk)
    label = services.item_label(item)  # as stored: a form that fails keeps what was typed
    form = FORMS[part.model](request.POST or None, instance=item)
    if request.method == "POST" and form.is_valid():
        try:
            change = services.studio_item_update(item=item, values=_values(form), user=request.user)
        except (ApplicationError, ValidationError) as error:
            _refused(form, error)
        else:
            text = _("Saved: “%(item)s”.") if change else _("Nothing changed in “%(item)s”.")
            messages.success(request, text % {"item": services.item_label(item)})
            return redirect("studio:list", section=part.slug)
    return _form_page(request, part, form, item, label)


@login_required
@require_http_methods(["GET", "POST"])
def item_delete(request: HtmxHttpRequest, section: str, pk: int) -> HttpResponse:
    """GET asks to confirm; POST deletes (the audit trail keeps the row's values)."""
    part = _section_for_user(request, section, "delete")
    item = _get_item_for_user(request, part, pk)
    if request.method == "POST":
        try:
            services.studio_item_delete(item=item, user=request.user)
        except ApplicationError as error:
            if error.code == ErrorCode.NOT_FOUND:
                raise Http404(error.message) from None
            raise
        messages.success(request, _("Deleted: “%(item)s”.") % {"item": services.item_label(item)})
        return redirect("studio:list", section=part.slug)
    context = {"section": part, "item": item, "label": services.item_label(item)}
    return render(request, DELETE_TEMPLATE, context)
