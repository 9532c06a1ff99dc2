"""The inbox and the threads in a real browser: the order of who needs the producer, unread
counts in the rows, the navigation and the tab title; a transcript that stays at the bottom
while messages arrive and shows a marker when scrolled up; keyboard-only taking over and
sending; the client's page while paused and without JavaScript."""

from __future__ import annotations

import pytest

from briefing.models import Project, Turn
from briefing.services import project_create, project_pause, turn_append, turn_receive

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def log_in(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "prod")
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def agent_lines(project, count: int) -> None:
    for n in range(count):
        turn_append(project=project, role=Turn.Role.AGENT, text=f"Строка ответа номер {n}")


def test_the_inbox_orders_counts_and_titles(live_server, page, producer):
    quiet = project_create(title="Quiet", language="ru", producer=producer)
    turn_receive(project=quiet, text="Здравствуйте!")
    waiting = project_create(title="Waiting", language="ru", producer=producer)
    project_pause(project=waiting, user=producer)
    turn_receive(project=waiting, text="Вы здесь?")
    log_in(page, live_server)
    rows = page.locator("#rows .project-row")
    # The briefing whose client waits for a person comes first, though the other is newer.
    assert rows.nth(0).get_attribute("data-project") == str(waiting.pk)
    assert rows.nth(0).get_attribute("data-needs") == "client_waiting"
    assert rows.nth(1).get_attribute("data-project") == str(quiet.pk)
    assert page.title().startswith("(2) ")
    assert page.locator("[data-nav-unread]").inner_text() == "2"

    # The producer opts in to notifications for their briefings.
    page.context.grant_permissions(["notifications"])
    page.locator("[data-notify-toggle]").click()
    page.locator("[data-notify-toggle][aria-pressed=true]").wait_for(timeout=2000)

    # A new client message reaches the open dashboard through its refresh, and notifies.
    turn_receive(project=quiet, text="Ещё вопрос")
    page.wait_for_function("() => document.title.startsWith('(3) ')", timeout=8000)
    page.locator("[data-nav-unread]:has-text('3')").wait_for(timeout=2000)
    page.wait_for_function("() => document.body.dataset.notified === '1'", timeout=2000)

    # Opening the briefing marks it read; back on the dashboard the count drops.
    page.goto(f"{live_server.url}/briefings/{quiet.pk}/")
    page.goto(f"{live_server.url}/")
    assert page.title().startswith("(1) ")
    assert page.locator(f"tr[data-project='{quiet.pk}']").get_attribute("data-unread") == "0"


def test_the_transcript_stays_at_the_bottom_or_shows_a_marker(live_server, page, producer):
    project = project_create(title="Long talk", language="ru", producer=producer)
    agent_lines(project, 40)
    log_in(page, live_server)
    page.goto(f"{live_server.url}/briefings/{project.pk}/")
    at_bottom = (
        "() => { const t = document.querySelector('#turns');"
        " return t.scrollHeight - t.scrollTop - t.clientHeight < 48; }"
    )
    page.wait_for_function(at_bottom, timeout=2000)

    # At the bottom: a new message is appended and followed.
    turn_append(project=project, role=Turn.Role.AGENT, text="Новое сообщение внизу")
    page.locator("#turns .turn-text", has_text="Новое сообщение внизу").wait_for(timeout=3000)
    page.wait_for_function(at_bottom, timeout=2000)
    assert page.locator("[data-new-marker]").is_hidden()

    # Scrolled up: the place is kept and the marker says there is more.
    page.locator("#turns .turn").first.scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('#turns').scrollTop < 50")
    turn_append(project=project, role=Turn.Role.AGENT, text="Ещё одно сообщение")
    page.locator("#turns .turn-text", has_text="Ещё одно сообщение").wait_for(timeout=3000)
    page.locator("[data-new-marker]").wait_for(state="visible", timeout=2000)
    assert page.evaluate("() => document.querySelector('#turns').scrollTop") < 50
    # The turns shown were not re-rendered: the first one is the same element.
    page.locator("[data-new-marker]").click()
    page.wait_for_function(at_bottom, timeout=2000)
    assert page.locator("[data-new-marker]").is_hidden()


