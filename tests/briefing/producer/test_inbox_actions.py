"""The inbox's producer actions through the views, as a Chatwoot or Intercom user expects
them: assign and reassign (the picker names people), resolve and reopen, snooze until a time
(back on time, or when the client writes), mark unread, internal notes the client never sees;
each audited with who and when. And the briefing page's small things: the unread count
refreshes there too, the "created" message shows once, no "take over first" on a completed
briefing, a new link (or revoking it) is asked for again first, without JavaScript."""

from __future__ import annotations

import csv
import datetime
import io
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from briefing.common.inbox import snoozes_wake
from briefing.models import BriefingEvent, BriefingNote, Project, Turn
from briefing.services import (
    producer_message_post,
    project_create,
    project_resolve,
    project_snooze,
    turn_receive,
)
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db
Kind = BriefingEvent.Kind
HTMX = {"HTTP_HX_REQUEST": "true"}


def detail(project) -> str:
    return reverse("project_detail", args=[project.pk])


def act(client, project, action, htmx=True, **data):
    headers = HTMX if htmx else {}
    return client.post(
        reverse("project_action", args=[project.pk]), {"action": action, **data}, **headers
    )


def fresh(project) -> Project:
    return Project.objects.get(pk=project.pk)


def dashboard_ids(client, **query) -> list[int]:
    html = client.get(reverse("dashboard"), query).content.decode()
    return [int(n) for n in re.findall(r'data-project="(\d+)"', html)]


def last_event(project) -> BriefingEvent:
    return BriefingEvent.objects.filter(project=project).order_by("-id").first()


@pytest.fixture
def anna(db):
    return user_in_group("anna", "Producers", first_name="Анна", last_name="Смирнова")


# --- assign and reassign -------------------------------------------------------------------


