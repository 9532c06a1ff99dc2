"""Canned replies: the studio's ready answers, one language each, that producers add, edit and
remove on a page of their own (each change audited with its old and new content), and insert
into the message box on a briefing's page, offered in the client's language; without
JavaScript the insert is a plain form post that brings the page back with the text."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from briefing.models import CannedReply, CannedReplyChange, Turn
from briefing.services import canned_reply_save

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
PAGE = "/replies/"


def detail(project) -> str:
    return reverse("project_detail", args=[project.pk])


@pytest.fixture
def greeting(producer):
    return canned_reply_save(
        reply=None, title="Приветствие", language="ru", text="Здравствуйте! Я ваш продюсер.",
        user=producer,
    )  # fmt: skip


def test_the_page_is_linked_from_the_inbox_and_lists_replies_by_language(
    producer_client, producer, greeting
):
    canned_reply_save(reply=None, title="Hello", language="en", text="Hi there", user=producer)
    assert reverse("canned_replies") == PAGE
    assert f'href="{PAGE}"' in producer_client.get(reverse("dashboard")).content.decode()
    page = producer_client.get(PAGE).content.decode()
    assert "Приветствие" in page
    assert "Hello" in page
    russian = producer_client.get(PAGE, {"language": "ru"}).content.decode()
    assert "Приветствие" in russian
    assert "Hi there" not in russian


def test_a_producer_adds_edits_and_removes_a_reply_each_change_audited(producer_client, producer):
    response = producer_client.post(
        PAGE, {"action": "add", "title": "Цены", "language": "ru", "text": "Прайс пришлю."}
    )
    assert response.status_code == 302
    reply = CannedReply.objects.get()
    assert (reply.title, reply.language, reply.text) == ("Цены", "ru", "Прайс пришлю.")

    response = producer_client.post(
        PAGE,
        {"action": "edit", "reply": reply.pk, "title": "Цены", "language": "ru",
         "text": "Прайс пришлю сегодня."},
        **HTMX,
    )  # fmt: skip
    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<div id="replies"')
    assert "Прайс пришлю сегодня." in response.content.decode()

    response = producer_client.post(PAGE, {"action": "remove", "reply": reply.pk})
    assert response.status_code == 302
    assert not CannedReply.objects.exists()
    changes = list(CannedReplyChange.objects.order_by("id"))
    assert [(c.kind, c.actor) for c in changes] == [
        ("added", producer), ("edited", producer), ("removed", producer),
    ]  # fmt: skip
    assert changes[0].old is None
    assert changes[1].old["text"] == "Прайс пришлю."
    assert changes[1].new["text"] == "Прайс пришлю сегодня."
    assert changes[2].old["text"] == "Прайс пришлю сегодня."


def test_a_second_reply_of_the_same_title_and_language_is_refused_in_place(
    producer_client, greeting
):
    response = producer_client.post(
        PAGE, {"action": "add", "title": "приветствие", "language": "ru", "text": "Другой текст"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "there is already a reply “приветствие” in this language" in page
    assert "Другой текст" in page  # what was typed is kept
    assert CannedReply.objects.count() == 1
    empty = producer_client.post(
        PAGE, {"action": "add", "title": "Пусто", "language": "ru", "text": " "}, **HTMX
    )
    assert empty.status_code == 400
    assert "the reply is empty" in empty.content.decode()


def test_someone_who_may_not_act_on_briefings_cannot_change_replies(client, greeting):
    viewer = get_user_model().objects.create_user("viewer", password="pw")
    viewer.user_permissions.add(Permission.objects.get(codename="view_project"))
    client.force_login(viewer)
    assert client.get(PAGE).status_code == 200
    assert client.post(PAGE, {"action": "remove", "reply": greeting.pk}).status_code == 403
    assert CannedReply.objects.exists()


def test_the_message_box_offers_the_replies_in_the_clients_language(
    producer_client, producer, project, greeting
):
    canned_reply_save(reply=None, title="Hello", language="en", text="Hi there", user=producer)
    page = producer_client.get(detail(project)).content.decode()
    picker = re.search(r'<select id="canned-reply"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert f'<option value="{greeting.pk}" data-text="Здравствуйте! Я ваш продюсер.">' in picker
    assert "Hello" not in picker
    assert 'name="insert_canned"' in page
    assert 'src="/static/js/canned_replies.js"' in page


def test_without_javascript_insert_posts_and_the_page_comes_back_with_the_text(
    producer_client, project, greeting
):
    response = producer_client.post(
        reverse("project_action", args=[project.pk]),
        {"action": "message", "text": "Анна, добрый день.", "canned": greeting.pk,
         "insert_canned": "1"},
    )  # fmt: skip
    assert response.status_code == 302
    assert response["Location"] == f"{detail(project)}#composer"
    assert not Turn.objects.filter(role=Turn.Role.PRODUCER).exists()  # nothing was sent
    page = producer_client.get(detail(project)).content.decode()
    box = re.search(r'<textarea id="message-text"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    assert box == "Анна, добрый день.\n\nЗдравствуйте! Я ваш продюсер."
    # Shown once: a reload has an empty box again.
    page = producer_client.get(detail(project)).content.decode()
    assert re.search(r'<textarea id="message-text"[^>]*></textarea>', page)


def test_with_htmx_insert_swaps_the_message_box_with_the_text(producer_client, project, greeting):
    response = producer_client.post(
        reverse("project_action", args=[project.pk]),
        {"action": "message", "text": "", "canned": greeting.pk, "insert_canned": "1"},
        **HTMX,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="composer"')
    assert ">Здравствуйте! Я ваш продюсер.</textarea>" in html
    assert not Turn.objects.filter(role=Turn.Role.PRODUCER).exists()


def test_a_reply_of_another_language_is_not_inserted(producer_client, producer, project):
    english = canned_reply_save(
        reply=None, title="Hello", language="en", text="Hi there", user=producer
    )
    response = producer_client.post(
        reverse("project_action", args=[project.pk]),
        {"action": "message", "text": "Добрый день", "canned": english.pk, "insert_canned": "1"},
        **HTMX,
    )
    assert response.status_code == 400
    assert "Choose a canned reply to insert." in response.content.decode()
    assert ">Добрый день</textarea>" in response.content.decode()
