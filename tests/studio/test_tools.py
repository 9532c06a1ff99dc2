"""The studio's four tools on their own: what each returns from the data, and when each is
visible (its data exists)."""

from __future__ import annotations

import datetime

import pytest

from briefing.models import Project
from briefing.services import project_create
from llmkit.tools import ToolFailure, ToolSession
from studio.models import CalendarPeriod, PortfolioItem, RateCardItem
from studio.services import studio_demo_load
from studio.tools import (
    CalendarCheckArgs,
    ClientHistoryArgs,
    PortfolioSearchArgs,
    RateCardQuoteArgs,
    calendar_check,
    client_history,
    portfolio_search,
    rate_card_quote,
    studio_tools,
)

pytestmark = pytest.mark.django_db
TODAY = datetime.date(2027, 3, 1)  # a Monday


@pytest.fixture
def demo():
    studio_demo_load(today=TODAY)


def test_the_rate_card_matches_the_clients_words(demo):
    quote = rate_card_quote(RateCardQuoteArgs(query="нужен анимационный explainer"))
    assert quote.matched
    assert [(i.code, i.price_min, i.price_max) for i in quote.items] == [
        ("animation", 250_000, 800_000)
    ]
    nothing = rate_card_quote(RateCardQuoteArgs(query="торт на заказ"))
    assert not nothing.matched
    assert len(nothing.items) == RateCardItem.objects.count()  # the whole card to choose from


def test_an_empty_rate_card_is_a_tool_failure():
    with pytest.raises(ToolFailure):
        rate_card_quote(RateCardQuoteArgs(query="ролик"))


def test_the_portfolio_offers_only_works_that_may_be_shown(demo):
    found = portfolio_search(PortfolioSearchArgs(query="реклама финтех"))
    titles = [w.title for w in found.items]
    assert "Как работает облачная касса" in titles
    assert "Закрытый запуск продукта" not in titles  # under NDA
    assert PortfolioItem.objects.filter(may_be_shown=False).exists()


def test_the_calendar_counts_free_working_days_before_the_deadline(demo):
    # Busy from day 7 to day 20 (March 8–21), tentative from day 35 to 41 (April 5–11).
    early = calendar_check(CalendarCheckArgs(deadline=datetime.date(2027, 3, 19),
                                             working_days_needed=10), today=TODAY)  # fmt: skip
    assert early.working_days_until == 14  # March 2–19
    assert early.busy_working_days == 10  # March 8–19
    assert (early.free_working_days, early.verdict) == (4, "does_not_fit")
    later = calendar_check(CalendarCheckArgs(deadline=datetime.date(2027, 4, 9),
                                             working_days_needed=19), today=TODAY)  # fmt: skip
    assert later.tentative_working_days == 5  # April 5–9
    assert later.free_working_days == 29 - 10 - 5
    assert later.verdict == "tight"  # fits only if the tentative booking falls through
    assert (
        calendar_check(
            CalendarCheckArgs(deadline=datetime.date(2027, 4, 9), working_days_needed=14),
            today=TODAY,
        ).verdict
        == "fits"
    )
    with pytest.raises(ToolFailure, match="is not after today"):
        calendar_check(CalendarCheckArgs(deadline=TODAY), today=TODAY)


def test_client_history_finds_earlier_briefs_and_works_by_company(demo):
    earlier = project_create(title="Весенний ролик", language="ru")
    completed = datetime.datetime(2026, 5, 1, tzinfo=datetime.UTC)
    Project.objects.filter(pk=earlier.pk).update(
        status=Project.Status.COMPLETED, completed_at=completed,
        profile={"intro": {"company": "Полярная Ягода"}, "service": {"contentType": "Реклама"}},
    )  # fmt: skip
    current = project_create(title="Новый", language="ru")
    history = client_history(
        ClientHistoryArgs(company="полярная ягода"), exclude_project=current.pk
    )
    assert [(i.source, i.title, i.year) for i in history.items] == [
        ("brief", "Весенний ролик", 2026),
        ("work", "Клюквенный Север — весенняя кампания", 2025),
    ]
    mine = client_history(ClientHistoryArgs(company="Полярная Ягода"), exclude_project=earlier.pk)
    assert [i.source for i in mine.items] == ["work"]  # a briefing is not its own history
    with pytest.raises(ValueError, match="company or the contact"):
        ClientHistoryArgs()


def test_a_tool_is_visible_only_when_its_data_exists():
    def visible(**known):
        tools = studio_tools(today=TODAY, project_id=None, **known)
        return [t.name for t in ToolSession(tools).visible()]

    assert visible(company="Полярная Ягода") == []
    studio_demo_load(today=TODAY)
    assert visible() == ["rate_card_quote", "portfolio_search", "calendar_check"]
    assert visible(company="Полярная Ягода")[-1] == "client_history"
    assert "client_history" not in visible(company="Никому не известная")
    CalendarPeriod.objects.all().delete()
    assert "calendar_check" not in visible()


def test_client_history_finds_leads_by_the_exact_contact(demo):
    from crm.models import Lead

    now = datetime.datetime(2026, 4, 1, tzinfo=datetime.UTC)
    Lead.objects.create(
        last_message_at=now, channel="form", client_intent="quote_request",
        summary="Ролик к запуску морсов", emails=["oleg@polar-berry.ru"],
    )  # fmt: skip
    Lead.objects.create(last_message_at=now, channel="form", client_intent="question",
                        summary="Чужая заявка", emails=["not-oleg@polar-berry.ru"])  # fmt: skip
    history = client_history(ClientHistoryArgs(contact="oleg@polar-berry.ru"), exclude_project=None)
    assert [(i.source, i.title) for i in history.items] == [("lead", "Ролик к запуску морсов")]


def test_a_period_to_the_end_of_time_does_not_break_the_calendar(demo):
    CalendarPeriod.objects.create(
        starts_on=datetime.date(2027, 3, 15), ends_on=datetime.date.max, status="busy",
        source="planner", external_id="forever",
    )  # fmt: skip
    check = calendar_check(
        CalendarCheckArgs(deadline=datetime.date(2027, 3, 19), working_days_needed=2), today=TODAY
    )
    assert check.busy_working_days == 10  # March 8-19: the demo's booking and this one
    with pytest.raises(ToolFailure, match="more than 1098 days away"):
        calendar_check(CalendarCheckArgs(deadline=datetime.date(9999, 12, 31)), today=TODAY)
