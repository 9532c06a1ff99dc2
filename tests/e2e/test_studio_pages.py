"""The studio's data on the back office in a real browser with JavaScript off (issue 27,
item 10): a producer given the permissions finds the pages in the navigation, adds a service
to the rate card through labelled inputs, sees an error at its field, hides a portfolio work
from clients and deletes a calendar period after confirming; a manager starts a lead's
briefing for a producer picked by full name."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import Permission

from briefing.models import Project
from crm.models import InboundMessage, Lead
from studio.models import CalendarPeriod, PortfolioItem, RateCardItem, StudioChange
from tests.conftest import user_in_group

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def no_js_page(browser):
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, java_script_enabled=False
    )
    yield context.new_page()
    context.close()


def log_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw")
    page.click("form.login button[type=submit]")
    page.wait_for_url(f"{base}/")


def test_a_producer_edits_the_studios_data_without_javascript(live_server, no_js_page, producer):
    producer.user_permissions.add(*Permission.objects.filter(content_type__app_label="studio"))
    work = PortfolioItem.objects.create(
        title="Кофейня на углу", kind="video", year=2024, link="https://example.com/ember"
    )
    period = CalendarPeriod.objects.create(
        starts_on=datetime.date(2031, 3, 1), ends_on=datetime.date(2031, 3, 10), note="Сериал"
    )
    page, base = no_js_page, live_server.url
    log_in(page, base, "prod")

    page.locator("header.top nav").get_by_role("link", name="Studio data").click()
    page.get_by_role("link", name="Rate card").click()
    page.get_by_role("link", name="Add a service").click()
    page.get_by_label("Service").fill("Съёмка подкаста")
    page.get_by_label("Code").fill("podcast")
    page.get_by_label("Kind of work").fill("video")
    page.get_by_label("Unit").fill("выпуск")
    page.get_by_label("Lowest price").fill("150 000")
    page.get_by_label("Highest price").fill("60 000")
    page.get_by_role("button", name="Save").click()
    assert page.locator(".error[role=alert]").inner_text() == (
        "The highest price is below the lowest."
    )
    assert page.get_by_label("Service").input_value() == "Съёмка подкаста"
    assert not RateCardItem.objects.exists()
    page.get_by_label("Highest price").fill("250 000")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"{base}/studio/rate-card/")
    assert "Съёмка подкаста" in page.locator("table.studio-items").inner_text()
    assert RateCardItem.objects.get().price_max == 250_000

    page.goto(f"{base}/studio/portfolio/{work.pk}/")
    page.get_by_label("May be shown to clients").uncheck()
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"{base}/studio/portfolio/")
    assert "hidden from clients" in page.locator(f"tr[data-item='{work.pk}']").inner_text()
    work.refresh_from_db()
    assert not work.may_be_shown

    page.goto(f"{base}/studio/calendar/")
    page.locator(f"tr[data-item='{period.pk}']").get_by_role("link", name="Delete").click()
    assert CalendarPeriod.objects.filter(pk=period.pk).exists()
    page.get_by_role("button", name="Delete").click()
    page.wait_for_url(f"{base}/studio/calendar/")
    assert not CalendarPeriod.objects.exists()
    assert list(StudioChange.objects.order_by("id").values_list("kind", "section")) == [
        ("created", "rate_card"), ("changed", "portfolio"), ("deleted", "calendar"),
    ]  # fmt: skip
    changes = page.locator("#studio-changes").inner_text()
    assert "2031-03-01 – 2031-03-10" in changes


def test_a_manager_starts_a_leads_briefing_for_a_producer_picked_by_name(
    live_server, page, producer
):
    user_in_group("boss", "Managers", first_name="Мария", last_name="Сидорова")
    petrov = user_in_group("petrov", "Producers", first_name="Пётр", last_name="Петров")
    lead = Lead.objects.create(
        channel=InboundMessage.Channel.FORM, client_intent="new_project", language="ru",
        client_name="Светлана Гурьева", product_class="event_filming", budget_amount=450_000,
        budget_currency="RUB",
        last_message_at=datetime.datetime.now(datetime.UTC),
    )  # fmt: skip
    base = live_server.url
    log_in(page, base, "boss")
    page.goto(f"{base}/crm/leads/{lead.pk}/")
    producer_select = page.get_by_label("Producer")
    assert producer_select.locator("option:checked").inner_text() == "Мария Сидорова"
    producer_select.select_option(label="Пётр Петров")
    page.get_by_role("button", name="Start a briefing").click()
    page.wait_for_url(f"{base}/briefings/*/")
    project = Project.objects.get()
    assert project.producer == petrov
    assert project.stages.get(key="budget").fields["budget"] == 450_000
    page.goto(f"{base}/c/{project.client_token}/")
    assert "Event filming" not in page.content()
    assert "Светлана Гурьева" in page.locator(".title").inner_text()
