"""The results table across briefings (a row per briefing, a column per field) and its CSV
and XLSX exports of the filtered set. A producer sees their own briefings, a manager all."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required, permission_required
from django.db.models import QuerySet
from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from briefing.common.access import projects_for_user
from briefing.common.labels import label_language
from briefing.models import Project
from briefing.results.exports import cell_text, csv_lines, xlsx_write
from briefing.results.table import (
    STATUS_LABELS,
    results_columns,
    results_filter,
    results_iter,
    results_page,
    results_values,
    stage_choices,
)
from config.http import HtmxHttpRequest
from core.input import plain_int

RESULTS_TEMPLATE = "briefing/results.html"
PAGE_SIZE = 50


class ResultsFilterForm(forms.Form):
    status = forms.ChoiceField(required=False)
    producer = forms.ModelChoiceField(
        required=False, queryset=get_user_model().objects.none(), empty_label="—"
    )
    started_from = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    started_to = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    stage = forms.ChoiceField(required=False)

    def __init__(
        self, *args: Any, projects: QuerySet[Project], language: str, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["status"].choices = [("", "—"), *STATUS_LABELS[language].items()]
        self.fields["stage"].choices = [("", "—"), *stage_choices(language=language)]
        self.fields["producer"].queryset = (
            get_user_model()
            .objects.filter(pk__in=projects.exclude(producer=None).values("producer"))
            .order_by("username")
        )
        labels = _FORM_LABELS[language]
        for name, label in labels.items():
            self.fields[name].label = label

    def rows(self, projects: QuerySet[Project]) -> QuerySet[Project]:
        """The filtered briefings; a filter that does not validate filters nothing (a stale
        link still shows the table), its error shown beside it."""
        data = self.cleaned_data if self.is_valid() else {}
        producer = data.get("producer")
        return results_filter(
            projects=projects,
            status=data.get("status") or "",
            producer_id=producer.pk if producer else None,
            started_from=data.get("started_from"),
            started_to=data.get("started_to"),
            stage=data.get("stage") or "",
        )


_FORM_LABELS = {
    "ru": {
        "status": "Статус",
        "producer": "Продюсер",
        "started_from": "Начат с",
        "started_to": "по",
        "stage": "Этап",
    },
    "uk": {
        "status": "Статус",
        "producer": "Продюсер",
        "started_from": "Розпочато з",
        "started_to": "по",
        "stage": "Етап",
    },
    "en": {
        "status": "Status",
        "producer": "Producer",
        "started_from": "Started from",
        "started_to": "to",
        "stage": "Stage",
    },
}


PAGE_TEXTS = {
    "ru": {
        "title": "Результаты",
        "filter": "Показать",
        "reset": "Сбросить",
        "more": "Ещё",
        "first": "К началу",
        "none": "Нет брифингов с такими условиями.",
        "export": "Выгрузить",
        "shown": "Показаны брифинги, начатые последними; выгрузка берёт все подходящие.",
    },
    "uk": {
        "title": "Результати",
        "filter": "Показати",
        "reset": "Скинути",
        "more": "Ще",
        "first": "На початок",
        "none": "Немає брифінгів за цими умовами.",
        "export": "Вивантажити",
        "shown": "Показано брифінги, розпочаті останніми; вивантаження бере всі відповідні.",
    },
    "en": {
        "title": "Results",
        "filter": "Filter",
        "reset": "Reset",
        "more": "More",
        "first": "Back to the newest",
        "none": "No briefings match these filters.",
        "export": "Export",
        "shown": "The most recently started briefings first; an export holds every match.",
    },
}


def _language(request: HtmxHttpRequest) -> str:
    return label_language(getattr(request, "LANGUAGE_CODE", None) or get_language())


def _filtered(request: HtmxHttpRequest, language: str) -> tuple[ResultsFilterForm, QuerySet]:
    visible = projects_for_user(request.user)
    form = ResultsFilterForm(request.GET or None, projects=visible, language=language)
    if form.is_bound:
        return form, form.rows(visible)
    return form, results_filter(projects=visible)


def _query_without(request: HtmxHttpRequest, *names: str) -> str:
    query = request.GET.copy()
    for name in names:
        query.pop(name, None)
    return query.urlencode()


@login_required
@permission_required("briefing.view_project", raise_exception=True)
@require_GET
def results(request: HtmxHttpRequest) -> HttpResponse:
    """The table, a page at a time (`after`: the last briefing shown); with htmx, the next
    page's rows only, appended under the ones already shown."""
    language = _language(request)
    form, rows = _filtered(request, language)
    after = plain_int(request.GET.get("after", ""))
    page, next_after = results_page(rows, after=after, size=PAGE_SIZE)
    columns = results_columns(language=language)
    table = [
        (project, [cell_text(v, language=language) for v in results_values(
            project, columns, language=language
        )])
        for project in page
    ]  # fmt: skip
    filters = _query_without(request, "after")
    context = {
        "t": PAGE_TEXTS[language],
        "filters": form,
        "columns": columns,
        "groups": _groups(columns),
        "table": table,
        "next_after": next_after,
        "filter_query": filters,
        "paged": after is not None,
    }
    template = f"{RESULTS_TEMPLATE}#page" if request.htmx else RESULTS_TEMPLATE
    return render(request, template, context)


def _groups(columns: list) -> list[tuple[str, int]]:
    """The header's top row: (the stage's title or "", how many columns it spans)."""
    groups: list[tuple[str, int]] = []
    for column in columns:
        if groups and groups[-1][0] == column.group:
            groups[-1] = (column.group, groups[-1][1] + 1)
        else:
            groups.append((column.group, 1))
    return groups


@login_required
@permission_required("briefing.view_project", raise_exception=True)
@require_GET
def results_export(request: HtmxHttpRequest, fmt: str) -> HttpResponse:
    """The filtered set (every page of it) as CSV or XLSX."""
    language = _language(request)
    _, rows = _filtered(request, language)
    columns = results_columns(language=language)
    values = results_iter(rows, columns, language=language)
    stamp = timezone.localtime().strftime("%Y-%m-%d-%H%M")
    if fmt == "csv":
        response = StreamingHttpResponse(
            csv_lines(columns, values, language=language), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="briefs-{stamp}.csv"'
        return response
    if fmt == "xlsx":
        title = {"ru": "Брифы", "uk": "Брифи", "en": "Briefs"}[language]
        workbook = xlsx_write(columns, values, language=language, title=title)
        return FileResponse(
            workbook,
            as_attachment=True,
            filename=f"briefs-{stamp}.xlsx",
            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )
    return HttpResponse("unknown format", status=404)
