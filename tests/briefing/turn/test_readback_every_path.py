"""The read-back and the dialogue's state bind a model agent as they bind the rules agent: the
brief is read back by code before completion even when the model would close at once, a
correction is read back once more, identity is locked only when the client answered the
read-back, and a model answer that asks for a known field or repeats itself gets the retry."""

from __future__ import annotations

import pytest

from briefing.models import BriefingEvent, LockedEntity
from dlq.models import DeadLetter

pytestmark = pytest.mark.django_db

FRONT_LOADED = (
    "Анна Петрова, +7 916 123-45-67, нужен рекламный ролик для кофейни «Зерно»: утренний "
    "ритуал, цель — новые гости, аудитория — горожане 25-40. Вертикальное видео 30 секунд, "
    "основной ролик и три коротких версии. Бюджет 500 000 рублей, срок 15 марта 2027."
)
VISION = {
    "message": "Понятно.", "productName": "Зерно", "coreIdea": "утренний ритуал",
    "goal": "новые гости", "audience": "горожане 25-40", "visionStatus": True,
}  # fmt: skip
SERVICE = {
    "message": "Записала.", "contentType": "ролик", "format": "вертикальное видео 30 секунд",
    "deliverables": ["основной ролик", "три коротких версии"], "serviceStatus": True,
}  # fmt: skip
SERVICE_ANSWER = "Вертикальное видео 30 секунд: основной ролик и три коротких версии."
# A model that would close the last stage at once, with no read-back.
EXTRA_CLOSES_AT_ONCE = {"message": "Спасибо, бриф готов!", "extraStatus": True}


def _events(project, kind):
    return list(project.events.filter(kind=kind).values_list("data", flat=True))


def test_a_model_agent_reads_the_brief_back_by_code_before_completion(project, say, scripted_model):
    # The reader closes the intro and budget stages from the message; the model answers the
    # vision and service stages, each next stage's opening question is written by code.
    scripted_model.answers(VISION, SERVICE)
    say(project, FRONT_LOADED)
    turn = say(project, SERVICE_ANSWER)
    assert project.status == "active"
    reply = turn.replies.get().text
    assert reply.startswith("Записала: Анна Петрова («Зерно»), +79161234567, продукт — Зерно")
    assert "бюджет 500" in reply
    assert "2027-03-15" in reply
    assert not LockedEntity.objects.filter(project=project).exists()  # nothing confirmed yet

    scripted_model.answers({"message": "", "extraStatus": True})
    say(project, "Да, всё верно.")
    assert project.status == "completed"
    locks = {e["key"]: e["reason"] for e in _events(project, BriefingEvent.Kind.LOCK_SET)}
    assert locks == {"client_name": "confirmed", "product_name": "confirmed"}
    assert [e["given"] for e in _events(project, BriefingEvent.Kind.READ_BACK)] == [1]


def test_a_correction_at_the_read_back_is_read_back_once_more(project, say, scripted_model):
    scripted_model.answers(VISION, SERVICE)
    say(project, FRONT_LOADED)
    say(project, SERVICE_ANSWER)  # the first read-back
    scripted_model.answers(EXTRA_CLOSES_AT_ONCE)
    turn = say(project, "Ой, срок не 15 марта, а 22 марта 2027.")
    assert project.status == "active"
    assert "2027-03-22" in turn.replies.get().text
    scripted_model.answers(EXTRA_CLOSES_AT_ONCE)
    say(project, "Ой, и ещё: срок не 22 марта, а 29 марта 2027.")
    # Two read-backs at most: the second correction is applied and the briefing completes.
    assert project.status == "completed"
    assert project.brief["budget"]["deadline"] == "2027-03-29"
    assert [e["given"] for e in _events(project, BriefingEvent.Kind.READ_BACK)] == [1, 2]
    reasons = {e["reason"] for e in _events(project, BriefingEvent.Kind.LOCK_SET)}
    assert reasons == {"corrected"}


def test_a_model_question_about_a_known_field_gets_the_retry_with_the_missing_ones(
    project, say, scripted_model
):
    asks_known = {"message": "Как вас зовут?", "askedField": "clientName", "introStatus": False}
    asks_missing = {"message": "Какой проект?", "askedField": "projectType", "introStatus": False}
    scripted_model.answers(asks_known, asks_missing)
    turn = say(project, "Анна Петрова, +7 916 123-45-67")
    assert turn.replies.get().text == "Какой проект?"
    retry_prompt = "\n".join(m["content"] for m in scripted_model.requests[-1]["messages"])
    assert "clientName is already known" in retry_prompt
    assert "ask only about projectType" in retry_prompt
    assert not DeadLetter.objects.exists()


def test_a_model_repeating_its_question_word_for_word_gets_the_retry(project, say, scripted_model):
    question = {"message": "Какой проект вы задумали?", "introStatus": False}
    scripted_model.answers(question)
    say(project, "Здравствуйте!")
    reworded = {"message": "Это будет ролик, подкаст или что-то другое?", "introStatus": False}
    scripted_model.answers(question, reworded)
    turn = say(project, "Ну, пока думаем.")
    assert turn.replies.get().text == reworded["message"]
    retry_prompt = "\n".join(m["content"] for m in scripted_model.requests[-1]["messages"])
    assert "your previous message word for word" in retry_prompt


