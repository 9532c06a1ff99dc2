"""A manager in a real browser reads a greeting-only message of the human queue into a lead
by hand and starts the client's briefing from it."""

from __future__ import annotations

import pytest
from django.utils import timezone

from briefing.models import Project
from crm.models import InboundMessage, Lead
from crm.services import Inbound, inbound_store
from tests.conftest import user_in_group

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def log_in(page, live_server, username: str) -> None:
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def test_a_manager_creates_a_lead_by_hand_and_starts_its_briefing(live_server, page):
    user_in_group("boss", "Managers")
    # Autocommit (a transactional test): the reading runs on commit, at once (eager Celery).
    message, _ = inbound_store(
        Inbound(
            channel=InboundMessage.Channel.EMAIL,
            sender="anna@example.ru",
            subject="Привет",
            body_text="Добрый день!",
            received_at=timezone.now(),
        )
    )
    message.refresh_from_db()
    assert message.status == InboundMessage.Status.HUMAN
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    log_in(page, live_server, "boss")
    page.get_by_role("link", name="Leads").click()
    page.get_by_role("link", name="Human queue (1)").click()
    item = page.locator(f"#human-message-{message.pk}")
    assert "nothing to act on" in item.inner_text()
    queue_url = page.url

    # The form starts from the greeting's reading; the manager adds what they know.
    item.get_by_label("Intent").select_option("new_project")
    item.get_by_label("Client name").fill("Анна Петрова")
    item.get_by_label("Phones").fill("8 916 123-45-67")
    item.get_by_label("Asks to be called back").check()
    item.get_by_role("button", name="Create lead by hand").click()

    # The queue item turns into a line naming the new lead, without leaving the page.
    created = page.locator(f"#human-message-{message.pk}.lead-created")
    created.wait_for(timeout=5000)
    assert page.url == queue_url
    lead = Lead.objects.get()
    assert f"Lead #{lead.pk} created" in created.inner_text()
    created.get_by_role("link").click()

    page.wait_for_url(f"{live_server.url}/crm/leads/{lead.pk}/")
    assert page.locator("h1").inner_text() == f"Lead #{lead.pk}: Анна Петрова"
    assert "+79161234567" in page.locator("#field-phones").inner_text()
    page.get_by_role("button", name="Start a briefing").click()

    page.wait_for_url(f"{live_server.url}/briefings/*/")
    project = Project.objects.get()
    assert page.url == f"{live_server.url}/briefings/{project.pk}/"
    assert "Анна Петрова" in page.locator(".page-head").inner_text()
    assert (project.client_name, project.client_contact) == ("Анна Петрова", "+79161234567")
    assert errors == []
