"""The client's chat page: only the conversation, reached by its link; works without JS."""

from __future__ import annotations

import hashlib
import logging
import re
import threading

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client

from briefing.models import Turn
from briefing.services import client_message_receive, project_create
from briefing.tasks import turns_sweep
from briefing.turn import limits

pytestmark = pytest.mark.django_db


def chat_url(project):
    return f"/c/{project.client_token}/"


def test_an_unknown_link_is_a_404_in_the_browsers_language(client):
    for language, words in (("uk", "Такої сторінки немає"), ("en", "There is no such page")):
        page = client.get("/c/not-a-token/", headers={"Accept-Language": f"{language},ru;q=0.5"})
        assert page.status_code == 404
        assert words in page.content.decode()
        assert f'lang="{language}"' in page.content.decode()
    refused = client.post("/c/not-a-token/", {"text": "hi"})
    assert refused.status_code == 404
    assert "Такой страницы нет" in refused.content.decode()  # Russian when the browser says nothing
    assert client.get("/c/not-a-token/messages/").status_code == 404


def test_the_page_shows_the_conversation_in_the_clients_language(client, project, say):
    say(project, "Здравствуйте!")
    page = client.get(chat_url(project))
    assert page.status_code == 200
    body = page.content.decode()
    assert "Здравствуйте!" in body
    assert 'lang="ru"' in body
    assert "Отправить" in body
    agent_reply = project.turns.filter(role=Turn.Role.AGENT).get().text
    assert agent_reply in body


def test_the_page_never_shows_fields_events_or_prompts(client, project, say):
    say(project, "Бюджет 500 тыс рублей, тел. 8 916 123-45-67")
    body = client.get(chat_url(project)).content.decode()
    for private in ("prefill_filled", "+79161234567", "budgetStatus", "Response JSON schema"):
        assert private not in body


