"""The fix editor as a form: a manager fixes a briefing turn's dead letter through the stage's
fields as labelled inputs in their language (the raw JSON is the advanced view); a wrong value
shows the field's error and keeps what was typed; a fix that closes the stage keeps the
manager's message."""

from __future__ import annotations

import re

import pytest

from briefing.models import StageRun, Turn
from briefing.services import lock_set
from dlq.models import DeadLetter
from tests.briefing.conftest import FIXED_INTRO

pytestmark = pytest.mark.django_db

RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}


def _form(**overrides: str) -> dict[str, str]:
    """The fix form as a manager fills it for the intro stage."""
    posted = {
        "field-message": FIXED_INTRO["message"],
        "field-clientName": FIXED_INTRO["clientName"],
        "field-contact": FIXED_INTRO["contact"],
        "field-projectType": FIXED_INTRO["projectType"],
        "field-introStatus": "true",
    }
    posted.update(overrides)
    return {name: value for name, value in posted.items() if value is not None}


def _labels(page: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>|\s+\*$", "", label).strip()
        for label in re.findall(r'<label for="fix-[^"]+">(.*?)</label>', page, re.S)
    ]


def test_the_form_shows_the_stage_fields_under_russian_labels(manager_client, dead_lettered_turn):
    _, letter = dead_lettered_turn
    page = manager_client.get(f"/dlq/dead-letters/{letter.pk}/", **RU).content.decode()
    labels = _labels(page)
    assert labels[:1] == ["Сообщение клиенту"]
    assert {"Имя клиента", "Контакт", "Тип проекта", "Компания"} <= set(labels)
    assert "Этап завершён" in page  # the status flag, as a checkbox
    # The field the message asks about is chosen by label, its code the option's value.
    assert '<option value="contact">Контакт</option>' in page
    assert not [label for label in labels if re.search(r"[a-z][A-Z]", label)]
    # The raw JSON is still there, folded as the advanced view.
    assert re.search(r'<details class="fix-json">\s*<summary>Дополнительно: ответ в JSON', page)
    assert 'name="data"' in page


def test_a_form_fix_that_closes_the_stage_keeps_the_managers_message(
    manager_client, project, dead_lettered_turn, scripted_model
):
    turn, letter = dead_lettered_turn
    asked = len(scripted_model.requests)
    response = manager_client.post(f"/dlq/dead-letters/{letter.pk}/fix/", _form(), **RU)
    assert response.status_code == 302
    letter.refresh_from_db()
    turn.refresh_from_db()
    assert (letter.status, turn.status) == (DeadLetter.Status.FIXED, Turn.Status.DONE)
    intro = StageRun.objects.get(project=project, key="intro")
    assert intro.status == "closed"
    assert (intro.fields["clientName"], intro.fields["projectType"]) == ("Анна", "ролик")
    # The manager's words reach the client, then the next stage's question, written by code.
    reply = turn.replies.order_by("seq").last().text
    assert reply.startswith(FIXED_INTRO["message"])
    assert "Как называется продукт" in reply
    assert len(scripted_model.requests) == asked


def test_a_blank_required_field_is_refused_in_place_keeping_what_was_typed(
    manager_client, project, dead_lettered_turn, htmx
):
    _, letter = dead_lettered_turn
    headers = {"HX-Request": "true"} if htmx else {}
    response = manager_client.post(
        f"/dlq/dead-letters/{letter.pk}/fix/",
        _form(**{"field-message": "   ", "field-company": "ООО «Клюква»"}),
        headers=headers,
        **RU,
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert re.search(r'id="fix-message-error">Обязательное поле\.</p>', page)
    assert ">ООО «Клюква»</textarea>" in page
    assert f">{FIXED_INTRO['contact']}</textarea>" in page
    letter.refresh_from_db()
    assert letter.status == DeadLetter.Status.OPEN
    assert StageRun.objects.get(project=project, key="intro").status == "open"


@pytest.fixture(params=[False, True], ids=["page", "htmx"])
def htmx(request):
    return request.param


def test_a_value_against_a_lock_shows_the_fields_error_and_changes_nothing(
    manager_client, project, producer, dead_lettered_turn
):
    turn, letter = dead_lettered_turn
    lock_set(project=project, key="client_name", value="Мария", user=producer)
    response = manager_client.post(
        f"/dlq/dead-letters/{letter.pk}/fix/",
        _form(**{"field-message": "Спасибо, Анна! Записал."}),
        **RU,
    )
    assert response.status_code == 400
    page = response.content.decode()
    error = re.search(r'id="fix-clientName-error">(.*?)</p>', page, re.S)
    assert error, page
    assert "Мария" in error.group(1)
    assert "Спасибо, Анна! Записал.</textarea>" in page
    # The JSON view carries the same answer, for a manager who would rather edit it there.
    assert "&quot;clientName&quot;: &quot;Анна&quot;" in page
    letter.refresh_from_db()
    turn.refresh_from_db()
    assert (letter.status, turn.status) == (DeadLetter.Status.OPEN, Turn.Status.FAILED)


def test_the_live_check_names_the_field_by_its_label(
    manager_client, project, producer, dead_lettered_turn
):
    _, letter = dead_lettered_turn
    lock_set(project=project, key="client_name", value="Мария", user=producer)
    url = f"/dlq/dead-letters/{letter.pk}/fix/check/"
    hx = {"HX-Request": "true"}
    response = manager_client.post(url, _form(), headers=hx, **RU)
    assert response.status_code == 200
    check = response.content.decode()
    assert check.strip().startswith('<div id="fix-form-check"')
    assert re.search(r"<li>Имя клиента: [^<]*Мария", check), check
    fine = manager_client.post(url, _form(**{"field-clientName": "Мария"}), headers=hx, **RU)
    assert "<li>" not in fine.content.decode()


def test_the_json_view_still_applies_a_raw_answer(
    manager_client, project, dead_lettered_turn, scripted_model
):
    import json

    _, letter = dead_lettered_turn
    response = manager_client.post(
        f"/dlq/dead-letters/{letter.pk}/fix/", {"data": json.dumps(FIXED_INTRO)}
    )
    assert response.status_code == 302
    letter.refresh_from_db()
    assert letter.status == DeadLetter.Status.FIXED
