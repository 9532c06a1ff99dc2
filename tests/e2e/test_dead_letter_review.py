"""A manager in a real browser opens the biggest group of dead letters, fixes one, and sees
the briefing advance."""

from __future__ import annotations

import pytest
from django.db import transaction

from briefing.models import StageRun
from briefing.services import project_create, turn_receive
from dlq.models import DeadLetter
from dlq.services import llm_chain
from tests.briefing.conftest import FIXED_INTRO
from tests.conftest import user_in_group
from tests.llmkit.wire_servers import JsonReply, WireServer, openai_completion

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_manager_fixes_a_dead_letter_and_the_briefing_advances(live_server, page, monkeypatch):
    manager = user_in_group("boss", "Managers")
    project = project_create(title="Promo", language="ru", producer=manager)
    with WireServer() as server:
        monkeypatch.setenv("LLM_PROVIDERS", "openai")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url("/v1"))
        monkeypatch.setenv("OPENAI_MODEL", "scripted")
        llm_chain.cache_clear()
        try:
            path = "/v1/chat/completions"
            server.route(path, JsonReply(openai_completion("I am not sure what you mean.")))
            with transaction.atomic():
                turn_receive(project=project, text="Анна, +7 916 123-45-67, нужен ролик")
            letter = DeadLetter.objects.get()

            page.goto(f"{live_server.url}/login/")
            page.fill("input[name=username]", "boss")
            page.fill("input[name=password]", "pw")
            page.click("button[type=submit]")
            page.goto(f"{live_server.url}/dlq/dead-letters/")
            # The biggest group first; open it, then its dead letter.
            page.locator("tbody tr").first.locator("a").first.click()
            page.locator(f"a[href='/dlq/dead-letters/{letter.pk}/']").click()
            # The stage's fields as labelled inputs, not JSON to hand-write.
            form = page.locator("#fix-form")
            form.get_by_label("Message to the client").fill(FIXED_INTRO["message"])
            form.get_by_label("Client name", exact=True).fill(FIXED_INTRO["clientName"])
            form.get_by_label("Contact", exact=True).fill(FIXED_INTRO["contact"])
            form.get_by_label("Project type", exact=True).fill(FIXED_INTRO["projectType"])
            form.get_by_label("The stage is complete").check()
            form.get_by_role("button", name="Apply").click()
            page.locator(".dl-status.fixed").wait_for()

            page.goto(f"{live_server.url}/briefings/{project.pk}/")
            # The manager's message, then the next stage's question (written by code).
            reply = page.locator("#transcript .turn-text", has_text="Как называется продукт")
            reply.wait_for()
            assert reply.inner_text().startswith(FIXED_INTRO["message"])
        finally:
            llm_chain.cache_clear()
    assert StageRun.objects.get(project=project, key="intro").status == "closed"
    assert StageRun.objects.get(project=project, key="vision").status == "open"
