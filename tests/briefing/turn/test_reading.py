"""A client's messages read for every stage through the real orchestrator and the rules agent:
corrections win, a price is no budget, nothing is asked twice, nothing chatty is stored, the
brief is read back before it completes, locks follow confirmation (a producer decides a
proposed change), and what a producer or a lead already knows fills the intro stage."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from briefing.common.selectors import lock_proposals_pending
from briefing.models import BriefingEvent, LockedEntity, StageRun, Turn
from briefing.reader.chatter import is_chatter
from briefing.services import project_create

Kind = BriefingEvent.Kind
HTMX = {"HTTP_HX_REQUEST": "true"}


pytestmark = pytest.mark.usefixtures("rules_agent")


def fields(project, key):
    return StageRun.objects.get(project=project, key=key).fields


def agent_lines(project):
    return list(
        project.turns.filter(role=Turn.Role.AGENT).order_by("seq").values_list("text", flat=True)
    )


def talk(project, say, *texts):
    for text in texts:
        say(project, text)
    project.refresh_from_db()


FIRST = (
    "Добрый день! Я Олег Кравцов из компании «Полярная Ягода». Нужен ролик к запуску морса "
    "«Клюквенный Север». Бюджет примерно 2 млн рублей, сдать к 15 апреля 2027 года. "
    "Телефон +7 (905) 111-22-33."
)
# FIRST without the kind of project: the intro stays open on the project type.
FIRST_UNTYPED = FIRST.replace("Нужен ролик к запуску", "Готовимся к запуску")
# The rest of a conversation after FIRST: the answers to what is still missing.
REST = [
    "Северная ягода как заряд бодрости.",
    "Продажи в сетях.",
    "Молодёжь 20–35 лет.",
    "Рекламный ролик для ТВ.",
    "20 секунд, горизонталь.",
    "Ролик и две версии по 10 секунд.",
]


def test_one_message_fills_every_stage_and_nothing_is_asked_twice(project, say):
    say(project, FIRST)
    assert fields(project, "intro") == {
        "clientName": "Олег Кравцов",
        "company": "Полярная Ягода",
        "contact": "+79051112233",
        "projectType": "ролик",
    }
    assert fields(project, "vision") == {"productName": "Клюквенный Север"}
    assert fields(project, "budget") == {
        "budget": 2_000_000, "currency": "RUB", "deadline": "2027-04-15"
    }  # fmt: skip
    # the intro is complete: the first fields the message did not give are asked, together
    assert "Расскажите об идее: что вы хотите показать" in agent_lines(project)[-1]
    talk(project, say, *REST)
    asked = agent_lines(project)
    assert len(asked) == len(set(asked))  # no question twice
    assert not any("зовут" in line or "бюджет вы" in line for line in asked)
    event = project.events.get(kind=Kind.PREFILL_FILLED, data__field="budget")
    assert event.data["evidence"] == "2 млн рублей"
    assert event.data["statement"] == "mention"
    assert 0 < event.data["confidence"] <= 1


def test_the_brief_is_read_back_and_a_confirmation_completes_it_without_being_stored(project, say):
    talk(project, say, FIRST, *REST)
    readback = agent_lines(project)[-1]
    assert readback.startswith("Записала: Олег Кравцов («Полярная Ягода»), +79051112233")
    assert "бюджет 2\u202f000\u202f000 RUB" in readback
    assert project.status == "active"
    say(project, "Да, всё верно.")
    project.refresh_from_db()
    assert project.status == "completed"
    stored = [v for s in project.stages.all() for v in s.fields.values()]
    assert not any(is_chatter(value) for value in stored)
    assert fields(project, "extra").get("references") in (None, [])
    locks = dict(project.locks.values_list("key", "value"))
    assert locks == {"client_name": "Олег Кравцов", "product_name": "Клюквенный Север"}


def test_a_correction_wins_even_in_a_closed_stage(project, say):
    say(project, FIRST_UNTYPED)
    budget = StageRun.objects.get(project=project, key="budget")
    assert budget.status == StageRun.Status.CLOSED  # the first message closed it
    say(project, "Рекламный ролик. Ой, бюджет не 2 млн, а 2,5 млн.")
    budget.refresh_from_db()
    assert budget.status == StageRun.Status.CLOSED  # not reopened
    assert budget.fields["budget"] == 2_500_000
    assert budget.fields["currency"] == "RUB"
    assert "2\u202f500\u202f000" in budget.summary
    event = project.events.get(kind=Kind.FIELD_CORRECTED_BY_CLIENT)
    assert (event.data["old"], event.data["new"]) == (2_000_000, 2_500_000)
    assert event.data["evidence"] == "2,5 млн"
    assert event.data["statement"] == "correction"
    # the answer to the question asked is still taken from the same message
    assert fields(project, "intro")["projectType"] == "Рекламный ролик"


def test_a_surer_reading_replaces_a_guess_and_never_a_surer_value(project, say):
    say(project, "Здравствуйте, мы запускаем новую линейку сидра в апреле, нужен ролик.")
    assert fields(project, "budget")["deadline"] == "2027-04-30"  # said in passing
    say(project, "Анна Смирнова, +7 905 111-22-33. Ролик нужен к 20 марта 2027.")
    assert fields(project, "budget")["deadline"] == "2027-03-20"  # said as the limit
    say(project, "Акция у нас «успей до конца года», это к слову.")
    assert fields(project, "budget")["deadline"] == "2027-03-20"  # not surer than the limit
    stage = StageRun.objects.get(project=project, key="budget")
    assert stage.dialogue["deadline"]["read"] == {"value": "2027-03-20", "confidence": 0.84}


def test_a_day_corrected_without_its_month_keeps_the_deadlines_month(project, say):
    say(project, "Здравствуйте, нужен ролик, срок — 12 марта 2027.")
    say(project, "Ой, не 12-го, а 19-го.")
    assert fields(project, "budget")["deadline"] == "2027-03-19"
    event = project.events.filter(kind=Kind.FIELD_CORRECTED_BY_CLIENT).get()
    assert (event.data["old"], event.data["new"]) == ("2027-03-12", "2027-03-19")
    say(project, "И не 5-го, а 6-го, если что.")  # a day the deadline does not have
    assert fields(project, "budget")["deadline"] == "2027-03-19"


def test_a_day_corrected_the_other_way_round_keeps_the_deadlines_month(project, say):
    say(project, "We need the film by April 3 so the board can see it.")
    say(project, "Wait, no — by the 10th, not the 3rd. The board meeting moved.")
    assert fields(project, "budget")["deadline"].endswith("-04-10")


@pytest.mark.parametrize(
    ("first", "fix", "field", "stage", "expected"),
    [
        ("Здравствуйте, меня зовут Ольга Мартынюк, фабрика «Мягкий край».",
         "ой не мартынюк а мартынова это распозналка напутала 🙈", "clientName", "intro",
         "Ольга Мартынова"),
        ("I'm Yurii Tkach, owner of Lisova Maysternia, furniture workshop in Lviv.",
         "Sorry, autocorrect — Tkachuk, not Tkach.", "clientName", "intro", "Yurii Tkachuk"),
        ("Добрый день, я Павел из компании «Колорит-Урал», нужен ролик.",
         "Поправлю: «Колорит-Уралхим», а не «Колорит-Урал».", "company", "intro",
         "Колорит-Уралхим"),
    ],
)  # fmt: skip
def test_one_word_put_right_changes_the_value_that_holds_it(
    project, say, first, fix, field, stage, expected
):
    say(project, first)
    before = dict(fields(project, stage))
    say(project, fix)
    assert fields(project, stage)[field] == expected
    # nothing else moved: a word put right touches only the value that held it
    after = fields(project, stage)
    assert {k: v for k, v in after.items() if k != field} == {
        k: v for k, v in before.items() if k != field and k in after
    }


def test_a_word_put_right_that_no_value_holds_changes_nothing(project, say):
    say(project, FIRST)
    before = {key: dict(fields(project, key)) for key in ("intro", "vision", "budget")}
    say(project, "Нам нужен не клип, а реклама.")
    for key, values in before.items():
        for name, value in values.items():
            if name in ("clientName", "company", "productName"):
                assert fields(project, key)[name] == value


def test_a_price_is_never_the_budget(project, say):
    say(project, "Здравствуйте, я Анна Смирнова. Наш сок стоит 99 рублей за бутылку.")
    assert "budget" not in fields(project, "budget")
    turn = project.turns.filter(role=Turn.Role.CLIENT).get()
    assert turn.meta["reading"]["mentions"][0]["field"] == "price"
    assert turn.meta["reading"]["mentions"][0]["value"] == 99


def test_a_counter_question_gets_the_producer_once_and_the_next_question(project, say):
    say(project, "Добрый день, нужен ролик для кофейни.")
    question = agent_lines(project)[-1]
    say(project, "А сколько стоит такой ролик?")
    reply = agent_lines(project)[-1]
    assert "продюсер" in reply
    assert question not in reply  # the client is not asked the same again at once
    assert reply.endswith("Оставьте, пожалуйста, телефон или e-mail.")
    assert fields(project, "intro") == {"projectType": "ролик"}  # from the first message


def test_a_name_and_a_company_are_asked_together_and_read_apart(project, say):
    say(project, "Здравствуйте, нужен ролик.")
    assert agent_lines(project)[-1] == "Как вас зовут и какую компанию вы представляете?"
    say(project, "Меня зовут Анна, я из «Зерна».")
    assert fields(project, "intro") == {
        "clientName": "Анна", "company": "Зерно", "projectType": "ролик"
    }  # fmt: skip


def test_known_data_from_the_form_fills_the_intro_and_is_not_asked_again(producer, say):
    project = project_create(
        title="Ролик", client_name="Игорь Петров", client_company="Пульс",
        client_contact="8 (903) 555-12-34", language="ru", producer=producer,
    )  # fmt: skip
    assert fields(project, "intro") == {
        "clientName": "Игорь Петров", "company": "Пульс", "contact": "+79035551234"
    }  # fmt: skip
    lock = LockedEntity.objects.get(project=project, key="client_name")
    assert (lock.value, lock.source, lock.set_by) == ("Игорь Петров", "producer", producer)
    sources = set(
        project.events.filter(kind=Kind.PREFILL_FILLED).values_list("data__source", flat=True)
    )
    assert sources == {"producer"}
    say(project, "Здравствуйте!")
    assert agent_lines(project)[-1].startswith("Какой проект вы задумали")


def test_a_lead_fills_the_intro_with_source_lead(producer):
    from crm.models import Lead
    from crm.services import lead_start_briefing

    lead = Lead.objects.create(
        client_name="Мария Ким", phones=["+79161112233"], language="ru", summary="Ролик",
        last_message_at=timezone.now(),
    )  # fmt: skip
    project = lead_start_briefing(lead=lead, user=producer)
    assert fields(project, "intro") == {"clientName": "Мария Ким", "contact": "+79161112233"}
    assert LockedEntity.objects.get(project=project, key="client_name").source == "lead"


def test_a_locked_name_corrected_by_the_client_is_a_proposal_the_producer_accepts(
    producer, client, say
):
    project = project_create(title="Ролик", client_name="Игорь", language="ru", producer=producer)
    say(project, "Меня зовут Олег Петров, телефон +7 903 555-12-34.")
    # the lock holds until a producer decides
    assert fields(project, "intro")["clientName"] == "Игорь"
    [proposal] = lock_proposals_pending(project)
    assert proposal.data | {"evidence": "x"} == {
        "key": "client_name", "field": "clientName", "stage": "intro", "old": "Игорь",
        "new": "Олег Петров", "evidence": "x",
    }  # fmt: skip
    client.force_login(producer)
    page = client.get(reverse("project_detail", args=[project.pk])).content.decode()
    assert "Proposed by the client" in page
    assert "Олег Петров" in page
    url = reverse("project_action", args=[project.pk])
    response = client.post(url, {"action": "lock_accept", "proposal": proposal.pk}, **HTMX)
    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<section id="locks"')
    assert LockedEntity.objects.get(project=project, key="client_name").value == "Олег Петров"
    assert fields(project, "intro")["clientName"] == "Олег Петров"
    assert project.events.filter(kind=Kind.LOCK_CHANGE_ACCEPTED).count() == 1
    assert lock_proposals_pending(project) == []
    # decided once: a second click is refused
    again = client.post(url, {"action": "lock_reject", "proposal": proposal.pk}, **HTMX)
    assert again.status_code == 400


def test_a_locked_first_name_completed_by_the_client_needs_no_decision(producer, say):
    # The producer typed the first name; the client gives it in full: the same person.
    project = project_create(title="Ролик", client_name="Игорь", language="ru", producer=producer)
    say(project, "Меня зовут Игорь Петров, телефон +7 903 555-12-34.")

    assert fields(project, "intro")["clientName"] == "Игорь Петров"
    assert LockedEntity.objects.get(project=project, key="client_name").value == "Игорь Петров"
    assert lock_proposals_pending(project) == []
    corrected = project.events.get(kind=Kind.FIELD_CORRECTED_BY_CLIENT)
    assert (corrected.data["old"], corrected.data["new"], corrected.data["refined"]) == (
        "Игорь", "Игорь Петров", True,
    )  # fmt: skip


def test_a_rejected_proposal_leaves_the_lock(producer, client, say):
    project = project_create(title="Ролик", client_name="Игорь", language="ru", producer=producer)
    say(project, "Меня зовут Пётр Сидоров.")
    [proposal] = lock_proposals_pending(project)
    client.force_login(producer)
    url = reverse("project_action", args=[project.pk])
    response = client.post(url, {"action": "lock_reject", "proposal": proposal.pk})
    assert response.status_code == 302  # without htmx: back to the page
    assert LockedEntity.objects.get(project=project, key="client_name").value == "Игорь"
    assert project.events.filter(kind=Kind.LOCK_CHANGE_REJECTED).count() == 1


def test_an_llm_stage_prompt_carries_what_is_already_known(project, say, scripted_model):
    scripted_model.answers({"message": "Какой проект?", "introStatus": False})
    say(project, FIRST_UNTYPED)
    prompt = "\n".join(m["content"] for m in scripted_model.requests[-1]["messages"])
    [known] = [line for line in prompt.splitlines() if line.startswith("Already known")]
    assert "Клюквенный Север" in known  # the vision stage, still to come
    # the budget stage the first message closed is in the closed stages' summaries, once
    assert "2000000" not in known
    assert "2\u202f000\u202f000 RUB" in prompt


def test_a_model_is_told_which_fields_are_left_for_the_producer(project, say, scripted_model):
    intro = StageRun.objects.get(project=project, key="intro")
    intro.status = StageRun.Status.OPEN
    intro.dialogue = {"contact": {"asked": 2, "state": "left"}, "clientName": {"asked": 1}}
    intro.save()
    scripted_model.answers({"message": "Какой проект?", "introStatus": False})
    say(project, "Меня зовут Анна.")
    prompt = "\n".join(m["content"] for m in scripted_model.requests[-1]["messages"])
    [left] = [line for line in prompt.splitlines() if line.startswith("Left for the producer")]
    assert left.endswith(": contact")  # asked once (the name) is not left


def test_a_name_put_right_whole_leaves_a_product_that_shares_a_word(project, say):
    say(project, "Здравствуйте! Я Ксения, маркетолог онлайн-школы «Volga English». "
                 "Запускаем курс «English for IT».")  # fmt: skip
    assert fields(project, "intro")["company"] == "Volga English"
    say(project, "Sorry, по привычке: школа называется Volga Talks, не Volga English.")
    assert fields(project, "intro")["company"] == "Volga Talks"
    assert fields(project, "vision")["productName"] == "English for IT"


def test_a_first_name_is_completed_by_the_full_name_said_later(project, say):
    say(project, "Привет! Я Денис, у нас кинологическая школа «Хвост».")
    assert fields(project, "intro")["clientName"] == "Денис"
    say(project, "Меня Денис зовут, Денис Ямщиков.")
    assert fields(project, "intro")["clientName"] == "Денис Ямщиков"


@pytest.mark.parametrize(
    ("first", "fix", "company", "product"),
    [
        ("Добрый день. Меня зовут Тимур Алиев, я директор компании «СолнеДом». Весной "
         "запускаем новую услугу «Солнце под ключ».",
         "Опечатка в названии компании: правильно «СолнцеДом», через «ц».", "СолнцеДом",
         "Солнце под ключ"),
        ("Hi, I'm Ciaran Dwyer from Nore Ash Hurlies, we're launching a hurley called the "
         "Ash Feather.", "Sorry, autocorrect: Hurleys.", "Nore Ash Hurleys", "Ash Feather"),
    ],
)  # fmt: skip
def test_a_word_spelt_again_puts_right_only_the_value_it_is_nearest_to(
    project, say, first, fix, company, product
):
    say(project, first)
    say(project, fix)
    assert fields(project, "intro")["company"] == company
    assert product in str(fields(project, "vision").get("productName"))
