"""The producer's pages through the views: access, each page as a full page and as an htmx
fragment, every action, the transcript poll, escaping and the status lines."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from briefing.common.selectors import waiting_for
from briefing.common.status import WaitingFor
from briefing.models import LockedEntity, Project, StageRun, Turn
from briefing.services import project_create, takeover_start, turn_receive

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def other_project(outsider):
    return project_create(title="Someone else's", client_name="Other", producer=outsider)


def detail(project) -> str:
    return reverse("project_detail", args=[project.pk])


def action_url(project) -> str:
    return reverse("project_action", args=[project.pk])


def act(client, project, action, htmx=True, **data):
    headers = HTMX if htmx else {}
    return client.post(action_url(project), {"action": action, **data}, **headers)


def swapped_out_of_band(content: str, section: str) -> bool:
    return re.search(rf'<section id="{section}"[^>]*hx-swap-oob="true"', content) is not None


def stage(project, key) -> StageRun:
    return StageRun.objects.get(project=project, key=key)


# --- access ----------------------------------------------------------------------------------


def test_anonymous_users_are_sent_to_the_login_page(client, project):
    for response in (
        client.get(reverse("dashboard")),
        client.get(reverse("project_new")),
        client.get(detail(project)),
        client.post(action_url(project), {"action": "pause"}),
    ):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    assert Project.objects.get(pk=project.pk).status == "active"


def test_login_page_renders_and_logs_in(client, producer):
    page = client.get(reverse("login"))
    assert page.status_code == 200
    assert b'name="password"' in page.content
    response = client.post(reverse("login"), {"username": "producer", "password": "pw"})
    assert response.status_code == 302


def test_another_producers_briefing_is_404_for_a_producer_and_open_to_a_manager(
    client, producer_client, other_project, manager
):
    assert producer_client.get(detail(other_project)).status_code == 404
    assert act(producer_client, other_project, "pause").status_code == 404
    assert Project.objects.get(pk=other_project.pk).status == "active"
    client.force_login(manager)
    assert client.get(detail(other_project)).status_code == 200
    assert act(client, other_project, "pause").status_code == 200
    assert Project.objects.get(pk=other_project.pk).status == "paused"


# --- dashboard -------------------------------------------------------------------------------


def test_dashboard_shows_only_the_producers_own_briefings(producer_client, project, other_project):
    page = producer_client.get(reverse("dashboard"))
    assert page.status_code == 200
    assert b"<html" in page.content
    assert b"Promo" in page.content
    assert b"Someone else" not in page.content
    fragment = producer_client.get(reverse("dashboard"), **HTMX)
    assert b"<html" not in fragment.content
    assert b'id="rows"' in fragment.content
    assert b'hx-trigger="every 3s"' in fragment.content
    assert b"Promo" in fragment.content


def test_a_manager_sees_every_briefing(manager_client, project, other_project):
    page = manager_client.get(reverse("dashboard"))
    assert b"Promo" in page.content
    assert b"Someone else" in page.content


def test_dashboard_filters_by_search_status_producer_and_waiting_for(
    manager_client, project, other_project, outsider, say
):
    say(project, "Здравствуйте! Бюджет 1 млн рублей, сдать к 1 апреля")
    takeover_start(project=other_project, user=outsider)

    def titles(**params):
        content = manager_client.get(reverse("dashboard"), params, **HTMX).content.decode()
        return {t for t in ("Promo", "Someone else") if t in content}

    assert titles(q="prom") == {"Promo"}
    assert titles(q="other") == {"Someone else"}  # the client name
    assert titles(producer=outsider.pk) == {"Someone else"}
    assert titles(waiting="producer") == {"Someone else"}
    assert titles(waiting="client") == {"Promo"}
    assert titles(status="completed") == set()
    # The poll keeps the filters.
    page = manager_client.get(reverse("dashboard"), {"waiting": "client"}).content.decode()
    assert "?waiting=client" in page


def test_dashboard_row_shows_progress_waiting_for_and_flags(producer_client, project, say):
    # The pre-parse closes the budget stage; the intro stage is current.
    say(project, "Привет! Бюджет 1,5 млн рублей, сдать нужно к 1 апреля")
    content = producer_client.get(reverse("dashboard"), **HTMX).content.decode()
    assert content.count('class="closed prefill"') == 1
    assert content.count('class="open current"') == 1
    assert content.count('class="pending"') == 3
    assert "waiting-client" in content


# --- a new briefing ------------------------------------------------------------------------


def test_new_briefing_is_created_and_its_page_shows_the_client_link(producer_client, producer):
    page = producer_client.get(reverse("project_new"))
    assert page.status_code == 200
    assert b'name="title"' in page.content
    fragment = producer_client.get(reverse("project_new"), **HTMX)
    assert b"<html" not in fragment.content
    assert b'id="project-form"' in fragment.content
    response = producer_client.post(
        reverse("project_new"),
        {"title": "Launch", "client_name": "Anna", "language": "en", "producer": producer.pk},
    )
    project = Project.objects.get(title="Launch")
    assert response.status_code == 302
    assert response["Location"] == detail(project)
    assert (project.producer, project.language, project.stages.count()) == (producer, "en", 5)
    page = producer_client.get(detail(project)).content.decode()
    link = "http://testserver" + reverse("client_chat", args=[project.client_token])
    assert link in page


def test_new_briefing_with_htmx_redirects_the_client_and_a_bad_form_stays(
    producer_client, producer, outsider
):
    response = producer_client.post(
        reverse("project_new"), {"title": "Teaser", "language": "ru", "producer": producer.pk},
        **HTMX,
    )  # fmt: skip
    assert response["HX-Redirect"] == detail(Project.objects.get(title="Teaser"))
    # A plain producer cannot hand a briefing to someone else.
    response = producer_client.post(
        reverse("project_new"), {"title": "Gift", "language": "ru", "producer": outsider.pk},
        **HTMX,
    )  # fmt: skip
    assert response.status_code == 400
    assert b'id="project-form"' in response.content
    assert b"errorlist" in response.content or b"valid choice" in response.content
    assert not Project.objects.filter(title="Gift").exists()


def test_a_user_without_the_add_permission_cannot_create(client, db):
    client.force_login(get_user_model().objects.create_user("nobody", password="pw"))
    assert client.get(reverse("project_new")).status_code == 403


# --- the briefing page ---------------------------------------------------------------------


def test_project_page_full_and_transcript_fragment(producer_client, project, say):
    say(project, "Здравствуйте!")
    page = producer_client.get(detail(project))
    content = page.content.decode()
    assert page.status_code == 200
    for part in ('id="transcript"', 'id="status"', 'id="stages"', 'id="locks"', 'id="brief"'):
        assert part in content
    assert 'id="stage-intro"' in content
    # Stage titles follow the producer's language (English here), not the client's Russian.
    assert '<a href="#stage-intro">Introduction</a>' in content
    assert "Знакомство" not in content
    fragment = producer_client.get(detail(project), **HTMX).content.decode()
    assert "<html" not in fragment
    assert 'id="transcript"' in fragment
    assert swapped_out_of_band(fragment, "status")
    assert 'id="stages"' not in fragment  # fields being edited are never swapped by the poll
    download = producer_client.get(detail(project), {"download": "json"})
    assert download["Content-Disposition"] == f'attachment; filename="brief-{project.pk}.json"'
    assert set(download.json()) == {"intro", "vision", "service", "budget", "extra"}


def test_transcript_poll_is_204_until_a_turn_is_added(producer_client, project, say):
    say(project, "Здравствуйте!")
    last = project.turns.order_by("-seq").first().seq
    url = f"{detail(project)}?after={last}&open=0"
    assert producer_client.get(url, **HTMX).status_code == 204
    say(project, "Анна")
    response = producer_client.get(url, **HTMX)
    assert response.status_code == 200
    assert "Анна" in response.content.decode()
    assert f"after={last + 2}" in response.content.decode()


def test_transcript_poll_answers_when_an_open_turn_changes_state(producer_client, project):
    turn_receive(project=project, text="Здравствуйте!")  # received, not processed yet
    url = f"{detail(project)}?after=1&open=1"
    assert producer_client.get(url, **HTMX).status_code == 204
    Turn.objects.filter(project=project).update(status=Turn.Status.WAITING_PRODUCER)
    assert producer_client.get(url, **HTMX).status_code == 204  # still open
    Turn.objects.filter(project=project).update(status=Turn.Status.DONE)
    assert producer_client.get(url, **HTMX).status_code == 200


def test_client_text_is_escaped_on_the_producer_page(producer_client, project, say):
    say(project, f"Меня зовут {HOSTILE}")
    for response in (
        producer_client.get(detail(project)),
        producer_client.get(detail(project), **HTMX),
        producer_client.get(reverse("dashboard")),
    ):
        assert HOSTILE.encode() not in response.content
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;"
        in producer_client.get(detail(project)).content.decode()
    )


def test_status_lines_come_from_the_events(producer_client, project, say):
    say(project, "Привет! Бюджет 1,5 млн рублей, сдать нужно к 1 апреля")
    content = producer_client.get(detail(project)).content.decode()
    assert "waiting for the client" in content
    assert re.search(r"stage 4 of 5 \([^)]+\) closed by the pre-parse", content)
    assert re.search(
        r"stage 1 of 5 \([^)]+\) open: missing Client name, Contact, Project type", content
    )
    takeover_start(project=project, user=project.producer)
    content = producer_client.get(detail(project)).content.decode()
    assert "waiting for the producer" in content
    assert "taken over by producer" in content


def test_a_failed_turn_shows_retry_holding_reply_and_the_dead_letter(
    producer_client, project, say, scripted_model
):
    scripted_model.answers(f"Not JSON {HOSTILE}")
    turn = say(project, "Здравствуйте!")
    assert turn.status == "failed"
    content = producer_client.get(detail(project)).content.decode()
    assert "retry used" in content
    assert "holding reply sent" in content
    assert "dead letter" in content
    assert "Raw responses" in content
    assert "Not JSON &lt;script&gt;" in content
    assert HOSTILE not in content
    assert waiting_for(project) == WaitingFor.PRODUCER
    dashboard = producer_client.get(reverse("dashboard")).content.decode()
    assert "1 dead letter" in dashboard
    assert "1 holding reply" in dashboard


def test_an_agent_turn_shows_its_call_on_demand(producer_client, project, say):
    say(project, "Здравствуйте!")
    content = producer_client.get(detail(project)).content.decode()
    assert '<details class="call">' in content
    assert "outcome layer" in content
    assert "cacheable prefix" in content


def test_waiting_for_follows_the_turns(project, producer, say, django_capture_on_commit_callbacks):
    assert waiting_for(project) == WaitingFor.CLIENT
    turn_receive(project=project, text="Здравствуйте!")  # queued, not run
    assert waiting_for(project) == WaitingFor.AGENT
    Turn.objects.filter(project=project).delete()
    say(project, "Здравствуйте!")
    assert waiting_for(project) == WaitingFor.CLIENT
    Project.objects.filter(pk=project.pk).update(status=Project.Status.COMPLETED)
    assert waiting_for(project) == WaitingFor.NOBODY


# --- actions -------------------------------------------------------------------------------


def test_correct_a_field_valid_and_invalid(producer_client, project):
    response = act(producer_client, project, "correct", stage="budget", field="budget",
                   value="450 000")  # fmt: skip
    assert response.status_code == 200
    content = response.content.decode()
    assert content.lstrip().startswith('<article id="stage-budget"')
    assert swapped_out_of_band(content, "status")
    assert 'id="composer"' not in content  # a message being typed is never wiped
    assert stage(project, "budget").fields["budget"] == 450_000

    response = act(producer_client, project, "correct", stage="budget", field="budget",
                   value="a lot")  # fmt: skip
    assert response.status_code == 400
    content = response.content.decode()
    assert content.lstrip().startswith('<article id="stage-budget"')
    assert re.search(r'role="alert">[^<:]+: “a lot” is not an amount; write it as', content)
    assert 'value="a lot"' in content  # what the producer typed stays in place
    assert stage(project, "budget").fields["budget"] == 450_000


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("1,2 млн", 1_200_000),
        ("1 200 000 ₽", 1_200_000),
        ("500 тыс.", 500_000),
        ("450000", 450_000),
    ],
)
def test_a_budget_is_read_as_people_type_it(producer_client, project, typed, stored):
    response = act(producer_client, project, "correct", stage="budget", field="budget",
                   value=typed)  # fmt: skip
    assert response.status_code == 200
    assert stage(project, "budget").fields["budget"] == stored


def test_a_deadline_in_words_is_stored_as_the_date_the_bot_would_read(producer_client, project):
    act(producer_client, project, "correct", stage="budget", field="deadline",
        value="20 мая")  # fmt: skip
    deadline = stage(project, "budget").fields["deadline"]
    assert re.fullmatch(r"20\d\d-05-20", deadline)
    act(producer_client, project, "correct", stage="budget", field="deadline",
        value="как можно скорее")  # fmt: skip
    assert stage(project, "budget").fields["deadline"] == "как можно скорее"


def test_correct_list_and_flag_fields(producer_client, project):
    act(producer_client, project, "correct", stage="service", field="deliverables",
        value="Main film\n\n 3 cut-downs ")  # fmt: skip
    act(producer_client, project, "correct", stage="service", field="creativeSession",
        value="true")  # fmt: skip
    fields = stage(project, "service").fields
    assert fields["deliverables"] == ["Main film", "3 cut-downs"]
    assert fields["creativeSession"] is True


def test_correct_without_htmx_redirects_with_the_outcome_in_messages(producer_client, project):
    response = act(producer_client, project, "correct", htmx=False, stage="budget",
                   field="budget", value="a lot")  # fmt: skip
    assert response.status_code == 302
    assert response["Location"] == f"{detail(project)}#stage-budget"
    page = producer_client.get(response["Location"]).content.decode()
    assert "“a lot” is not an amount" in page
    response = act(producer_client, project, "correct", htmx=False, stage="intro",
                   field="clientName", value="Анна")  # fmt: skip
    assert response.status_code == 302
    assert stage(project, "intro").fields["clientName"] == "Анна"
    assert LockedEntity.objects.get(project=project, key="client_name").value == "Анна"


def test_lock_edit_and_unlock(producer_client, project):
    response = act(producer_client, project, "lock", key="product_name", value="Зерно")
    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<section id="locks"')
    assert "Зерно" in response.content.decode()
    assert stage(project, "vision").fields["productName"] == "Зерно"
    act(producer_client, project, "lock", key="product_name", value="Зерно+")
    assert LockedEntity.objects.get(project=project, key="product_name").value == "Зерно+"
    response = act(producer_client, project, "lock", key="product_name", value="  ")
    assert response.status_code == 400
    assert "a lock needs a key and a value" in response.content.decode()
    response = act(producer_client, project, "unlock", key="product_name")
    assert response.status_code == 200
    assert not LockedEntity.objects.filter(project=project).exists()
    response = act(producer_client, project, "unlock", key="product_name")
    assert response.status_code == 400
    assert "is not locked" in response.content.decode()


def test_takeover_message_release(producer_client, project, say):
    response = act(producer_client, project, "takeover")
    assert response.status_code == 200
    assert "Release to the agent" in response.content.decode()
    waiting = say(project, "Есть кто живой?")
    assert waiting.status == "waiting_producer"
    assert act(producer_client, project, "takeover").status_code == 400  # already taken over

    response = act(producer_client, project, "message", text="")
    assert response.status_code == 400
    assert "the message is empty" in response.content.decode()
    response = act(producer_client, project, "message", text="Добрый день, я продюсер.")
    assert response.status_code == 200
    content = response.content.decode()
    assert content.lstrip().startswith('<section id="composer"')
    assert swapped_out_of_band(content, "transcript")
    assert "Добрый день, я продюсер." in content
    waiting.refresh_from_db()
    assert waiting.status == "done"

    response = act(producer_client, project, "release", htmx=False)
    assert response.status_code == 302
    project.refresh_from_db()
    assert project.taken_over_by is None


def test_force_close_needs_a_reason_while_fields_are_missing(producer_client, project):
    response = act(producer_client, project, "force_close", stage="intro")
    assert response.status_code == 400
    content = response.content.decode()
    assert content.lstrip().startswith('<section id="stages"')
    assert "required fields are missing (Client name, Contact, Project type)" in content
    assert stage(project, "intro").status == "open"
    response = act(producer_client, project, "force_close", stage="intro", reason="by phone")
    assert response.status_code == 200
    intro = stage(project, "intro")
    assert (intro.status, intro.closed_by) == ("closed", "producer")
    assert "closed by the producer (reason: by phone)" in response.content.decode()


def test_reopen_a_closed_stage(producer_client, project):
    act(producer_client, project, "force_close", stage="intro", reason="by phone")
    response = act(producer_client, project, "reopen", stage="intro")
    assert response.status_code == 200
    assert stage(project, "intro").status == "open"
    response = act(producer_client, project, "reopen", stage="intro")
    assert response.status_code == 400
    assert "Introduction is not closed" in response.content.decode()
    assert act(producer_client, project, "reopen", stage="nope").status_code == 400


def test_pause_and_resume(producer_client, project):
    response = act(producer_client, project, "pause")
    assert response.status_code == 200
    assert "Resume" in response.content.decode()
    assert Project.objects.get(pk=project.pk).status == "paused"
    assert waiting_for(project) == WaitingFor.PRODUCER
    assert act(producer_client, project, "pause").status_code == 400
    response = act(producer_client, project, "resume", htmx=False)
    assert response.status_code == 302
    assert Project.objects.get(pk=project.pk).status == "active"


def test_unknown_action_and_get_are_refused(producer_client, project):
    assert act(producer_client, project, "explode").status_code == 400
    assert producer_client.get(action_url(project)).status_code == 405


def test_the_header_names_the_client_once_the_briefing_learnt_who_they_are(client, producer, say):
    """Created without a client name, the briefing learns it from the client: the header
    stops saying "no client name"."""
    project = project_create(title="Ролик", language="ru", producer=producer)
    client.force_login(producer)
    url = reverse("project_detail", args=[project.pk])
    assert "no client name" in client.get(url).content.decode()
    say(project, "Здравствуйте! Я Анна Смирнова, кофейня «Зерно», +7 916 123-45-67. Нужен ролик.")
    head = client.get(url).content.decode().split('class="page-head"')[1].split("</p>")[0]
    assert "Анна Смирнова" in head
    assert "+79161234567" in head
    assert "no client name" not in head


# --- the dialogue's state of each field --------------------------------------------------------


def test_each_field_shows_its_dialogue_state(producer_client, project, say):
    """Asked twice without an answer: left for the producer; a reply taken after the second
    ask: to check; a value read from the client; a field asked once."""
    say(project, "Здравствуйте")  # the intro asks for the name and the company together
    for _ in range(2):
        say(project, "хм")  # the name asked again, then left for the producer
    intro = stage(project, "intro")
    assert intro.dialogue["clientName"] == {"asked": 2, "state": "left", "evidence": "хм"}
    intro.fields = {**intro.fields, "company": "Зерно"}
    intro.dialogue = {**intro.dialogue, "company": {"asked": 2, "state": "to_check"}}
    intro.save()
    page = producer_client.get(detail(project), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert re.search(r"Client name.*?field-state-left[^>]*>left for you<", page, re.S)
    assert re.search(r"Company.*?field-state-to_check[^>]*>to check<", page, re.S)
    assert re.search(r"Contact.*?field-state-asked[^>]*>asked 1 time<", page, re.S)
    russian = producer_client.get(detail(project), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "оставлено вам" in russian
    assert "left for you" not in russian


def test_a_lock_is_chosen_from_the_briefings_fields_not_typed(producer_client, project):
    page = producer_client.get(detail(project), headers={"Accept-Language": "ru"}).text
    assert '<select name="key"' in page
    assert '<option value="product_name">' in page  # shown by its label, sent as its key
    refused = producer_client.post(
        action_url(project), {"action": "lock", "key": "Продукт", "value": "Зерно"},
        headers={"Accept-Language": "ru", "HX-Request": "true"},
    )  # fmt: skip
    assert "выберите из списка, что закрепить" in refused.text
    assert not LockedEntity.objects.filter(project=project).exists()
    act(producer_client, project, "lock", key="product_name", value="Зерно")
    assert LockedEntity.objects.get(project=project).key == "product_name"


def test_a_field_filled_after_the_page_was_opened_is_not_overwritten_silently(
    producer_client, project
):
    page = producer_client.get(detail(project)).text
    assert 'name="field" value="productName"><input type="hidden" name="stored" value="">' in page
    vision = stage(project, "vision")
    vision.fields = {**vision.fields, "productName": "Зерно"}  # the agent read it meanwhile
    vision.save()
    form = {"stage": "vision", "field": "productName", "stored": "", "value": "Кофе"}
    refused = producer_client.post(
        action_url(project), {"action": "correct", **form},
        headers={"Accept-Language": "en", "HX-Request": "true"},
    )  # fmt: skip
    assert refused.status_code == 400
    assert "it is now “Зерно”" in refused.text
    assert stage(project, "vision").fields["productName"] == "Зерно"
    act(producer_client, project, "correct", **{**form, "stored": "Зерно"})
    assert stage(project, "vision").fields["productName"] == "Кофе"


def test_the_inbox_row_names_the_client_the_reader_found_and_says_just_now(
    producer_client, producer, django_capture_on_commit_callbacks
):
    project = project_create(title="Ролик", language="ru", producer=producer)
    intro = stage(project, "intro")
    intro.fields = {"clientName": "Анна Петрова"}
    intro.save()
    Project.objects.filter(pk=project.pk).update(profile={"intro": {"clientName": "Анна Петрова"}})
    takeover_start(project=project, user=producer)
    with django_capture_on_commit_callbacks(execute=True):
        turn_receive(project=project, text="Вы здесь?")  # waits for the producer
    page = producer_client.get("/", headers={"Accept-Language": "ru"}).text
    assert "Анна Петрова" in page
    assert "0 минут" not in page
    assert "только что" in page
