"""The inbox's actions in a real browser: a briefing's page keeps the tab title and the
navigation's unread count current as the inbox does; a canned reply goes into the message box
at the cursor without a request; and without JavaScript a new client link is asked for first
and a canned reply is inserted by a plain form. The conftest fails a test whose pages break
the Content-Security-Policy."""

from __future__ import annotations

import pytest

from briefing.models import Project, Turn
from briefing.services import canned_reply_save, project_create, turn_receive

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GREETING = "Здравствуйте! Я ваш продюсер."


def log_in(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "prod")
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def test_a_briefing_page_keeps_the_tab_title_and_unread_count_current(live_server, page, producer):
    watched = project_create(title="Watched", language="ru", producer=producer)
    other = project_create(title="Other", language="ru", producer=producer)
    log_in(page, live_server)
    page.goto(f"{live_server.url}/briefings/{watched.pk}/")
    assert page.title().startswith("Watched")
    assert page.locator("[data-nav-unread]").is_hidden()

    # A client of another briefing writes: this page's title and badge follow within seconds.
    turn_receive(project=other, text="Здравствуйте, есть вопрос")
    page.wait_for_function("() => document.title.startsWith('(1) Watched')", timeout=8000)
    page.locator("[data-nav-unread]:has-text('1')").wait_for(state="visible", timeout=2000)
    turn_receive(project=other, text="И ещё один")
    page.wait_for_function("() => document.title.startsWith('(2) ')", timeout=8000)


def test_a_canned_reply_goes_in_at_the_cursor_without_a_request(live_server, page, producer):
    project = project_create(title="Canned", language="ru", producer=producer)
    canned_reply_save(reply=None, title="Приветствие", language="ru", text=GREETING, user=producer)
    log_in(page, live_server)
    page.goto(f"{live_server.url}/briefings/{project.pk}/")
    box = page.locator("#message-text")
    box.fill("Анна, добрый день.")
    page.select_option("#canned-reply", label="Приветствие")
    requests = []
    page.on(
        "request", lambda request: requests.append(request) if request.method == "POST" else None
    )
    page.locator("[data-canned-insert]").click()
    assert box.input_value() == f"Анна, добрый день. {GREETING}"
    page.wait_for_function("() => document.activeElement.id === 'message-text'", timeout=2000)
    assert requests == []
    page.keyboard.press("Control+Enter")
    page.locator("#turns .turn.producer", has_text="Я ваш продюсер").wait_for(timeout=5000)
    assert Turn.objects.get(project=project, role=Turn.Role.PRODUCER).text == (
        f"Анна, добрый день. {GREETING}"
    )


def test_without_javascript_a_new_link_is_asked_for_and_a_reply_inserted(
    live_server, browser, producer
):
    project = project_create(title="No script", language="ru", producer=producer)
    canned_reply_save(reply=None, title="Приветствие", language="ru", text=GREETING, user=producer)
    old = project.client_token
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    try:
        log_in(page, live_server)
        page.goto(f"{live_server.url}/briefings/{project.pk}/")
        page.locator("form:has(input[name=confirm][value=rotate_link]) button").click()
        page.wait_for_url("**confirm=rotate_link**")
        assert Project.objects.get(pk=project.pk).client_token == old  # only asked so far
        page.locator("#link-confirm button[type=submit]").click()
        page.wait_for_load_state()
        token = Project.objects.get(pk=project.pk).client_token
        assert token not in (None, old)
        assert page.locator("#client-link").input_value().endswith(f"/c/{token}/")

        page.fill("#message-text", "Анна,")
        page.select_option("#canned-reply", label="Приветствие")
        page.locator("button[name=insert_canned]").click()
        page.wait_for_load_state()
        assert page.locator("#message-text").input_value() == f"Анна,\n\n{GREETING}"
        assert not Turn.objects.filter(project=project, role=Turn.Role.PRODUCER).exists()
        page.locator("#message-form button[type=submit]:not([name])").click()
        page.wait_for_load_state()
        sent = Turn.objects.get(project=project, role=Turn.Role.PRODUCER).text
        assert sent.replace("\r\n", "\n") == f"Анна,\n\n{GREETING}"  # a form posts CRLF
    finally:
        context.close()


def test_canned_replies_are_managed_on_their_page(live_server, page, producer):
    log_in(page, live_server)
    page.goto(f"{live_server.url}/replies/")
    page.fill("#new-title", "Сроки")
    page.select_option("#new-language", "ru")
    page.fill("#new-text", "Сроки пришлю завтра.")
    page.locator("form:has(input[name=action][value=add]) button[type=submit]").click()
    page.locator(".reply h3", has_text="Сроки").wait_for(timeout=3000)
    page.locator(".reply summary").click()
    page.locator(".reply textarea[name=text]").fill("Сроки пришлю сегодня.")
    page.locator(".reply form:has(input[name=action][value=edit]) button").click()
    page.locator(".reply-text", has_text="Сроки пришлю сегодня.").wait_for(timeout=3000)
    page.locator(".reply form:has(input[name=action][value=remove]) button").click()
    page.locator(".replies p.muted").wait_for(timeout=3000)
