"""Calendar arithmetic for the deadline resolvers: months and business days added to a
date, the end of a month, and a day-month resolved to the next date it can be."""

from __future__ import annotations

import calendar
import datetime


def add_months(day: datetime.date, months: int) -> datetime.date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return datetime.date(year, month + 1, min(day.day, last))


def month_end(year: int, month: int) -> datetime.date:
    return datetime.date(year, month, calendar.monthrange(year, month)[1])


def add_business_days(day: datetime.date, count: int) -> datetime.date:
    rest = count  # at most a few hundred: counting day by day is fine
    while rest:
        day += datetime.timedelta(days=1)
        if day.weekday() < 5:
            rest -= 1
    return day


def shifted(today: datetime.date, amount: float, unit: str, business: bool) -> datetime.date:
    whole = int(amount)
    fraction = amount - whole
    if unit == "day":
        days = whole + (1 if fraction else 0)
        if business:
            return add_business_days(today, days)
        return today + datetime.timedelta(days=days)
    if unit == "week":
        return today + datetime.timedelta(days=round(amount * 7))
    if unit == "month":
        return add_months(today, whole) + datetime.timedelta(days=round(fraction * 30))
    # year
    return add_months(today, whole * 12 + round(fraction * 12))


def next_yearly(month: int, day: int, today: datetime.date) -> datetime.date | None:
    """The first month/day on or after today (Feb 29 waits for a leap year)."""
    for year in range(today.year, today.year + 9):
        try:
            candidate = datetime.date(year, month, day)
        except ValueError:
            continue
        if candidate >= today:
            return candidate
    return None


def year_of(text: str | None) -> int | None:
    if not text:
        return None
    value = int(text)
    return 2000 + value if value < 100 else value


def absolute_date(
    year: int | None, month: int, day: int, today: datetime.date
) -> datetime.date | None:
    if year is None:
        return next_yearly(month, day, today)
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None
