"""The dead-letter review pages: groups, list, detail and discard, for managers only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from briefing.models import Turn
from briefing.services import project_create
from dlq.models import DeadLetter
from tests.dlq.test_selectors import make_letter

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
HOSTILE = "<script>alert(1)</script>"


def ago(**delta):
    return timezone.now() - timedelta(**delta)


@pytest.fixture
def letters():
    """Three open letters of one signature, one of another, one discarded of a third."""
    big = [
        make_letter(created_at=ago(hours=h), raw_input=f"budget talk {h}", source_kind="lead")
        for h in (1, 2, 3)
    ]
    small = make_letter(
        created_at=ago(minutes=5),
        error_signature="deadline: date_parsing",
        schema_name="BriefCard",
        provider="gigachat",
        raw_input="we need it by the spring",
        source_kind="briefing_turn",
    )
    closed = make_letter(
        created_at=ago(days=1), error_signature="$: json_invalid", status="discarded"
    )
    return {"big": big, "small": small, "closed": closed}


def _detail(letter: DeadLetter) -> str:
    return reverse("dlq:dead_letter_detail", args=[letter.pk])


def _discard(letter: DeadLetter) -> str:
    return reverse("dlq:dead_letter_discard", args=[letter.pk])


# --- groups --------------------------------------------------------------------------------


def test_groups_show_the_biggest_open_group_first_with_its_count(manager_client, letters):
    response = manager_client.get(reverse("dlq:dead_letters"))
    assert response.status_code == 200
    groups = response.context["groups"]
    assert [(g["error_signature"], g["count"]) for g in groups] == [
        ("budget_rub: int_parsing", 3),
        ("deadline: date_parsing", 1),
    ]
    html = response.content.decode()
    assert html.index("budget_rub: int_parsing") < html.index("deadline: date_parsing")
    assert "$: json_invalid" not in html  # discarded: not in the open groups
    assert "<h1>Dead letters</h1>" in html


def test_groups_trend_bars_are_sized_from_the_busiest_day(manager_client):
    make_letter(created_at=ago(minutes=1))
    make_letter(created_at=ago(minutes=2))
    make_letter(created_at=ago(days=2))
    response = manager_client.get(reverse("dlq:dead_letters"))
    trend = response.context["groups"][0]["trend"]
    assert [day["count"] for day in trend] == [0, 0, 0, 0, 1, 0, 2]
    assert [day["height"] for day in trend] == [0, 0, 0, 0, 50, 0, 100]
    html = response.content.decode()
    # Heights are classes in 5% steps (the Content-Security-Policy forbids style attributes).
    assert html.count('class="bar h0"') == 5
    assert html.count('class="bar h10"') == 1
    assert html.count('class="bar h20"') == 1
    assert "style=" not in html


def test_groups_fragment_for_htmx_is_only_the_table(manager_client, letters):
    response = manager_client.get(reverse("dlq:dead_letters"), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="dead-letter-table">')
    assert "budget_rub: int_parsing" in html
    assert "<h1>" not in html


# --- list ------------------------------------------------------------------------------------


def _listed(client, **params) -> list[int]:
    response = client.get(reverse("dlq:dead_letters"), {"view": "list", **params})
    assert response.status_code == 200
    return [letter.pk for letter in response.context["page"].object_list]


def test_list_shows_every_letter_newest_first(manager_client, letters):
    expected = [letters["small"].pk, *(letter.pk for letter in letters["big"])]
    assert _listed(manager_client) == [*expected, letters["closed"].pk]


def test_list_filters_by_each_column(manager_client, letters):
    assert _listed(manager_client, status="discarded") == [letters["closed"].pk]
    assert _listed(manager_client, schema="BriefCard") == [letters["small"].pk]
    assert _listed(manager_client, provider="gigachat") == [letters["small"].pk]
    assert _listed(manager_client, source_kind="lead") == [x.pk for x in letters["big"]]
    assert _listed(manager_client, signature="deadline: date_parsing") == [letters["small"].pk]
    assert _listed(manager_client, status="open", schema="LeadCard") == [
        x.pk for x in letters["big"]
    ]


def test_list_searches_the_client_text(manager_client, letters):
    assert _listed(manager_client, q="SPRING") == [letters["small"].pk]
    assert _listed(manager_client, q="budget talk 2") == [letters["big"][1].pk]
    assert _listed(manager_client, q="nothing like it") == []


def test_list_is_paginated_by_fifty(manager_client):
    for minutes in range(51):
        make_letter(created_at=ago(minutes=minutes))
    first = manager_client.get(reverse("dlq:dead_letters"), {"view": "list"})
    assert len(first.context["page"].object_list) == 50
    second = manager_client.get(reverse("dlq:dead_letters"), {"view": "list", "page": 2})
    assert len(second.context["page"].object_list) == 1
    assert "page=2" in first.content.decode()


def test_list_fragment_for_htmx_is_only_the_table(manager_client, letters):
    response = manager_client.get(
        reverse("dlq:dead_letters"), {"view": "list", "schema": "BriefCard"}, **HTMX
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="dead-letter-table">')
    assert "deadline: date_parsing" in html
    assert "budget_rub: int_parsing" not in html
    assert "<form" not in html


# --- detail ----------------------------------------------------------------------------------


@pytest.fixture
def hostile_letter():
    return make_letter(
        created_at=ago(minutes=1),
        raw_input=f"my budget is {HOSTILE}",
        prompt_messages=[
            [{"role": "system", "content": "Fill the card"}, {"role": "user", "content": "hi"}],
            [{"role": "user", "content": "Fix budget_rub, please"}],
        ],
        raw_responses=[
            '{"budget_rub": "ask my wife"}',
            '{"budget_rub": "' + HOSTILE + '"}',
        ],
        errors=[
            {
                "path": "budget_rub",
                "kind": "int_parsing",
                "message": "not a number",
                "input": HOSTILE,
            },
        ],
        usage={"prompt_tokens": 321, "cached_tokens": 0, "completion_tokens": 17},
        model="giga-pro",
    )


def test_detail_shows_both_attempts_side_by_side(manager_client, hostile_letter):
    response = manager_client.get(_detail(hostile_letter))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Attempt 1 (first answer)" in html
    assert "Attempt 2 (retry)" in html
    assert "ask my wife" in html
    assert "Fix budget_rub, please" in html
    assert "<code>budget_rub</code>" in html
    assert "giga-pro" in html
    assert "prompt 321" in html
    assert "completion 17" in html


def test_detail_escapes_hostile_text_and_marks_the_offending_input(manager_client, hostile_letter):
    html = manager_client.get(_detail(hostile_letter)).content.decode()
    assert HOSTILE not in html
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert f"my budget is {escaped}" in html
    assert f"<mark>{escaped}</mark>" in html
    assert html.count("<mark>") == 1  # the first answer does not contain the input


def test_detail_links_a_briefing_turn_to_its_project(manager_client, manager):
    project = project_create(title="Spring promo", producer=manager)
    turn = Turn.objects.create(project=project, seq=1, role="client", text="hello")
    letter = make_letter(
        created_at=ago(minutes=1), source_kind="briefing_turn", source_id=str(turn.pk)
    )
    html = manager_client.get(_detail(letter)).content.decode()
    assert f'href="{reverse("project_detail", args=[project.pk])}"' in html
    assert "Spring promo" in html


def test_detail_of_an_unknown_source_is_plain_text_without_actions(manager_client):
    letter = make_letter(created_at=ago(minutes=1), source_kind="fax", source_id="42")
    response = manager_client.get(_detail(letter))
    html = response.content.decode()
    assert response.context["source"] is None
    assert "fax 42" in html
    assert reverse("dlq:dead_letter_replay", args=[letter.pk]) not in html
    assert reverse("dlq:dead_letter_discard", args=[letter.pk]) in html


def test_detail_of_a_missing_letter_is_404(manager_client):
    assert manager_client.get(reverse("dlq:dead_letter_detail", args=[999])).status_code == 404


# --- discard ---------------------------------------------------------------------------------


def test_discard_with_a_reason_closes_the_letter_and_redirects(manager_client, manager, letters):
    letter = letters["small"]
    response = manager_client.post(_discard(letter), {"reason": "  client joked  "})
    assert response.status_code == 302
    assert response["Location"] == _detail(letter)
    letter.refresh_from_db()
    assert letter.status == DeadLetter.Status.DISCARDED
    assert letter.resolved_by == manager
    assert letter.resolved_at is not None
    assert letter.resolution_note == "client joked"
    html = manager_client.get(_detail(letter)).content.decode()
    assert "client joked" in html
    assert f"by {manager.username}" in html


def test_discard_for_htmx_returns_the_status_part(manager_client, letters):
    response = manager_client.post(_discard(letters["small"]), {"reason": "noise"}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section class="card" id="dead-letter-status">')
    assert "Discarded" in html
    assert "noise" in html
    assert "<form" not in html


@pytest.mark.parametrize("htmx", [False, True])
def test_discard_without_a_reason_is_refused_and_changes_nothing(manager_client, letters, htmx):
    letter = letters["small"]
    response = manager_client.post(_discard(letter), {"reason": "   "}, **(HTMX if htmx else {}))
    assert response.status_code == 400
    html = response.content.decode()
    assert "a reason is required" in html
    assert ("<h1>" in html) is not htmx
    letter.refresh_from_db()
    assert (letter.status, letter.resolved_at, letter.resolution_note) == ("open", None, "")


def test_discarding_twice_is_refused_the_second_time(manager_client, letters):
    letter = letters["small"]
    assert manager_client.post(_discard(letter), {"reason": "first"}).status_code == 302
    second = manager_client.post(_discard(letter), {"reason": "second"}, **HTMX)
    assert second.status_code == 400
    assert "only an open dead letter can be discarded" in second.content.decode()
    letter.refresh_from_db()
    assert letter.resolution_note == "first"


def test_discard_needs_post(manager_client, letters):
    assert manager_client.get(_discard(letters["small"])).status_code == 405


def test_discard_needs_the_csrf_token(client, manager, letters):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(manager)
    assert strict.post(_discard(letters["small"]), {"reason": "x"}).status_code == 403
    letters["small"].refresh_from_db()
    assert letters["small"].status == "open"


# --- access ----------------------------------------------------------------------------------


def test_producer_is_forbidden_everywhere(producer_client, letters):
    letter = letters["small"]
    assert producer_client.get(reverse("dlq:dead_letters")).status_code == 403
    assert producer_client.get(reverse("dlq:dead_letters"), {"view": "list"}).status_code == 403
    # A letter of no briefing of theirs does not exist for them (their own they may read).
    assert producer_client.get(_detail(letter)).status_code == 404
    assert producer_client.post(_discard(letter), {"reason": "x"}).status_code == 403
    letter.refresh_from_db()
    assert letter.status == "open"


def test_anonymous_is_sent_to_login(client, letters):
    letter = letters["small"]
    for url in (reverse("dlq:dead_letters"), _detail(letter), _discard(letter)):
        response = client.post(url) if url.endswith("discard/") else client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