def test_the_assign_picker_names_people_and_a_manager_reassigns(manager_client, manager, anna):
    project = project_create(title="Promo", producer=manager)
    page = manager_client.get(detail(project)).content.decode()
    picker = re.search(r'<select name="producer"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert f'<option value="{anna.pk}">Анна Смирнова</option>' in picker
    assert ">anna<" not in picker  # the full name, not the username

    response = act(manager_client, project, "assign", producer=anna.pk)
    assert response.status_code == 200
    assert "Анна Смирнова" in response.content.decode()  # the controls say who has it now
    assert fresh(project).producer == anna
    event = last_event(project)
    assert (event.kind, event.actor) == (Kind.PRODUCER_ASSIGNED, manager)
    assert event.data == {
        "old": manager.pk, "old_name": "boss", "new": anna.pk, "new_name": "Анна Смирнова",
    }  # fmt: skip
    page = manager_client.get(detail(project)).content.decode()
    assert "assigned to Анна Смирнова (was boss)" in page


def test_a_producer_hands_a_briefing_over_and_goes_back_to_the_inbox(
    producer_client, producer, project, anna
):
    response = act(producer_client, project, "assign", htmx=False, producer=anna.pk)
    assert response.status_code == 302
    assert response["Location"] == reverse("dashboard")
    assert fresh(project).producer == anna
    # The briefing is now Anna's: its page is no longer the producer's to see.
    assert producer_client.get(detail(project)).status_code == 404
    # With htmx the browser is sent to the inbox too.
    second = project_create(title="Second", producer=producer)
    response = act(producer_client, second, "assign", producer=anna.pk)
    assert response["HX-Redirect"] == reverse("dashboard")
    assert fresh(second).producer == anna


def test_only_a_producer_or_manager_can_be_given_a_briefing(producer_client, project, producer):
    stranger = user_in_group("stranger", "Producers")
    stranger.groups.clear()
    response = act(producer_client, project, "assign", producer=stranger.pk)
    assert response.status_code == 400
    assert "choose a producer from the list" in response.content.decode()
    response = act(producer_client, project, "assign", producer=producer.pk)
    assert response.status_code == 400
    assert "already assigned" in response.content.decode()
    assert fresh(project).producer == producer
    assert not BriefingEvent.objects.filter(kind=Kind.PRODUCER_ASSIGNED).exists()


def test_the_new_briefing_and_dashboard_pickers_and_rows_name_people(manager_client, anna):
    project_create(title="Anna's", producer=anna)
    new_page = manager_client.get(reverse("project_new")).content.decode()
    assert f'<option value="{anna.pk}">Анна Смирнова</option>' in new_page
    inbox = manager_client.get(reverse("dashboard")).content.decode()
    assert f'<option value="{anna.pk}">Анна Смирнова</option>' in inbox
    assert "<td>Анна Смирнова</td>" in inbox


# --- resolve and reopen ----------------------------------------------------------------------


def test_resolve_takes_a_conversation_out_of_the_open_list_and_reopen_brings_it_back(
    producer_client, producer, project
):
    other = project_create(title="Other", producer=producer)
    response = act(producer_client, project, "resolve")
    assert response.status_code == 200
    assert "Reopen the conversation" in response.content.decode()
    assert fresh(project).resolved_at is not None
    assert (last_event(project).kind, last_event(project).actor) == (
        Kind.BRIEFING_RESOLVED,
        producer,
    )
    assert dashboard_ids(producer_client) == [other.pk]
    assert dashboard_ids(producer_client, view="resolved") == [project.pk]
    assert sorted(dashboard_ids(producer_client, view="all")) == sorted([project.pk, other.pk])
    # The htmx refresh of the open list agrees.
    rows = producer_client.get(reverse("dashboard"), **HTMX).content.decode()
    assert f'data-project="{project.pk}"' not in rows

    response = act(producer_client, project, "reopen_briefing", htmx=False)
    assert response.status_code == 302
    assert fresh(project).resolved_at is None
    assert last_event(project).kind == Kind.BRIEFING_REOPENED
    assert sorted(dashboard_ids(producer_client)) == sorted([project.pk, other.pk])
    response = act(producer_client, project, "reopen_briefing")
    assert response.status_code == 400
    assert "not resolved" in response.content.decode()


def test_a_client_message_reopens_a_resolved_conversation_and_ends_a_snooze(producer, project):
    project_resolve(project=project, user=producer)
    turn_receive(project=project, text="Здравствуйте, я ещё здесь")
    assert fresh(project).resolved_at is None
    project_snooze(
        project=project, until=timezone.now() + datetime.timedelta(days=1), user=producer
    )
    assert fresh(project).snoozed_until is not None
    turn_receive(project=project, text="Ответьте, пожалуйста")
    assert fresh(project).snoozed_until is None


# --- snooze ------------------------------------------------------------------------------------


def test_snooze_for_an_hour_or_until_a_time(producer_client, producer, project):
    before = timezone.now()
    response = act(producer_client, project, "snooze", preset="1h")
    assert response.status_code == 200
    until = fresh(project).snoozed_until
    assert datetime.timedelta(minutes=59) < until - before < datetime.timedelta(minutes=61)
    assert "Snoozed until" in response.content.decode()
    assert last_event(project).kind == Kind.BRIEFING_SNOOZED
    assert last_event(project).data == {"until": until.isoformat()}
    assert dashboard_ids(producer_client) == []
    assert dashboard_ids(producer_client, view="snoozed") == [project.pk]

    later = timezone.localtime(timezone.now() + datetime.timedelta(days=3)).replace(
        second=0, microsecond=0
    )
    response = act(
        producer_client, project, "snooze", htmx=False, until=later.strftime("%Y-%m-%dT%H:%M")
    )
    assert response.status_code == 302
    assert fresh(project).snoozed_until == later

    response = act(producer_client, project, "wake")
    assert response.status_code == 200
    assert fresh(project).snoozed_until is None
    assert last_event(project).kind == Kind.BRIEFING_WOKEN
    assert dashboard_ids(producer_client) == [project.pk]


def test_tomorrow_is_nine_in_the_morning_in_the_studios_time_zone(producer_client, project):
    act(producer_client, project, "snooze", preset="tomorrow")
    until = timezone.localtime(fresh(project).snoozed_until)
    assert (until.hour, until.minute) == (9, 0)
    assert until.date() == timezone.localdate() + datetime.timedelta(days=1)


def test_a_snooze_in_the_past_or_without_a_time_is_refused_in_place(producer_client, project):
    past = timezone.localtime(timezone.now() - datetime.timedelta(hours=2))
    response = act(producer_client, project, "snooze", until=past.strftime("%Y-%m-%dT%H:%M"))
    assert response.status_code == 400
    assert "choose a time in the future" in response.content.decode()
    response = act(producer_client, project, "snooze")
    assert response.status_code == 400
    assert "choose how long to snooze" in response.content.decode()
    assert fresh(project).snoozed_until is None


def test_the_sweep_brings_a_snooze_back_on_time_and_the_inbox_refresh_sees_it(
    producer_client, producer, project
):
    project_snooze(
        project=project, until=timezone.now() + datetime.timedelta(hours=1), user=producer
    )
    version = re.search(
        r'\?([^"]*since=[^"&]*)', producer_client.get(reverse("dashboard")).content.decode()
    ).group(1)
    assert snoozes_wake() == 0  # not yet
    assert snoozes_wake(now=timezone.now() + datetime.timedelta(hours=2)) == 1
    assert fresh(project).snoozed_until is None
    poll = producer_client.get(f"{reverse('dashboard')}?{version.replace('&amp;', '&')}", **HTMX)
    assert poll.status_code == 200
    assert f'data-project="{project.pk}"' in poll.content.decode()


# --- mark unread -----------------------------------------------------------------------------


def test_mark_unread_counts_the_last_client_message_again_and_goes_to_the_inbox(
    producer_client, producer, project
):
    turn_receive(project=project, text="Первое")
    turn_receive(project=project, text="Второе")
    producer_client.get(detail(project))  # read
    assert fresh(project).unread_count == 0
    response = act(producer_client, project, "mark_unread")
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("dashboard")
    assert fresh(project).unread_count == 1
    assert (last_event(project).kind, last_event(project).actor) == (Kind.MARKED_UNREAD, producer)
    inbox = producer_client.get(reverse("dashboard")).content.decode()
    assert f'data-project="{project.pk}"' in inbox
    assert 'data-unread="1"' in inbox
    assert "(1) " in re.search(r"<title>(.*?)</title>", inbox, re.S).group(1)


def test_mark_unread_without_a_client_message_is_refused(producer_client, project):
    response = act(producer_client, project, "mark_unread", htmx=False)
    assert response.status_code == 302
    assert response["Location"].startswith(detail(project))
    assert fresh(project).unread_count == 0


# --- internal notes --------------------------------------------------------------------------


SECRET_NOTE = "Клиент платит поздно, предоплата 100%"


def test_a_note_is_for_the_staff_only(producer_client, manager, producer, project):
    response = act(producer_client, project, "note", text=SECRET_NOTE)
    assert response.status_code == 200
    assert re.search(r'<section id="notes"', response.content.decode())
    assert SECRET_NOTE in response.content.decode()
    note = BriefingNote.objects.get()
    assert (note.project, note.author, note.text) == (project, producer, SECRET_NOTE)
    event = last_event(project)
    assert (event.kind, event.actor, event.data) == (Kind.NOTE_ADDED, producer, {"note": note.pk})
    colleague = Client()
    colleague.force_login(manager)
    assert SECRET_NOTE in colleague.get(detail(project)).content.decode()

    # Never to the client: their chat, the transcript the agents read, the API, the exports.
    chat = producer_client.get(reverse("client_chat", args=[project.client_token]))
    assert SECRET_NOTE not in chat.content.decode()
    assert not Turn.objects.filter(text__contains="предоплата").exists()
    for name in ("api:briefing", "api:messages", "api:events", "api:stages"):
        answer = producer_client.get(reverse(name, args=[project.pk]))
        assert answer.status_code == 200, name
        assert "предоплата" not in answer.content.decode(), name
    Project.objects.filter(pk=project.pk).update(
        status=Project.Status.COMPLETED, completed_at=timezone.now(), brief={}
    )
    exported = producer_client.get(reverse("results_export", args=["csv"]))
    text = b"".join(exported.streaming_content).decode("utf-8")
    assert list(csv.reader(io.StringIO(text[1:])))  # the briefing's row is there
    assert "предоплата" not in text


def test_an_empty_note_is_refused_in_place_and_without_htmx_by_message(producer_client, project):
    response = act(producer_client, project, "note", text="   ")
    assert response.status_code == 400
    assert "the note is empty" in response.content.decode()
    response = act(producer_client, project, "note", htmx=False, text="Позвонить в пятницу")
    assert response.status_code == 302
    assert response["Location"] == f"{detail(project)}#notes"
    assert BriefingNote.objects.get().text == "Позвонить в пятницу"


# --- a new client link is asked for again first --------------------------------------------------


def test_a_new_link_is_asked_for_first_and_works_without_javascript(producer_client, project):
    old = project.client_token
    page = producer_client.get(detail(project)).content.decode()
    # The button only opens the question (a GET): nothing is revoked by it.
    assert re.search(
        r'<form method="get"[^>]*>\s*<input type="hidden" name="confirm" value="rotate_link">', page
    )
    response = act(producer_client, project, "rotate_link", htmx=False)
    assert response.status_code == 302
    assert response["Location"] == f"{detail(project)}?confirm=rotate_link#link-confirm"
    assert fresh(project).client_token == old
    question = producer_client.get(detail(project), {"confirm": "rotate_link"}).content.decode()
    assert "The link the client has now stops working at once" in question
    assert '<input type="hidden" name="confirmed" value="yes">' in question
    response = act(producer_client, project, "rotate_link", htmx=False, confirmed="yes")
    assert response.status_code == 302
    assert fresh(project).client_token not in (None, old)
    assert last_event(project).kind == Kind.CLIENT_LINK_ROTATED


def test_revoking_the_link_is_asked_for_first_and_a_new_one_then_needs_no_question(
    producer_client, project
):
    response = act(producer_client, project, "revoke_link")
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"{detail(project)}?confirm=revoke_link#link-confirm"
    assert fresh(project).client_token is not None
    act(producer_client, project, "revoke_link", htmx=False, confirmed="yes")
    assert fresh(project).client_token is None
    # Nothing to revoke: a new link is made at once.
    response = act(producer_client, project, "rotate_link", htmx=False)
    assert response.status_code == 302
    assert fresh(project).client_token is not None


# --- the briefing page's small things ------------------------------------------------------------


def test_on_a_completed_briefing_the_message_box_does_not_ask_to_take_over(
    producer_client, project
):
    assert (
        "(take over first to stop the agent)"
        in producer_client.get(detail(project)).content.decode()
    )
    Project.objects.filter(pk=project.pk).update(
        status=Project.Status.COMPLETED, completed_at=timezone.now()
    )
    page = producer_client.get(detail(project)).content.decode()
    assert "Message to the client, as the producer" in page
    assert "take over first" not in page


def test_the_created_message_shows_once(producer_client, producer):
    response = producer_client.post(
        reverse("project_new"),
        {"title": "Ромашка", "language": "ru", "producer": producer.pk},
        follow=True,
    )
    assert response.status_code == 200
    assert response.content.decode().count("Briefing created: send the client link below.") == 1


def test_a_briefing_page_refreshes_the_unread_count_of_the_users_briefings(
    producer_client, producer, project
):
    other = project_create(title="Other", producer=producer)
    turn_receive(project=other, text="Есть кто?")
    page = producer_client.get(detail(project)).content.decode()
    assert 'data-inbox-unread="1"' in page
    assert 'src="/static/js/inbox_count.js"' in page
    url = reverse("inbox_unread")
    assert producer_client.get(url, {"total": "1"}, **HTMX).status_code == 204
    turn_receive(project=other, text="Ау")
    counter = producer_client.get(url, {"total": "1"}, **HTMX)
    assert counter.status_code == 200
    assert 'data-inbox-unread="2"' in counter.content.decode()
    assert "total=2" in counter.content.decode()


def test_a_producer_message_still_answers_after_an_inbox_action(producer_client, producer, project):
    """The inbox's actions touch only the inbox: the conversation goes on."""
    turn_receive(project=project, text="Здравствуйте")
    act(producer_client, project, "resolve")
    producer_message_post(project=project, text="Добрый день!", user=producer)
    assert fresh(project).resolved_at is not None
    assert project.turns.filter(role=Turn.Role.PRODUCER).count() == 1
