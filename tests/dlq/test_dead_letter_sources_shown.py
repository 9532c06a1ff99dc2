"""The dead-letter list names each letter's briefing (title and client, linked) instead of
"briefing_turn 48", in a fixed number of queries; Discard is styled as a danger, not like
Apply."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from briefing.models import Turn
from briefing.services import project_create
from crm.models import InboundMessage
from tests.dlq.test_selectors import make_letter

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english_back_office(settings):
    """The texts asserted here are the English back office's (Russian is the default)."""
    settings.LANGUAGE_CODE = "en"


def turn_letter(title: str, client_name: str, seq: int):
    project = project_create(title=title, client_name=client_name)
    turn = Turn.objects.create(project=project, seq=seq, role=Turn.Role.CLIENT, text="x")
    letter = make_letter(
        created_at=timezone.now(), source_kind="briefing_turn", source_id=str(turn.pk)
    )
    return project, turn, letter


def test_the_list_names_the_briefing_and_links_it(manager_client, django_assert_max_num_queries):
    project, turn, letter = turn_letter("Ромашка: ролик", "Анна", 7)
    gone = make_letter(created_at=timezone.now(), source_kind="briefing_turn", source_id="999999")
    url = reverse("dlq:dead_letters")
    html = manager_client.get(url, {"view": "list"}).content.decode()
    link = reverse("project_detail", args=[project.pk])
    assert f'<a href="{link}">Ромашка: ролик · Анна (turn 7)</a>' in html
    assert f">briefing_turn {turn.pk}<" not in html
    # A letter whose turn is gone still says what it was.
    assert ">briefing_turn 999999<" in html
    assert gone.pk != letter.pk

    # The briefings of a whole page are read at once, not one query per letter.
    for n in range(5):
        turn_letter(f"Brief {n}", "", 1)
    with CaptureQueriesContext(connection) as few:
        manager_client.get(url, {"view": "list"})
    for n in range(5, 15):
        turn_letter(f"Brief {n}", "", 1)
    with django_assert_max_num_queries(len(few.captured_queries)):
        manager_client.get(url, {"view": "list"})


def test_message_letters_are_named_by_their_message_in_few_queries(
    manager_client, django_assert_max_num_queries
):
    def message_letter(n: int):
        message = InboundMessage.objects.create(
            received_at=timezone.now(), channel=InboundMessage.Channel.EMAIL,
            sender=f"client{n}@example.ru", subject=f"Ролик {n}", content_hash=f"hash-{n}",
        )  # fmt: skip
        make_letter(
            created_at=timezone.now(), source_kind="inbound_message", source_id=str(message.pk)
        )
        return message

    first = message_letter(0)
    url = reverse("dlq:dead_letters")
    with CaptureQueriesContext(connection) as few:
        html = manager_client.get(url, {"view": "list"}).content.decode()
    detail = reverse("crm:message_detail", args=[first.pk])
    assert f'<a href="{detail}">e-mail from client0@example.ru: Ролик 0</a>' in html
    for n in range(1, 12):
        message_letter(n)
    with django_assert_max_num_queries(len(few.captured_queries)):
        manager_client.get(url, {"view": "list"})


def test_discard_is_a_danger_button_unlike_apply(manager_client):
    _, _, letter = turn_letter("Promo", "", 1)
    html = manager_client.get(reverse("dlq:dead_letter_detail", args=[letter.pk])).content.decode()
    assert '<button type="submit" class="danger">Discard</button>' in html
    assert '<button type="submit">Apply</button>' in html
    css = Path(settings.BASE_DIR, "static", "css", "app.css").read_text()
    rule = re.search(r"button\.danger[^{]*\{([^}]*)\}", css)
    assert rule is not None
    assert "var(--bad)" in rule.group(1)
