"""Reads of the results table across briefings: its columns (one per stage field, with
human labels), the filtered set, a keyset page of it and each row's values, typed for the
page and the CSV and XLSX exports alike."""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from briefing.common.labels import field_label, label_language
from briefing.models import Project, StageRun
from briefing.reader.contacts import contacts_typed
from briefing.stages.registry import BRIEFING_TYPES, stage_title

ColumnKind = Literal["int", "text", "datetime", "field", "contacts", "requests"]

# The fixed columns before the stage fields, and their labels.
_FIXED: tuple[tuple[str, ColumnKind, dict[str, str]], ...] = (
    ("id", "int", {"ru": "№", "uk": "№", "en": "No."}),
    ("title", "text", {"ru": "Брифинг", "uk": "Брифінг", "en": "Briefing"}),
    ("status", "text", {"ru": "Статус", "uk": "Статус", "en": "Status"}),
    ("stage", "text", {"ru": "Этап", "uk": "Етап", "en": "Stage"}),
    ("producer", "text", {"ru": "Продюсер", "uk": "Продюсер", "en": "Producer"}),
    ("language", "text", {"ru": "Язык", "uk": "Мова", "en": "Language"}),
    ("created_at", "datetime", {"ru": "Начат", "uk": "Розпочато", "en": "Started"}),
    ("completed_at", "datetime", {"ru": "Завершён", "uk": "Завершено", "en": "Completed"}),
)
# The contact field split by kind (briefing.reader.contacts), a column each after the stages.
_CONTACTS_GROUP = {"ru": "Контакты", "uk": "Контакти", "en": "Contacts"}
_CONTACT_COLUMNS: tuple[tuple[str, dict[str, str]], ...] = (
    ("phones", {"ru": "Телефоны", "uk": "Телефони", "en": "Phones"}),
    ("emails", {"ru": "E-mail", "uk": "E-mail", "en": "E-mails"}),
    ("messengers", {"ru": "Мессенджеры", "uk": "Месенджери", "en": "Messengers"}),
    ("websites", {"ru": "Сайты", "uk": "Сайти", "en": "Websites"}),
)
_REQUESTS_LABEL = {
    "ru": "Дополнительные запросы",
    "uk": "Додаткові запити",
    "en": "Additional requests",
}
STATUS_LABELS = {
    "ru": {"active": "идёт", "paused": "на паузе", "completed": "завершён"},
    "uk": {"active": "триває", "paused": "на паузі", "completed": "завершено"},
    "en": {"active": "active", "paused": "paused", "completed": "completed"},
}
# What the stage column says of a briefing whose every stage is closed.
_ALL_CLOSED = {"ru": "все этапы закрыты", "uk": "усі етапи закрито", "en": "all stages closed"}


@dataclass(frozen=True)
class Column:
    key: str  # "title", or "<stage>.<field>" for a stage field
    label: str
    kind: ColumnKind
    stage_key: str = ""
    field: str = ""
    group: str = ""  # the stage's title, over its fields


def results_columns(*, language: str) -> list[Column]:
    """Every column, in order: the fixed ones, each stage's fields in the stage's order (the
    stages of every briefing type, a stage key once), the contacts by kind, then the
    additional requests."""
    language = label_language(language)
    columns = [Column(key, labels[language], kind) for key, kind, labels in _FIXED]
    seen: set[str] = set()
    for specs in BRIEFING_TYPES.values():
        for spec in specs:
            if spec.key in seen:
                continue
            seen.add(spec.key)
            group = stage_title(spec, language)
            columns += [
                Column(
                    f"{spec.key}.{name}",
                    field_label(spec.key, name, language),
                    "field",
                    stage_key=spec.key,
                    field=name,
                    group=group,
                )
                for name in spec.fields
            ]
    columns += [
        Column(f"contacts.{kind}", labels[language], "contacts", field=kind,
               group=_CONTACTS_GROUP[language])
        for kind, labels in _CONTACT_COLUMNS
    ]  # fmt: skip
    columns.append(Column("additional_requests", _REQUESTS_LABEL[language], "requests"))
    return columns


