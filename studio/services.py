"""Writes to the studio's data: the sample set for a new installation, and the calendar
periods the planning tools push."""

from __future__ import annotations

import datetime
from typing import Any

from django.db import transaction

from core.errors import ApplicationError
from studio.models import CalendarPeriod, PortfolioItem, RateCardItem

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
