"""The client's chat page: only the conversation, reached by its link; works without JS."""

from __future__ import annotations

import pytest

from briefing.models import Turn

pytestmark = pytest.mark.django_db


def chat_url(project):
    return f"/c/{project.client_token}/"


def test_an_unknown_link_is_a_404(client):
    assert client.get("/c/not-a-token/").status_code == 404
    assert client.post("/c/not-a-token/", {"text": "hi"}).status_code == 404


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
    assert response.headers["Location"] == chat_url(project)
    turn = project.turns.get(role=Turn.Role.CLIENT)
    assert turn.text == "Привет"
    assert turn.replies.count() == 1


def test_posting_with_htmx_returns_the_conversation_fragment(client, project):
    response = client.post(chat_url(project), {"text": "Привет"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="conversation"')
    assert "Привет" in body
    assert "<html" not in body
    # The reply is still being worked on: the typing indicator shows and polling is fast.
    assert "Печатает ответ" in body
    assert 'hx-trigger="every 1s"' in body


def test_an_empty_message_shows_a_clear_error_and_stores_nothing(client, project):
    response = client.post(chat_url(project), {"text": "   "})
    assert response.status_code == 400
    assert "the message is empty" in response.content.decode()
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
    assert client.get(url, {"after": last}).status_code == 204
    say(project, "Анна")
    fragment = client.get(url, {"after": last})
    assert fragment.status_code == 200
    assert "Анна" in fragment.content.decode()


def test_a_rotated_link_replaces_the_old_one_and_a_revoked_one_is_gone(client, project, producer):
    from briefing.services import client_link_revoke, client_link_rotate

    old = chat_url(project)
    client_link_rotate(project=project, user=producer)
    assert client.get(old).status_code == 404
    assert client.get(chat_url(project)).status_code == 200
    current = chat_url(project)
    client_link_revoke(project=project, user=producer)
    assert project.client_token is None
    assert client.get(current).status_code == 404
    kinds = list(project.events.values_list("kind", flat=True))
    assert kinds == ["client_link_rotated", "client_link_revoked"]
