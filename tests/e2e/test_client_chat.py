"""The client's chat page in a real browser: a reply appears without a reload, and the page
still works with JavaScript turned off."""

from __future__ import annotations

import pytest

from briefing.services import project_create

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def project():
    return project_create(title="Кофейня «Зерно»", language="ru")


def test_the_reply_appears_without_a_reload(live_server, page, project):
    page.goto(f"{live_server.url}/c/{project.client_token}/")
    page.get_by_role("textbox").fill("Здравствуйте! Хотим снять ролик.")
    page.get_by_role("button", name="Отправить").click()
    bubbles = page.locator(".bubble")
    bubbles.filter(has_text="Хотим снять ролик").wait_for(timeout=2000)
    bubbles.filter(has_text="Как вас зовут").wait_for(timeout=2000)
    # No navigation happened: htmx swapped the conversation in place, the box is empty again.
    assert page.url.endswith(f"/c/{project.client_token}/")
    assert page.get_by_role("textbox").input_value() == ""


def test_messages_in_a_row_each_go_with_a_new_form_key(live_server, page, project):
    # htmx replaces the form after each post: a second message sent with the first one's key
    # would be refused as a reused form.
    page.goto(f"{live_server.url}/c/{project.client_token}/")
    for text in ("Здравствуйте! Хотим снять ролик.", "Меня зовут Анна"):
        page.get_by_role("textbox").fill(text)
        page.get_by_role("button", name="Отправить").click()
        page.locator(".bubble.client").filter(has_text=text).wait_for(timeout=2000)
    assert page.locator(".bubble.client").count() == 2
    assert page.get_by_role("alert").count() == 0


def test_a_message_past_the_rate_limit_is_refused_in_place(live_server, page, project, settings):
    from django.core.cache import cache

    settings.CLIENT_CHAT_RATE_PER_LINK = ["1/hour"]
    cache.clear()
    page.goto(f"{live_server.url}/c/{project.client_token}/")
    page.get_by_role("textbox").fill("Здравствуйте!")
    page.get_by_role("button", name="Отправить").click()
    page.locator(".bubble.client").wait_for(timeout=2000)
    page.get_by_role("textbox").fill("Ещё сообщение")
    page.get_by_role("button", name="Отправить").click()
    page.get_by_role("alert").filter(has_text="Слишком много сообщений").wait_for(timeout=2000)
    # Nothing sent, nothing lost: the text waits in the box.
    assert page.get_by_role("textbox").input_value() == "Ещё сообщение"
    assert page.locator(".bubble.client").count() == 1
    cache.clear()


def test_the_page_works_with_javascript_off(live_server, browser, project):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/c/{project.client_token}/")
        page.get_by_role("textbox").fill("<b>Привет</b>")
        page.get_by_role("button", name="Отправить").click()
        page.wait_for_load_state()
        assert page.locator(".bubble.client").inner_text() == "<b>Привет</b>"
        assert page.locator(".bubble").count() == 2  # the message and the agent's question
    finally:
        context.close()


def test_the_chat_fits_a_phone(live_server, browser, project):
    context = browser.new_context(viewport={"width": 375, "height": 700}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/c/{project.client_token}/")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375
    finally:
        context.close()


def test_without_javascript_the_reply_arrives_by_itself(live_server, browser, project, dead_broker):
    """The answer comes after the page loaded (no worker took the message yet): the page's
    refresh reloads it for real and the reply appears, no click needed."""
    from briefing.tasks import project_drain

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/c/{project.client_token}/")
        page.get_by_role("textbox").fill("Здравствуйте! Хотим снять ролик.")
        page.get_by_role("button", name="Отправить").click()
        page.wait_for_load_state()
        assert page.locator(".bubble.agent").count() == 0  # stored, not answered yet
        dead_broker()  # the broker is back
        project_drain.apply(args=[project.pk])  # and a worker answers
        page.locator(".bubble.agent").wait_for(timeout=10_000)
    finally:
        context.close()