def test_a_client_who_closes_before_the_read_back_gets_it_and_the_brief_completes(
    project, say, rules_agent
):
    say(project, FRONT_LOADED)
    assert project.status == "active"
    turn = say(project, "Да, всё верно, больше нечего добавить.")
    assert project.status == "completed"
    summary, done = turn.replies.order_by("seq").values_list("text", flat=True)
    assert summary.startswith("Записала: Анна Петрова")
    assert "поправьте" not in summary  # no question left open
    assert done.startswith("Спасибо, бриф собран")
    # The client never saw the summary before closing: nothing is locked on it yet.
    assert not LockedEntity.objects.filter(project=project).exists()
    # Their "yes" to the summary confirms it, and is no request for the producer.
    turn = say(project, "Подтверждаю.")
    assert turn.replies.get().text.startswith("Спасибо! Бриф у продюсера")
    assert project.brief["additionalRequests"] == []
    locks = {e["key"]: e["reason"] for e in _events(project, BriefingEvent.Kind.LOCK_SET)}
    assert locks["client_name"] == "confirmed"


@pytest.mark.parametrize("ack", ["ок", "👍", "да"])
def test_an_acknowledgement_mid_briefing_goes_on_and_brings_no_read_back(
    project, say, rules_agent, ack
):
    # "ок" to "how can we reach you?" means "go on", not "that is all": nothing is left for
    # the producer and the brief does not complete on the next message
    say(project, "Здравствуйте. Юрфирма «Громов Консалт», Москва. Нужен ролик про услугу.")
    turn = say(project, ack)
    assert project.status == "active"
    reply = turn.replies.get().text
    assert not reply.startswith("Записала")
    assert not _events(project, BriefingEvent.Kind.READ_BACK)
    assert not _events(project, BriefingEvent.Kind.FIELD_LEFT_FOR_PRODUCER)


def test_a_fact_given_at_the_read_back_is_applied_not_kept_as_a_wish(project, say, rules_agent):
    say(project, FRONT_LOADED)
    answers = iter([
        "Сама кофейня, «Зерно».", "Идея — утренний ритуал с чашкой кофе.", "Рекламный ролик.",
        "Вертикальное видео 30 секунд.", "Основной ролик и три коротких версии.",
    ])  # fmt: skip
    reply = ""
    while not reply.startswith("Записала"):  # up to the read-back, whatever is asked
        reply = say(project, next(answers)).replies.order_by("seq").last().text
    say(project, "Бюджет 600 000 рублей, платим по счёту.")
    stages = {s.key: s.fields for s in project.stages.all()}
    assert stages["budget"]["budget"] == 600000
    assert not stages["extra"].get("references")


def test_a_contact_given_after_completion_joins_the_brief(project, say, rules_agent):
    say(project, FRONT_LOADED)
    say(project, "Да, всё верно, больше нечего добавить.")
    assert project.status == "completed"
    say(project, "Забыла: пишите и на почту anna@zerno.coffee, а ещё нам нужны субтитры.")
    assert project.brief["contacts"]["phones"] == ["+79161234567"]
    assert project.brief["contacts"]["emails"] == ["anna@zerno.coffee"]
    assert project.brief["intro"]["contact"] == "+79161234567, anna@zerno.coffee"
    # The message stays an additional request for the producer all the same.
    assert [r["text"][:6] for r in project.brief["additionalRequests"]] == ["Забыла"]


def test_a_fact_added_at_the_read_back_is_read_back_once_more_not_taken_for_a_yes(
    project, say, rules_agent
):
    turn = say(project, FRONT_LOADED.replace("Анна Петрова, +7 916 123-45-67, нужен", "Нужен"))
    answers = {
        "clientName": "Анна", "contact": "Не хочу пока давать телефон.",
        "productName": "Сама кофейня, «Зерно».", "coreIdea": "Утренний ритуал с чашкой кофе.",
        "contentType": "Рекламный ролик.", "format": "Вертикальное видео 30 секунд.",
        "deliverables": "Основной ролик и три коротких версии.",
    }  # fmt: skip
    reply = turn.replies.order_by("seq").last()
    for _ in range(20):  # up to the read-back, answering whatever is asked
        if reply.text.startswith("Записала"):
            break
        answer = answers.get(reply.meta.get("asked_field"), "Ничего не добавлю.")
        reply = say(project, answer).replies.order_by("seq").last()
    reply = reply.text
    assert "+7" not in reply
    turn = say(project, "Хотя ладно, вот почта: anna@zerno.coffee. Креативная сессия — да.")
    assert project.status == "active"
    again = turn.replies.order_by("seq").last().text
    assert again.startswith("Записала")
    assert "anna@zerno.coffee" in again
    say(project, "Да, всё верно.")
    assert project.status == "completed"
    assert [e["given"] for e in _events(project, BriefingEvent.Kind.READ_BACK)] == [1, 2]
