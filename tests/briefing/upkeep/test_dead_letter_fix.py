"""Fix-and-apply: a manager's corrected JSON answers the failed turn once, through the gate."""

from __future__ import annotations

import pytest

from briefing.models import StageRun, Turn
from core.errors import ApplicationError
from dlq.models import DeadLetter
from dlq.services import dead_letter_fix_apply
from tests.briefing.conftest import FIXED_INTRO

pytestmark = pytest.mark.django_db


def test_a_fix_advances_the_stage_through_its_gate(
    project, producer, dead_lettered_turn, scripted_model
):
    turn, letter = dead_lettered_turn
    asked = len(scripted_model.requests)
    dead_letter_fix_apply(dead_letter=letter, data=FIXED_INTRO, user=producer)
    letter.refresh_from_db()
    turn.refresh_from_db()
    assert letter.status == DeadLetter.Status.FIXED
    assert (letter.resolved_by, letter.resolved_at is not None) == (producer, True)
    assert turn.status == Turn.Status.DONE
    intro = StageRun.objects.get(project=project, key="intro")
    assert (intro.status, intro.fields["clientName"]) == ("closed", "Анна")
    assert StageRun.objects.get(project=project, key="vision").status == "open"
    # The holding reply, then exactly one real answer: the manager's message, then the next
    # stage's question (written by code, no model call).
    last = [t.text for t in turn.replies.order_by("seq")][-1]
    assert last.startswith(FIXED_INTRO["message"])
    assert "Как называется продукт" in last
    assert turn.replies.count() == 2
    assert len(scripted_model.requests) == asked


def test_the_same_fix_twice_has_one_effect(project, producer, dead_lettered_turn, scripted_model):
    turn, letter = dead_lettered_turn
    dead_letter_fix_apply(dead_letter=letter, data=FIXED_INTRO, user=producer)
    with pytest.raises(ApplicationError, match="only an open dead letter"):
        dead_letter_fix_apply(dead_letter=letter, data=FIXED_INTRO, user=producer)
    assert turn.replies.count() == 2


def test_an_invalid_fix_changes_nothing_and_says_which_field(project, producer, dead_lettered_turn):
    turn, letter = dead_lettered_turn
    bad = {**FIXED_INTRO, "introStatus": "maybe", "clientName": 5}
    with pytest.raises(ApplicationError) as error:
        dead_letter_fix_apply(dead_letter=letter, data=bad, user=producer)
    assert {f["path"] for f in error.value.extra["fields"]} >= {"introStatus"}
    letter.refresh_from_db()
    turn.refresh_from_db()
    assert letter.status == DeadLetter.Status.OPEN
    assert turn.status == Turn.Status.FAILED
    assert StageRun.objects.get(project=project, key="intro").status == "open"


def test_the_fix_form_shows_errors_in_place_then_applies(
    manager_client, project, dead_lettered_turn, scripted_model
):
    import json

    turn, letter = dead_lettered_turn
    url = f"/dlq/dead-letters/{letter.pk}/fix/"
    page = manager_client.get(f"/dlq/dead-letters/{letter.pk}/").content.decode()
    assert 'name="data"' in page
    bad = json.dumps({**FIXED_INTRO, "introStatus": "maybe"})
    response = manager_client.post(url, {"data": bad}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "<code>introStatus</code>" in response.content.decode()
    scripted_model.answers({"message": "Как называется продукт?", "visionStatus": False})
    response = manager_client.post(url, {"data": json.dumps(FIXED_INTRO)})
    assert response.status_code == 302
    letter.refresh_from_db()
    turn.refresh_from_db()
    assert letter.status == DeadLetter.Status.FIXED
    assert turn.status == Turn.Status.DONE
