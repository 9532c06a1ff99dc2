"""The studio's tools for the stage agents: rate_card_quote, portfolio_search,
calendar_check and client_history, each with a pydantic argument and result model, built
for one turn (the client's identity and the briefing being asked about are closed over)."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable

from django.db import connection
from pydantic import BaseModel, ConfigDict, Field, model_validator

from llmkit.tools import ToolFailure, ToolSpec
from studio.models import CalendarPeriod, PortfolioItem, RateCardItem
from studio.records import past_briefings, past_leads

DEFAULT_PRODUCTION_DAYS = 15
_WORD = re.compile(r"[\w-]+", re.UNICODE)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


# --- rate_card_quote -------------------------------------------------------------------------


class RateCardQuoteArgs(_Args):
    query: str = Field(
        min_length=1, max_length=300,
        description="What the client wants priced, in their words: 'рекламный ролик 30 секунд'",
    )  # fmt: skip


class RateCardQuote(BaseModel):
    code: str
    title: str
    unit: str
    price_min: int
    price_max: int
    currency: str
    price_factors: str
    production_days: int


class RateCardQuoteResult(BaseModel):
    matched: bool  # False: nothing matched the query, the whole card is listed
    items: list[RateCardQuote]


# --- portfolio_search ------------------------------------------------------------------------


class PortfolioSearchArgs(_Args):
    query: str = Field(
        min_length=1, max_length=300,
        description="What kind of work the client means: 'реклама продуктов питания'",
    )  # fmt: skip
    limit: int = Field(default=5, ge=1, le=20)


class PortfolioWork(BaseModel):
    title: str
    client: str
    kind: str
    year: int
    link: str


class PortfolioSearchResult(BaseModel):
    items: list[PortfolioWork]


# --- calendar_check --------------------------------------------------------------------------


class CalendarCheckArgs(_Args):
    deadline: datetime.date = Field(description="When the client needs the finished work")
    working_days_needed: int = Field(
        default=DEFAULT_PRODUCTION_DAYS, ge=1, le=365,
        description="Working days the job takes (the rate card's production_days)",
    )  # fmt: skip


class CalendarPeriodOut(BaseModel):
    starts_on: datetime.date
    ends_on: datetime.date
    status: str


class CalendarCheckResult(BaseModel):
    deadline: datetime.date
    working_days_until: int
    busy_working_days: int
    tentative_working_days: int
    free_working_days: int
    working_days_needed: int
    verdict: str  # fits | tight (only if a tentative booking falls through) | does_not_fit
    periods: list[CalendarPeriodOut]


# --- client_history --------------------------------------------------------------------------


class ClientHistoryArgs(_Args):
    company: str | None = Field(default=None, max_length=200)
    contact: str | None = Field(default=None, max_length=200, description="E-mail or phone")

    @model_validator(mode="after")
    def _one_key(self) -> ClientHistoryArgs:
        if not (self.company or self.contact):
            raise ValueError("give the company or the contact to look the client up by")
        return self


class ClientHistoryItem(BaseModel):
    source: str  # brief | lead | work
    title: str
    year: int
    detail: str


class ClientHistoryResult(BaseModel):
    items: list[ClientHistoryItem]


# --- the implementations ---------------------------------------------------------------------


def _stems(keywords: str) -> list[str]:
    return [w.rstrip("*").casefold() for w in keywords.split() if w.strip("*")]


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _matches(stem: str, words: Iterable[str]) -> bool:
    return any(word.startswith(stem) for word in words)


def rate_card_quote(args: RateCardQuoteArgs) -> RateCardQuoteResult:
    rows = list(RateCardItem.objects.filter(active=True).order_by("order", "code"))
    if not rows:
        raise ToolFailure("the rate card is empty")
    words = _words(args.query)
    scored = [(sum(_matches(s, words) for s in _stems(r.keywords)), r) for r in rows]
    best = max(score for score, _ in scored)
    chosen = [r for score, r in scored if score == best] if best else rows
    items = [
        RateCardQuote(code=r.code, title=r.title, unit=r.unit, price_min=r.price_min,
                      price_max=r.price_max, currency=r.currency, price_factors=r.price_factors,
                      production_days=r.production_days)
        for r in chosen
    ]  # fmt: skip
    return RateCardQuoteResult(matched=bool(best), items=items)


def portfolio_search(args: PortfolioSearchArgs) -> PortfolioSearchResult:
    # Short words ("у", "вас", "есть") say nothing about the kind of work.
    words = [w for w in _words(args.query) if len(w) > 4]
    scored = []
    for work in PortfolioItem.objects.filter(may_be_shown=True):
        text = " ".join([work.title, work.kind, work.description, *map(str, work.tags)])
        # A word matches a work when they share a stem of five letters (or the whole word).
        haystack = _words(text)
        score = sum(any(h.startswith(w[:5]) for h in haystack) for w in words)
        if score:
            scored.append((-score, -work.year, work.title, work))
    scored.sort(key=lambda row: row[:3])
    return PortfolioSearchResult(
        items=[
            PortfolioWork(title=w.title, client=w.client, kind=w.kind, year=w.year, link=w.link)
            for *_, w in scored[: args.limit]
        ]
    )


# How far ahead the calendar answers: a production is planned within this; a later date is
# a typo (or a probe: the day-by-day walk of "31 December 9999" cost 4 s of CPU).
CALENDAR_HORIZON_DAYS = 3 * 366


def _working_days(first: datetime.date, last: datetime.date) -> set[datetime.date]:
    """Monday to Friday from `first` to `last`, both included (ordinals: no date overflows,
    even at 9999-12-31)."""
    days = (datetime.date.fromordinal(n) for n in range(first.toordinal(), last.toordinal() + 1))
    return {day for day in days if day.weekday() < 5}


def calendar_check(args: CalendarCheckArgs, *, today: datetime.date) -> CalendarCheckResult:
    start = today + datetime.timedelta(days=1)
    if args.deadline < start:
        raise ToolFailure(f"the deadline {args.deadline.isoformat()} is not after today")
    if (args.deadline - today).days > CALENDAR_HORIZON_DAYS:
        raise ToolFailure(
            f"the deadline {args.deadline.isoformat()} is more than {CALENDAR_HORIZON_DAYS} "
            "days away: the calendar is not planned that far; ask the client to confirm it"
        )
    window = _working_days(start, args.deadline)
    periods = list(
        CalendarPeriod.objects.filter(starts_on__lte=args.deadline, ends_on__gte=start).order_by(
            "starts_on", "id"
        )
    )
    busy: set[datetime.date] = set()
    tentative: set[datetime.date] = set()
    for period in periods:  # only the part inside the window is walked
        days = _working_days(max(period.starts_on, start), min(period.ends_on, args.deadline))
        (busy if period.status == CalendarPeriod.Status.BUSY else tentative).update(days)
    tentative -= busy
    free = len(window) - len(busy) - len(tentative)
    needed = args.working_days_needed
    verdict = "fits" if free >= needed else "tight" if free + len(tentative) >= needed else (
        "does_not_fit"
    )  # fmt: skip
    return CalendarCheckResult(
        deadline=args.deadline, working_days_until=len(window), busy_working_days=len(busy),
        tentative_working_days=len(tentative), free_working_days=free,
        working_days_needed=needed, verdict=verdict,
        periods=[CalendarPeriodOut(starts_on=p.starts_on, ends_on=p.ends_on, status=p.status)
                 for p in periods],
    )  # fmt: skip


def client_history(args: ClientHistoryArgs, *, exclude_project: int | None) -> ClientHistoryResult:
    """The client's earlier completed briefs, leads and the works made for them, matched by
    company (case-insensitive) or by a contact that is an e-mail or phone."""
    items: list[ClientHistoryItem] = []
    company = (args.company or "").strip()
    contact = (args.contact or "").strip()
    earlier = past_briefings().completed_of(
        company=company, contact=contact, exclude=exclude_project, limit=10
    )
    for project in earlier:
        service = (project.profile or {}).get("service", {})
        detail = " ".join(str(v) for v in (service.get("contentType"), service.get("format")) if v)
        year = (project.completed_at or project.created_at).year
        items.append(ClientHistoryItem(source="brief", title=project.title, year=year,
                                       detail=detail))  # fmt: skip
    if contact:
        for lead in past_leads().with_contact(contact, limit=10):
            title = lead.summary or lead.product_class
            items.append(ClientHistoryItem(source="lead", title=title, year=lead.created_at.year,
                                           detail=lead.client_intent))  # fmt: skip
    if company:
        works = PortfolioItem.objects.order_by("-year")
        if connection.vendor == "postgresql":
            works = works.filter(client__iexact=company)
        else:
            works = [work for work in works if work.client.casefold() == company.casefold()]
        for work in works:
            items.append(ClientHistoryItem(source="work", title=work.title, year=work.year,
                                           detail=work.description))  # fmt: skip
    return ClientHistoryResult(items=items)


def studio_tools(
    *, today: datetime.date, project_id: int | None, company: str = "", contact: str = ""
) -> list[ToolSpec]:
    """The four tools for one turn. A tool is visible only when its data exists: the rate
    card has a row, the portfolio a work that may be shown, the calendar a period, and the
    client history a history to show for the client's company or contact."""

    def history_exists() -> bool:
        if not (company or contact):
            return False
        found = client_history(
            ClientHistoryArgs(company=company or None, contact=contact or None),
            exclude_project=project_id,
        )
        return bool(found.items)

    return [
        ToolSpec(
            name="rate_card_quote",
            description="The studio's price range for a kind of work, per unit, and what "
            "changes the price. Use it for any question about price or cost.",
            args_model=RateCardQuoteArgs, result_model=RateCardQuoteResult,
            run=rate_card_quote, reference=True, items="items",
            available=RateCardItem.objects.filter(active=True).exists,
        ),
        ToolSpec(
            name="portfolio_search",
            description="Finished works of the studio similar to what the client wants "
            "(title, client, year, link). Use it when the client asks for examples.",
            args_model=PortfolioSearchArgs, result_model=PortfolioSearchResult,
            run=portfolio_search, reference=True, items="items",
            available=PortfolioItem.objects.filter(may_be_shown=True).exists,
        ),
        ToolSpec(
            name="calendar_check",
            description="Whether the production calendar leaves enough free working days "
            "before a deadline. Use it when the client asks if the studio can make a date.",
            args_model=CalendarCheckArgs, result_model=CalendarCheckResult,
            run=lambda args: calendar_check(args, today=today), items="periods",
            available=CalendarPeriod.objects.exists,
        ),
        ToolSpec(
            name="client_history",
            description="The client's earlier briefs, leads and the works made for them. Use "
            "it when the client says they worked with the studio before.",
            args_model=ClientHistoryArgs, result_model=ClientHistoryResult,
            run=lambda args: client_history(args, exclude_project=project_id),
            reference=True, items="items", available=history_exists,
        ),
    ]  # fmt: skip