def test_taking_over_and_sending_by_keyboard_only(live_server, browser, page, producer):
    project = project_create(title="Keyboard", language="ru", producer=producer)
    log_in(page, live_server)
    page.goto(f"{live_server.url}/briefings/{project.pk}/")
    # By the form's action, not the label: the back office may speak Russian.
    take_over = page.locator("#controls form:has(input[value=takeover]) button")
    take_over.focus()
    page.keyboard.press("Enter")
    page.locator("#controls form:has(input[value=release]) button").wait_for()
    # Focus went where the work goes on: the message box.
    page.wait_for_function("() => document.activeElement.id === 'message-text'", timeout=2000)
    page.keyboard.type("Здравствуйте, я ваш продюсер.")
    page.keyboard.press("Control+Enter")
    page.locator("#turns .turn.producer", has_text="я ваш продюсер").wait_for(timeout=3000)
    page.wait_for_function(
        "() => document.activeElement.id === 'message-text' && document.activeElement.value === ''",
        timeout=2000,
    )
    assert Project.objects.get(pk=project.pk).taken_over_by_id == producer.pk

    # The client sees the producer's name on a message that looks different from the bot's,
    # and sends with Ctrl+Enter too.
    context = browser.new_context(viewport={"width": 390, "height": 780})
    chat = context.new_page()
    try:
        chat.goto(f"{live_server.url}/c/{project.client_token}/")
        bubble = chat.locator(".bubble.producer")
        assert "prod" in bubble.locator(".author").inner_text()
        chat.locator("#composer-text").focus()
        chat.keyboard.type("Спасибо!")
        chat.keyboard.press("Control+Enter")
        chat.locator(".bubble.client", has_text="Спасибо!").wait_for(timeout=3000)
    finally:
        context.close()


def test_the_clients_page_while_paused_promises_a_person_not_typing(live_server, browser, producer):
    project = project_create(title="Пауза", language="ru", producer=producer)
    project_pause(project=project, user=producer)
    context = browser.new_context(viewport={"width": 390, "height": 780})
    chat = context.new_page()
    try:
        chat.goto(f"{live_server.url}/c/{project.client_token}/")
        chat.get_by_role("textbox").fill("Есть кто-нибудь?")
        chat.get_by_role("button", name="Отправить").click()
        chat.locator(".bubble.client", has_text="Есть кто-нибудь?").wait_for(timeout=3000)
        chat.locator(".notice", has_text="Ваш продюсер ответит вам").wait_for(timeout=3000)
        assert chat.locator(".typing").count() == 0
    finally:
        context.close()


def test_the_clients_page_without_javascript_lands_on_the_newest_message(
    live_server, browser, producer
):
    project = project_create(title="Без JS", language="ru", producer=producer)
    agent_lines(project, 30)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 700})
    chat = context.new_page()
    try:
        chat.goto(f"{live_server.url}/c/{project.client_token}/")
        chat.get_by_role("textbox").fill("Последнее сообщение")
        chat.get_by_role("button", name="Отправить").click()
        chat.wait_for_load_state()
        assert chat.url.endswith("#latest")
        box = chat.locator(".bubble.client", has_text="Последнее сообщение").bounding_box()
        assert box is not None
        assert 0 <= box["y"] < 700  # on screen, not 2,000 px down
    finally:
        context.close()


def test_the_clients_page_follows_new_replies(live_server, browser, producer):
    project = project_create(title="Телефон", language="ru", producer=producer)
    agent_lines(project, 30)
    context = browser.new_context(viewport={"width": 390, "height": 700})
    chat = context.new_page()
    try:
        chat.goto(f"{live_server.url}/c/{project.client_token}/")
        at_bottom = (
            "() => { const e = document.scrollingElement;"
            " return e.scrollHeight - e.scrollTop - e.clientHeight < 48; }"
        )
        chat.wait_for_function(at_bottom, timeout=2000)
        turn_append(
            project=project, role=Turn.Role.PRODUCER, text="Ответ продюсера", author=producer
        )
        chat.locator(".bubble.producer", has_text="Ответ продюсера").wait_for(timeout=8000)
        chat.wait_for_function(at_bottom, timeout=2000)
    finally:
        context.close()


def test_a_message_carried_by_two_responses_shows_once(live_server, page, producer):
    """A poll in flight while the producer sends a message can carry the new message too; the
    stale response is replayed here (a poll from before the last two turns) and the thread
    still shows each message once."""
    project = project_create(title="Race", language="ru", producer=producer)
    agent_lines(project, 3)
    log_in(page, live_server)
    page.goto(f"{live_server.url}/briefings/{project.pk}/")
    page.locator("#turns .turn").nth(2).wait_for()
    stale_poll = f"/briefings/{project.pk}/?after=1&open=0&seqs="
    page.evaluate("url => htmx.ajax('GET', url, {source: '#poller', swap: 'none'})", stale_poll)
    page.wait_for_timeout(1500)  # the replayed response and the next regular poll settle
    ids = page.eval_on_selector_all("#turns .turn", "turns => turns.map(t => t.id)")
    assert ids == ["turn-1", "turn-2", "turn-3"]
