"""The producer's working day in a real browser: log in, find the briefing, watch a client
message arrive without a reload, correct a field, take over and answer; correct what memory
holds about a returning client."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model

from briefing.models import BriefingEvent, Project, StageRun
from briefing.services import project_create
from studio.memory import snapshot_for_profile, snapshots_rebuild

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def log_in(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "prod")
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def test_a_producers_day(live_server, browser, page, producer):
    project = project_create(title="Promo", language="ru", producer=producer)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server)
    assert page.locator("#rows .project-row").count() == 1
    page.goto(f"{live_server.url}/briefings/{project.pk}/")
    url = page.url

    # The client chats through their link in a second browser context.
    client_context = browser.new_context(viewport={"width": 390, "height": 780})
    chat = client_context.new_page()
    try:
        chat.goto(f"{live_server.url}/c/{project.client_token}/")
        chat.get_by_role("textbox").fill("Здравствуйте, это Анна из «Зерна»")
        chat.get_by_role("button", name="Отправить").click()

        # The producer sees the message and the agent's reply without a reload.
        turns = page.locator("#transcript .turn-text")
        turns.filter(has_text="это Анна из «Зерна»").wait_for(timeout=2000)
        # (The reader took the name and company from it: the agent asks what is still missing.)
        # The first turn of a fresh process loads the reader's dictionaries: seconds, not ms.
        page.locator("#transcript .turn.agent .turn-text").first.wait_for(timeout=10000)
        assert page.url == url

        # An invalid correction shows its error in place; a valid one is saved.
        card = page.locator("#stage-budget")
        card.locator("input#f-budget-budget").fill("a lot")
        card.locator("tr:has(#f-budget-budget) button").click()
        page.locator("#stage-budget .error").wait_for()
        assert "is not an amount" in page.locator("#stage-budget .error").inner_text()
        page.locator("input#f-budget-budget").fill("450 000")
        page.locator("#stage-budget tr:has(#f-budget-budget) button").click()
        # A function, not an expression: Playwright evals expressions, which the CSP forbids.
        page.wait_for_function("() => document.querySelector('#stage-budget .error') === null")
        assert StageRun.objects.get(project=project, key="budget").fields["budget"] == 450_000

        # The producer locks the product name; the stage field follows the lock.
        locks = page.locator("#locks")
        locks.locator("select[name=key]").select_option("product_name")
        locks.locator("input[name=value]").last.fill("Кофейни «Зерно»")
        locks.locator("button:has-text('Lock')").last.click()
        # Shown under the label of the field it holds, not its key.
        page.locator("#locks").get_by_role("rowheader", name="Product", exact=True).wait_for()
        assert StageRun.objects.get(project=project, key="vision").fields["productName"] == (
            "Кофейни «Зерно»"
        )

        # Force-closing a stage with missing fields asks for a reason.
        page.locator("#stage-intro button:has-text('Force-close')").click()
        page.locator("#stage-intro .error").wait_for()
        assert "give a reason" in page.locator("#stage-intro .error").inner_text()

        # Take over and answer: the message appears on the client's page.
        page.locator("#controls button:has-text('Take over')").click()
        page.locator("#controls button:has-text('Release')").wait_for()
        page.fill("#message-text", "Привет от продюсера")
        page.locator("#composer button").click()
        page.locator("#transcript .turn.producer").wait_for()
        assert page.locator("#message-text").input_value() == ""
        page.locator("#status:has-text('taken over by prod')").wait_for()
        chat.locator(".bubble", has_text="Привет от продюсера").wait_for(timeout=7000)
    finally:
        client_context.close()
    assert not errors, errors


def test_another_producers_briefing_is_not_found(live_server, page, producer):
    other = get_user_model().objects.create_user("other", password="pw")
    project = project_create(title="Not yours", language="ru", producer=other)
    log_in(page, live_server)
    response = page.goto(f"{live_server.url}/briefings/{project.pk}/")
    assert response.status == 404
    page.goto(f"{live_server.url}/")
    assert page.locator("#rows .project-row").count() == 0


def test_the_producer_corrects_what_memory_holds_for_the_client(live_server, page, producer):
    intro = {"company": "Полярная Ягода", "contact": "oleg@polar-berry.ru"}
    earlier = project_create(title="Весенний ролик", language="ru")
    Project.objects.filter(pk=earlier.pk).update(
        status=Project.Status.COMPLETED,
        completed_at=datetime.datetime(2026, 5, 3, tzinfo=datetime.UTC),
        profile={"intro": intro, "vision": {"productName": "Клюквенный Север"}},
    )
    snapshots_rebuild()
    project = project_create(title="Летний ролик", language="ru", producer=producer)
    Project.objects.filter(pk=project.pk).update(profile={"intro": intro})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server)
    page.goto(f"{live_server.url}/briefings/{project.pk}/")
    url = page.url

    memory = page.locator("#memory")
    row = memory.locator("tr", has=page.get_by_role("rowheader", name="Products", exact=True))
    row.locator("input[name=value]").fill("Клюквенный Север 2.0")
    row.get_by_role("button", name="Save").click()
    page.locator("#status", has_text="corrected to “Клюквенный Север 2.0”").wait_for()
    assert "- products: Клюквенный Север 2.0" in snapshot_for_profile({"intro": intro})

    memory.get_by_role("button", name="Remove “Клюквенный Север 2.0”").click()
    page.locator("#status", has_text="“Клюквенный Север 2.0” removed").wait_for()
    page.get_by_role("rowheader", name="Products", exact=True).wait_for(state="detached")
    assert "products" not in snapshot_for_profile({"intro": intro})
    events = project.events.filter(kind=BriefingEvent.Kind.MEMORY_CORRECTED)
    assert [(e.data["old"], e.data["new"]) for e in events.order_by("id")] == [
        ("Клюквенный Север", "Клюквенный Север 2.0"),
        ("Клюквенный Север 2.0", ""),
    ]
    assert page.url == url  # swapped in place, no reload
    assert not errors, errors
