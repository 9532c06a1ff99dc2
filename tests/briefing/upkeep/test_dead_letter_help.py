"""A producer asks a manager to fix a dead letter of their briefing: recorded once in the
letter's history, e-mailed to the managers (in the back office's language, with the link),
shown on the review list until the letter is settled; nobody else may ask."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dlq.help_requests import open_letters_with_help_requested
from dlq.models import DeadLetterAction
from dlq.services import dead_letter_discard
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def managers_with_mail(db):
    return [
        user_in_group("boss", "Managers", email="boss@studio.test"),
        user_in_group("deputy", "Managers", email="deputy@studio.test"),
        user_in_group("nomail", "Managers"),
    ]


def help_url(letter) -> str:
    return reverse("dlq:dead_letter_help", args=[letter.pk])


def test_a_producer_asks_and_every_manager_with_an_address_gets_the_mail(
    client, producer, dead_lettered_turn, managers_with_mail, mailoutbox, settings,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    settings.SITE_URL = "https://briefs.studio.test"
    settings.LANGUAGE_CODE = "ru"
    _, letter = dead_lettered_turn
    client.force_login(producer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(help_url(letter), {"note": "Клиент ждёт цену, <b>срочно</b>"})
    assert response.status_code == 302
    action = letter.actions.get(kind=DeadLetterAction.Kind.HELP_REQUESTED)
    assert (action.user, action.note) == (producer, "Клиент ждёт цену, <b>срочно</b>")

    assert sorted(m.to[0] for m in mailoutbox) == ["boss@studio.test", "deputy@studio.test"]
    mail = mailoutbox[0]
    assert mail.subject == f"producer просит исправить сбойный ход {letter.pk}"
    assert f"https://briefs.studio.test/dlq/dead-letters/{letter.pk}/" in mail.body
    assert "Клиент ждёт цену, <b>срочно</b>" in mail.body
    assert letter.error_signature in mail.body

    # The page says it was asked and offers no second request; the note is escaped.
    page = client.get(reverse("dlq:dead_letter_detail", args=[letter.pk])).content.decode()
    assert "help-requested" in page
    assert help_url(letter) not in page
    assert "&lt;b&gt;срочно&lt;/b&gt;" in page
    assert "<b>срочно</b>" not in page


def test_asking_twice_is_refused_with_who_asked(client, producer, dead_lettered_turn, mailoutbox):
    _, letter = dead_lettered_turn
    client.force_login(producer)
    assert client.post(help_url(letter), {"note": ""}, **HTMX).status_code == 200
    again = client.post(help_url(letter), {"note": "ещё раз"}, **HTMX)
    assert again.status_code == 400
    assert "already asked" in again.content.decode()
    assert "by producer" in again.content.decode()
    assert letter.actions.filter(kind=DeadLetterAction.Kind.HELP_REQUESTED).count() == 1


def test_a_settled_letter_needs_no_help_and_leaves_the_managers_list(
    client, producer, manager, dead_lettered_turn
):
    _, letter = dead_lettered_turn
    client.force_login(producer)
    client.post(help_url(letter), {"note": "помогите"})
    assert list(open_letters_with_help_requested()) == [letter]
    client.force_login(manager)
    listing = client.get(reverse("dlq:dead_letters")).content.decode()
    assert "help-requested-list" in listing
    assert reverse("dlq:dead_letter_detail", args=[letter.pk]) in listing

    dead_letter_discard(dead_letter=letter, user=manager, reason="answered by hand")
    assert list(open_letters_with_help_requested()) == []
    assert "help-requested-list" not in client.get(reverse("dlq:dead_letters")).content.decode()
    client.force_login(producer)
    late = client.post(help_url(letter), {"note": "ну что?"}, **HTMX)
    assert late.status_code == 400
    assert "only an open dead letter" in late.content.decode()


def test_only_a_producer_of_the_briefing_may_ask(client, dead_lettered_turn):
    _, letter = dead_lettered_turn
    client.force_login(user_in_group("stranger", "Producers"))
    assert client.post(help_url(letter), {"note": "x"}).status_code == 404
    assert client.get(help_url(letter)).status_code in (404, 405)
    assert not letter.actions.filter(kind=DeadLetterAction.Kind.HELP_REQUESTED).exists()


def test_a_note_too_long_is_refused_whole(client, producer, dead_lettered_turn):
    _, letter = dead_lettered_turn
    client.force_login(producer)
    response = client.post(help_url(letter), {"note": "я" * 2001}, **HTMX)
    assert response.status_code == 400
    assert "longer than 2000" in response.content.decode()
    assert not letter.actions.exists()