def stage_choices(*, language: str) -> list[tuple[str, str]]:
    """(stage key, its title) for the stage filter, every briefing type's stages once."""
    language = label_language(language)
    choices: dict[str, str] = {}
    for specs in BRIEFING_TYPES.values():
        for spec in specs:
            choices.setdefault(spec.key, stage_title(spec, language))
    return list(choices.items())


def results_filter(
    *,
    projects: QuerySet[Project],
    status: str = "",
    producer_id: int | None = None,
    started_from: datetime.date | None = None,
    started_to: datetime.date | None = None,
    stage: str = "",
) -> QuerySet[Project]:
    """The briefings of the table, newest first, each with `current_stage` (the first stage
    not closed; None when all are). `started_*` bound the day the briefing began, in the
    site's time zone, both ends included."""
    first_open = (
        StageRun.objects.filter(project=OuterRef("pk"))
        .exclude(status=StageRun.Status.CLOSED)
        .order_by("order")
        .values("key")[:1]
    )
    rows = projects.annotate(current_stage=Subquery(first_open))
    if status:
        rows = rows.filter(status=status)
    if producer_id is not None:
        rows = rows.filter(producer_id=producer_id)
    if started_from is not None:
        rows = rows.filter(created_at__gte=_day_start(started_from))
    if started_to is not None:
        rows = rows.filter(created_at__lt=_day_start(started_to + datetime.timedelta(days=1)))
    if stage:
        rows = rows.filter(current_stage=stage)
    return rows.select_related("producer").order_by("-pk")


def _day_start(day: datetime.date) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time.min))


def results_page(
    rows: QuerySet[Project], *, after: int | None, size: int
) -> tuple[list[Project], int | None]:
    """One page of `rows` (ordered by -pk) after the briefing `after`, and the key of the
    next page (None on the last): a keyset, so a briefing created meanwhile neither shifts
    nor repeats a row."""
    if after is not None:
        rows = rows.filter(pk__lt=after)
    page = list(rows[: size + 1])
    more = len(page) > size
    page = page[:size]
    return page, (page[-1].pk if more and page else None)


def results_values(project: Project, columns: Sequence[Column], *, language: str) -> list[Any]:
    """The row's values, typed: int, str, an aware datetime, a field's stored value (int,
    bool, list or str), a kind of contact as a list, the additional requests as a list of
    texts; None when unknown."""
    language = label_language(language)
    brief = project.brief if isinstance(project.brief, dict) else {}
    profile = project.profile if isinstance(project.profile, dict) else {}

    def stage_fields(key: str) -> dict[str, Any]:
        stage = brief.get(key) or profile.get(key) or {}
        return stage if isinstance(stage, dict) else {}

    contacts = None
    values: list[Any] = []
    for column in columns:
        if column.kind == "field":
            values.append(stage_fields(column.stage_key).get(column.field))
        elif column.kind == "contacts":
            if contacts is None:
                contacts = contacts_typed(stage_fields("intro").get("contact"))
            values.append(contacts[column.field])
        elif column.kind == "requests":
            requests = brief.get("additionalRequests") or []
            values.append([r.get("text", "") for r in requests if isinstance(r, dict)])
        else:
            values.append(_fixed_value(project, column.key, language))
    return values


def _fixed_value(project: Project, key: str, language: str) -> Any:
    if key == "id":
        return project.pk
    if key == "status":
        return STATUS_LABELS[language].get(project.status, project.status)
    if key == "stage":
        current = getattr(project, "current_stage", None)
        if current is None:
            return _ALL_CLOSED[language]
        return dict(stage_choices(language=language)).get(current, current)
    if key == "producer":
        return project.producer.get_username() if project.producer else None
    return getattr(project, key)


def results_iter(
    rows: QuerySet[Project], columns: Sequence[Column], *, language: str, chunk: int = 500
) -> Iterator[list[Any]]:
    """Every row's values, read `chunk` briefings at a time (an export of any size holds
    one chunk in memory, not the whole set)."""
    for project in rows.iterator(chunk_size=chunk):
        yield results_values(project, columns, language=language)


__all__ = [
    "STATUS_LABELS",
    "Column",
    "results_columns",
    "results_filter",
    "results_iter",
    "results_page",
    "results_values",
    "stage_choices",
]