def test_posting_without_javascript_stores_and_redirects(
    client, project, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(chat_url(project), {"text": "Привет"})
    assert response.status_code == 302
    # Back to the page at its newest message (an anchor: no JavaScript needed).
    assert response.headers["Location"] == chat_url(project) + "#latest"
    assert 'id="latest"' in client.get(chat_url(project)).content.decode()
    turn = project.turns.get(role=Turn.Role.CLIENT)
    assert turn.text == "Привет"
    assert turn.replies.count() == 1


def test_without_javascript_a_waiting_page_reloads_itself_for_real(client, project):
    """The refresh's URL differs from the page's own (a URL that differs only after `#` is a
    jump within the page, which no browser reloads), on every refresh."""
    client.post(chat_url(project), {"text": "Привет"})  # stored, its answer still coming
    page = client.get(chat_url(project) + "#latest").content.decode()
    refresh = re.search(r'http-equiv="refresh" content="3;url=([^"]+)"', page)
    assert refresh is not None
    target = refresh[1]
    assert target.startswith(chat_url(project) + "?refreshed=")
    assert target.endswith("#latest")
    reloaded = client.get(target.split("#")[0])
    assert reloaded.status_code == 200


def test_posting_with_htmx_appends_the_message(client, project):
    response = client.post(chat_url(project), {"text": "Привет"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    body = response.content.decode()
    # Appended to the conversation, never a re-rendered one.
    assert body.lstrip().startswith('<div hx-swap-oob="beforeend:#conversation">')
    assert 'id="conversation"' not in body
    assert "Привет" in body
    assert "<html" not in body
    # Queued, not yet being processed: no typing indicator, but polling is fast.
    assert "Печатает ответ" not in body
    assert 'hx-trigger="every 1s"' in body
    Turn.objects.filter(project=project).update(status=Turn.Status.PROCESSING)
    assert "Печатает ответ" in client.get(chat_url(project)).content.decode()


def test_an_empty_message_shows_a_clear_error_and_stores_nothing(client, project):
    response = client.post(chat_url(project), {"text": "   "})
    assert response.status_code == 400
    assert "Сообщение пустое" in response.content.decode()  # the client's language
    assert not project.turns.exists()


def test_hostile_text_is_escaped(client, project, say):
    say(project, '<script>alert("x")</script>')
    body = client.get(chat_url(project)).content.decode()
    assert '<script>alert("x")</script>' not in body
    assert "&lt;script&gt;" in body


def test_polling_answers_204_until_something_new_arrives(client, project, say):
    say(project, "Здравствуйте!")
    last = project.turns.order_by("-seq").first().seq
    url = f"{chat_url(project)}messages/"
    state = re.search(r"state=([^\"&]*)", client.get(chat_url(project)).content.decode())[1]
    assert client.get(url, {"after": last, "state": state}).status_code == 204
    say(project, "Анна")
    fragment = client.get(url, {"after": last, "state": state})
    assert fragment.status_code == 200
    assert "Анна" in fragment.content.decode()


def test_a_rotated_link_replaces_the_old_one_and_a_revoked_one_is_gone(client, project, producer):
    from briefing.services import client_link_revoke, client_link_rotate

    old = chat_url(project)
    client_link_rotate(project=project, user=producer)
    gone = client.get(old)
    assert gone.status_code == 410  # the client learns the link is gone, in their language
    assert "Эта ссылка больше не действует" in gone.content.decode()
    assert client.get(chat_url(project)).status_code == 200
    current = chat_url(project)
    client_link_revoke(project=project, user=producer)
    assert project.client_token is None
    assert client.get(current).status_code == 410
    assert client.post(current, {"text": "hi"}).status_code == 410
    kinds = list(project.events.values_list("kind", flat=True))
    assert kinds == ["client_link_rotated", "client_link_revoked"]


# --- a message sent twice -------------------------------------------------------------------


def form_key(response) -> str:
    return re.search(r'name="idempotency_key" value="([^"]+)"', response.content.decode())[1]


def client_turns(project) -> list[str]:
    return list(project.turns.filter(role=Turn.Role.CLIENT).values_list("text", flat=True))


def test_a_form_sent_twice_without_javascript_stores_one_message(client, project):
    key = form_key(client.get(chat_url(project)))
    first = client.post(chat_url(project), {"text": "Привет", "idempotency_key": key})
    again = client.post(chat_url(project), {"text": "Привет", "idempotency_key": key})
    assert (first.status_code, again.status_code) == (302, 302)
    assert again.headers["Location"] == first.headers["Location"]
    assert client_turns(project) == ["Привет"]
    assert project.events.filter(kind="turn_received").count() == 1


def test_each_page_and_each_htmx_answer_bring_a_fresh_key(client, project):
    htmx = {"HX-Request": "true"}
    key = form_key(client.get(chat_url(project)))
    assert key != form_key(client.get(chat_url(project)))
    first = client.post(chat_url(project), {"text": "Привет", "idempotency_key": key}, headers=htmx)
    assert first.status_code == 200
    body = first.content.decode()
    # The message is appended, and the form is replaced out of band with a new key.
    assert body.lstrip().startswith('<div hx-swap-oob="beforeend:#conversation">')
    assert 'id="composer"' in body
    assert 'hx-swap-oob="true"' in body
    assert form_key(first) != key
    again = client.post(chat_url(project), {"text": "Привет", "idempotency_key": key}, headers=htmx)
    assert again.status_code == 200
    assert client_turns(project) == ["Привет"]
    client.post(
        chat_url(project), {"text": "Анна", "idempotency_key": form_key(first)}, headers=htmx
    )
    assert client_turns(project) == ["Привет", "Анна"]


@pytest.mark.parametrize("htmx", [False, True], ids=["no-js", "htmx"])
def test_a_used_form_with_another_text_is_refused_and_the_text_kept(client, project, htmx):
    key = form_key(client.get(chat_url(project)))
    client.post(chat_url(project), {"text": "Привет", "idempotency_key": key})
    refused = client.post(
        chat_url(project),
        {"text": "Совсем другое", "idempotency_key": key},
        headers={"HX-Request": "true"} if htmx else {},
    )
    assert refused.status_code == 409
    body = refused.content.decode()
    assert "Эта форма уже отправляла другое сообщение" in body
    # The text is back in a form with a new key: pressing Send again sends it.
    assert ">Совсем другое</textarea>" in body
    assert form_key(refused) != key
    assert client_turns(project) == ["Привет"]


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_submissions_of_one_form_store_one_message(postgres, project):
    barrier, receipts, errors = threading.Barrier(2), [], []

    def submit() -> None:
        try:
            barrier.wait(timeout=10)
            receipts.append(
                client_message_receive(
                    project=project,
                    text="Привет",
                    idempotency_key="same-form",
                    sender_address="10.0.0.1",
                    channel="page",
                )
            )
        except Exception as error:  # reported below, not lost in the thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert client_turns(project) == ["Привет"]
    assert sorted(r.replayed for r in receipts) == [False, True]
    assert receipts[0].turn.pk == receipts[1].turn.pk


# --- a broker outage ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("htmx", [False, True], ids=["no-js", "htmx"])
def test_a_message_stored_while_the_broker_is_down_is_answered_and_swept_later(
    project, dead_broker, caplog, htmx
):
    browser = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR, logger="core.queueing"):
        response = browser.post(
            chat_url(project),
            {"text": "Здравствуйте!", "idempotency_key": "k1"},
            headers={"HX-Request": "true"} if htmx else {},
        )
    assert response.status_code == (200 if htmx else 302)
    assert "could not be queued" in caplog.text
    turn = project.turns.get()
    assert turn.status == Turn.Status.RECEIVED
    # The client's retry of the same form stores nothing more.
    browser.post(chat_url(project), {"text": "Здравствуйте!", "idempotency_key": "k1"})
    assert client_turns(project) == ["Здравствуйте!"]

    dead_broker()  # the broker is back: the periodic sweep queues the waiting turn
    assert turns_sweep() == 1
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE
    assert turn.replies.filter(role=Turn.Role.AGENT).count() == 1


# --- rate limits ----------------------------------------------------------------------------

# Ten seconds into a minute window (the limiter's clock is fixed by `clock`).
T0 = 60 * 29_000_000 + 10


@pytest.fixture
def clock(monkeypatch):
    """The limiter's time, set by the test: `clock.now = ...`."""

    class Clock:
        now = float(T0)

    monkeypatch.setattr(limits, "_now", lambda: Clock.now)
    cache.clear()
    yield Clock
    cache.clear()


def send(client, project, text, *, address="192.0.2.1", htmx=False):
    return client.post(
        chat_url(project),
        # One form per text: the same text is the same form sent again.
        {"text": text, "idempotency_key": hashlib.sha256(text.encode()).hexdigest()},
        REMOTE_ADDR=address,
        headers={"HX-Request": "true"} if htmx else {},
    )


def test_messages_past_the_per_link_rate_are_refused_and_stored_nowhere(
    client, project, settings, clock, django_capture_on_commit_callbacks
):
    settings.CLIENT_CHAT_RATE_PER_LINK = ["3/min"]
    with django_capture_on_commit_callbacks() as queued:
        codes = [send(client, project, f"сообщение {n}").status_code for n in range(6)]
    assert codes == [302, 302, 302, 429, 429, 429]
    assert len(client_turns(project)) == 3
    assert len(queued) == 3  # one drain per stored message, none for the refused
    refused = send(client, project, "ещё одно")
    assert refused.headers["Retry-After"] == "50"
    body = refused.content.decode()
    assert "Слишком много сообщений подряд" in body
    assert "через 1 мин." in body
    assert ">ещё одно</textarea>" in body
    # The producer hears of the window once, not of every refused message.
    events = list(project.events.filter(kind="client_rate_limited"))
    assert [(e.data["scope"], e.data["rate"], e.data["channel"]) for e in events] == [
        ("link", "3/min", "page")
    ]

    clock.now = T0 + 50  # the next window
    assert send(client, project, "после паузы").status_code == 302
    assert len(client_turns(project)) == 4
    assert [send(client, project, f"снова {n}").status_code for n in range(3)] == [302, 302, 429]
    assert project.events.filter(kind="client_rate_limited").count() == 2


def test_a_long_period_limit_holds_across_minutes(client, project, settings, clock):
    settings.CLIENT_CHAT_RATE_PER_LINK = ["100/min", "4/hour"]
    codes = []
    for n in range(6):
        clock.now = T0 + 60 * n
        codes.append(send(client, project, f"сообщение {n}").status_code)
    assert codes == [302, 302, 302, 302, 429, 429]
    assert len(client_turns(project)) == 4


def test_messages_past_the_per_address_rate_are_refused_on_every_link(
    client, project, producer, settings, clock
):
    settings.CLIENT_CHAT_RATE_PER_IP = ["2/min"]
    other = project_create(title="Other", language="en", producer=producer)
    assert send(client, project, "one", address="198.51.100.7").status_code == 302
    assert send(client, other, "two", address="198.51.100.7").status_code == 302
    refused = send(client, other, "three", address="198.51.100.7")
    assert refused.status_code == 429
    assert "Too many messages in a row" in refused.content.decode()
    # Another sender on the same link is not held back, and the refusal took nothing from
    # the link's own count.
    assert send(client, other, "four", address="198.51.100.8").status_code == 302
    assert client_turns(other) == ["two", "four"]
    assert other.events.get(kind="client_rate_limited").data["scope"] == "address"


def test_behind_a_proxy_each_client_has_its_own_address_budget(client, project, settings, clock):
    settings.CLIENT_CHAT_RATE_PER_IP = ["1/min"]
    settings.LOGIN_TRUSTED_PROXIES = 1

    def via_proxy(text, forwarded_for):
        return client.post(
            chat_url(project),
            {"text": text},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=forwarded_for,
        ).status_code

    assert via_proxy("one", "203.0.113.5") == 302
    assert via_proxy("two", "203.0.113.6") == 302
    # A forged entry further left does not make a new sender.
    assert via_proxy("three", "198.51.100.1, 203.0.113.5") == 429


def test_a_rate_limited_htmx_post_shows_the_message_in_place(client, project, settings, clock):
    settings.CLIENT_CHAT_RATE_PER_LINK = ["1/min"]
    project.language = "uk"
    project.save()
    send(client, project, "перше", htmx=True)
    refused = send(client, project, "друге", htmx=True)
    assert refused.status_code == 429
    body = refused.content.decode()
    assert "beforeend:#conversation" not in body  # nothing was added
    assert "Забагато повідомлень поспіль" in body
    assert ">друге</textarea>" in body
    assert client_turns(project) == ["перше"]


def test_a_form_sent_again_is_answered_even_past_the_limit(client, project, settings, clock):
    settings.CLIENT_CHAT_RATE_PER_LINK = ["1/min"]
    assert send(client, project, "Привет").status_code == 302
    # The same form again (a retry): its message is stored, so it is answered, not refused.
    assert send(client, project, "Привет").status_code == 302
    assert send(client, project, "Анна").status_code == 429


def test_the_producer_sees_the_refusals_on_the_briefing_page(
    client, project, producer, settings, clock
):
    settings.CLIENT_CHAT_RATE_PER_LINK = ["1/min"]
    send(client, project, "one")
    send(client, project, "two")
    client.force_login(producer)
    page = client.get(f"/briefings/{project.pk}/").content.decode()
    assert "client messages refused: over 1/min per link (chat page)" in page
