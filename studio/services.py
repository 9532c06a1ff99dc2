"""Writes to the studio's data: the sample set for a new installation, the calendar periods
the planning tools push, and a person's edits on the back office (each one recorded in the
audit trail, StudioChange, with who, when and every field's old and new value)."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from django.db import models, transaction

from core.errors import ApplicationError, ErrorCode
from studio.models import CalendarPeriod, PortfolioItem, RateCardItem, StudioChange

# The sample rate card (RUB): code → fields. Keywords are stems a client uses in ru/uk/en.
DEMO_RATE_CARD: dict[str, dict[str, Any]] = {
    "promo-video": {
        "title": "Рекламный ролик", "kind": "video", "unit": "ролик до 60 секунд",
        "price_min": 350_000, "price_max": 1_200_000, "production_days": 20,
        "price_factors": "число съёмочных дней, актёры и локации, графика, права на музыку",
        "keywords": "реклам* ролик* видео* відео* commercial* promo* advert* video*", "order": 1,
    },
    "animation": {
        "title": "Анимационный ролик (2D, моушн-дизайн)", "kind": "animation",
        "unit": "минута анимации", "price_min": 250_000, "price_max": 800_000,
        "production_days": 25, "price_factors": "стиль и сложность анимации, озвучка, раскадровка",
        "keywords": "анимац* анімац* моушн* мульт* animat* motion* explainer* 2d", "order": 2,
    },
    "corporate-film": {
        "title": "Имиджевый фильм о компании", "kind": "video", "unit": "фильм до 5 минут",
        "price_min": 400_000, "price_max": 1_500_000, "production_days": 30,
        "price_factors": "число интервью и локаций, командировки, архивные материалы",
        "keywords": "имидж* корпоратив* фильм* фільм* корпоратив* corporate* brand* film*",
        "order": 3,
    },
    "music-video": {
        "title": "Музыкальный клип", "kind": "music_video", "unit": "клип",
        "price_min": 300_000, "price_max": 1_000_000, "production_days": 20,
        "price_factors": "сценарий, декорации, число смен, спецэффекты",
        "keywords": "клип* кліп* music* video-clip*", "order": 4,
    },
    "event-filming": {
        "title": "Съёмка мероприятия", "kind": "event", "unit": "съёмочный день",
        "price_min": 80_000, "price_max": 200_000, "production_days": 5,
        "price_factors": "число камер, трансляция, срочный монтаж в день события",
        "keywords": "мероприят* конференц* событ* подій* захід* event* conference*", "order": 5,
    },
    "shooting-day": {
        "title": "Съёмочный день (команда и техника)", "kind": "video", "unit": "смена 10 часов",
        "price_min": 120_000, "price_max": 250_000, "production_days": 3,
        "price_factors": "состав группы, камера и свет, переработка сверх 10 часов",
        "keywords": "смен* съёмочн* знімальн* shoot* crew*", "order": 6,
    },
}  # fmt: skip

DEMO_PORTFOLIO: list[dict[str, Any]] = [
    {"title": "Клюквенный Север — весенняя кампания", "client": "Полярная Ягода",
     "kind": "video", "tags": ["реклама", "еда", "продукты", "ягоды", "food"], "year": 2025,
     "link": "https://example.com/work/polar-berry-spring",
     "description": "Рекламный ролик 30 секунд и версия 15 секунд для ТВ и интернета"},
    {"title": "Открытие шоурума «Автомир»", "client": "Автомир", "kind": "video",
     "tags": ["реклама", "авто", "ритейл", "cars"], "year": 2024,
     "link": "https://example.com/work/avtomir-showroom",
     "description": "Рекламный ролик к открытию шоурума"},
    {"title": "Как работает облачная касса", "client": "КассаПро", "kind": "animation",
     "tags": ["анимация", "объясняющее видео", "финтех", "explainer", "fintech"], "year": 2025,
     "link": "https://example.com/work/kassapro-explainer",
     "description": "Анимационный ролик 90 секунд о продукте"},
    {"title": "Кофейня на углу", "client": "Ember Roasters", "kind": "video",
     "tags": ["реклама", "еда", "кофе", "coffee", "food", "social"], "year": 2024,
     "link": "https://example.com/work/ember-roasters",
     "description": "Серия коротких роликов для соцсетей"},
    {"title": "Форум «Цифровая индустрия»", "client": "Минцифры региона", "kind": "event",
     "tags": ["мероприятие", "конференция", "event"], "year": 2025,
     "link": "https://example.com/work/digital-forum",
     "description": "Съёмка двухдневного форума и ролик-итог"},
    {"title": "Ночной город", "client": "группа «Маяки»", "kind": "music_video",
     "tags": ["клип", "музыка", "music"], "year": 2023,
     "link": "https://example.com/work/mayaki-night-city", "description": "Музыкальный клип"},
    {"title": "25 лет на рынке", "client": "СтройИнвест", "kind": "video",
     "tags": ["имиджевый фильм", "корпоративное", "corporate"], "year": 2024,
     "link": "https://example.com/work/stroyinvest-25",
     "description": "Имиджевый фильм о компании, 4 минуты"},
    # Made under a non-disclosure agreement: it is in the portfolio, never offered to clients.
    {"title": "Закрытый запуск продукта", "client": "Банк под NDA", "kind": "video",
     "tags": ["реклама", "финтех", "fintech"], "year": 2025, "may_be_shown": False,
     "link": "https://example.com/work/nda", "description": "Рекламный ролик под NDA"},
]  # fmt: skip

# Calendar periods relative to the day the sample is loaded: (first day, last day, status, note).
DEMO_CALENDAR: list[tuple[int, int, str, str]] = [
    (7, 20, CalendarPeriod.Status.BUSY, "Съёмки сериала для онлайн-кинотеатра"),
    (35, 41, CalendarPeriod.Status.TENTATIVE, "Фестивальный проект (ждём подтверждения)"),
    (60, 74, CalendarPeriod.Status.BUSY, "Производство рекламной кампании"),
]
DEMO_SOURCE = "demo"


@transaction.atomic
def studio_demo_load(*, today: datetime.date) -> dict[str, int]:
    """Load the sample rate card, portfolio and calendar; loading twice changes nothing
    (rows are keyed by code, title and year, and the calendar's demo ids)."""
    created = {"rate_card": 0, "portfolio": 0, "calendar": 0}
    for code, fields in DEMO_RATE_CARD.items():
        _, made = RateCardItem.objects.get_or_create(code=code, defaults=fields)
        created["rate_card"] += made
    for fields in DEMO_PORTFOLIO:
        _, made = PortfolioItem.objects.get_or_create(
            title=fields["title"], year=fields["year"], defaults=fields
        )
        created["portfolio"] += made
    for index, (first, last, status, note) in enumerate(DEMO_CALENDAR, start=1):
        _, made = CalendarPeriod.objects.get_or_create(
            source=DEMO_SOURCE, external_id=f"demo-{index}",
            defaults={"starts_on": today + datetime.timedelta(days=first),
                      "ends_on": today + datetime.timedelta(days=last), "status": status,
                      "note": note},
        )  # fmt: skip
        created["calendar"] += made
    return created


def studio_is_empty() -> bool:
    return not (
        RateCardItem.objects.exists()
        or PortfolioItem.objects.exists()
        or CalendarPeriod.objects.exists()
    )


def calendar_period_upsert(
    *,
    source: str,
    external_id: str,
    starts_on: datetime.date,
    ends_on: datetime.date,
    status: str,
    note: str = "",
) -> tuple[CalendarPeriod, bool]:
    """A planning tool's period, created or replaced by (source, its own id)."""
    if not external_id:
        raise ApplicationError("external_id is required: a period is replaced by its id")
    period = CalendarPeriod.objects.filter(source=source, external_id=external_id).first()
    created = period is None
    period = period or CalendarPeriod(source=source, external_id=external_id)
    period.starts_on, period.ends_on, period.status, period.note = (
        starts_on, ends_on, status, note,
    )  # fmt: skip
    period.full_clean()
    period.save()
    return period, created


def calendar_period_delete(*, source: str, external_id: str) -> bool:
    deleted, _ = CalendarPeriod.objects.filter(source=source, external_id=external_id).delete()
    return bool(deleted)


# --- a person's edits on the back office -------------------------------------------------------

# Which part of the studio's data each editable model is (the audit trail's section).
SECTIONS: dict[type[models.Model], str] = {
    RateCardItem: StudioChange.Section.RATE_CARD,
    PortfolioItem: StudioChange.Section.PORTFOLIO,
    CalendarPeriod: StudioChange.Section.CALENDAR,
}


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def _values(item: models.Model) -> dict[str, Any]:
    """The row's values a person can change (not its id, not an automatic time)."""
    return {
        field.name: _jsonable(field.value_from_object(item))
        for field in item._meta.concrete_fields
        if field.editable and not field.primary_key
    }


def _section(model: type[models.Model]) -> str:
    if model not in SECTIONS:
        raise ApplicationError(f"{model.__name__} is not edited on the studio's pages")
    return SECTIONS[model]


def _assign(item: models.Model, values: Mapping[str, Any]) -> None:
    editable = set(_values(item))
    unknown = sorted(set(values) - editable)
    if unknown:
        raise ApplicationError(f"no such field: {', '.join(unknown)}")
    for name, value in values.items():
        setattr(item, name, value)


def item_label(item: models.Model) -> str:
    """How a row is named in messages and the audit trail, in no language of its own (a
    period's status is a code: its dates name it)."""
    if isinstance(item, CalendarPeriod):
        return f"{item.starts_on.isoformat()} – {item.ends_on.isoformat()}"
    return str(item)


def _record(
    *, item: models.Model, kind: str, user: Any, changes: dict[str, dict[str, Any]]
) -> StudioChange:
    return StudioChange.objects.create(
        user=user if getattr(user, "pk", None) else None, kind=kind,
        section=_section(type(item)), item_id=item.pk, item_label=item_label(item)[:300],
        changes=changes,
    )  # fmt: skip


@transaction.atomic
def studio_item_create(
    *, model: type[models.Model], values: Mapping[str, Any], user: Any
) -> models.Model:
    """A new rate card service, portfolio work or calendar period, validated and recorded."""
    _section(model)
    item = model()
    _assign(item, values)
    item.full_clean()
    item.save()
    new = _values(item)
    changes = {name: {"new": value} for name, value in new.items() if value not in ("", None, [])}
    _record(item=item, kind=StudioChange.Kind.CREATED, user=user, changes=changes)
    return item


@transaction.atomic
def studio_item_update(
    *, item: models.Model, values: Mapping[str, Any], user: Any
) -> StudioChange | None:
    """Change a row of the studio's data: validated, and recorded with each changed field's
    old and new value (the old ones read under the row's lock, so two people saving at once
    are recorded in order). None when nothing changed: nothing is recorded."""
    model = type(item)
    _section(model)
    locked = model.objects.select_for_update().filter(pk=item.pk).first()
    if locked is None:
        raise ApplicationError("it was deleted meanwhile", code=ErrorCode.NOT_FOUND)
    old = _values(locked)
    _assign(locked, values)
    locked.full_clean()
    new = _values(locked)
    changes = {
        name: {"old": old[name], "new": value} for name, value in new.items() if old[name] != value
    }
    if not changes:
        return None
    locked.save()
    return _record(item=locked, kind=StudioChange.Kind.CHANGED, user=user, changes=changes)


@transaction.atomic
def studio_item_delete(*, item: models.Model, user: Any) -> StudioChange:
    """Delete a row of the studio's data, keeping its values in the audit trail."""
    model = type(item)
    _section(model)
    locked = model.objects.select_for_update().filter(pk=item.pk).first()
    if locked is None:
        raise ApplicationError("it was deleted meanwhile", code=ErrorCode.NOT_FOUND)
    old = _values(locked)
    kept = {name: {"old": value} for name, value in old.items() if value not in ("", None, [])}
    change = _record(item=locked, kind=StudioChange.Kind.DELETED, user=user, changes=kept)
    locked.delete()
    return change
