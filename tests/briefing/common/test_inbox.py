"""The producer's inbox: each "needs you" state with its reason and since when, stored in the
transaction of the change; the order, keyset pages, unread counts marked read by the producer,
the idle refresh's 204, the follow-up of holding replies and the producer's read-only dead
letter."""

from __future__ import annotations

import datetime
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from briefing.common.inbox import (
    holding_replies_overdue_flag,
    inbox_dead_letters,
    inbox_facts,
    inbox_page,
    inbox_refresh,
)
from briefing.models import BriefingEvent, Project, Turn
from briefing.services import (
    event_record,
    lock_change_decide,
    lock_set,
    producer_message_post,
    project_create,
    project_pause,
    project_resume,
    turn_receive,
)
from dlq.services import dead_letter_fix_apply
from tests.briefing.conftest import FIXED_INTRO
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db
Kind = BriefingEvent.Kind
HTMX = {"HTTP_HX_REQUEST": "true"}


def fresh(project) -> Project:
    return Project.objects.get(pk=project.pk)


def stored_facts_differences() -> list[str]:
    """Every briefing with turns whose stored facts (kept by each change from the stored ones
    and what it wrote) differ from the facts recomputed from its rows."""
    found = []
    for project in Project.objects.filter(turns__isnull=False).distinct():
        facts = inbox_facts(project.pk)
        counted = BriefingEvent.objects.filter(project=project)
        expected = {
            "waiting_for": facts.waiting_for, "needs_reason": facts.needs_reason,
            "needs_since": facts.needs_since, "last_activity_at": facts.last_activity_at,
            "unread_count": facts.unread_count, "inbox_rank": facts.rank_and_key[0],
            "inbox_key": facts.rank_and_key[1],
            "lock_violations": counted.filter(kind=Kind.LOCK_VIOLATION_BLOCKED).count(),
            "holding_replies": counted.filter(kind=Kind.HOLDING_REPLY_SENT).count(),
            **inbox_dead_letters(project.pk),
        }  # fmt: skip
        for name, value in expected.items():
            if getattr(project, name) != value:
                found.append(f"{project.title}: {name} {getattr(project, name)!r} != {value!r}")
    return found


@pytest.fixture(autouse=True)
def _stored_facts_stay_current():
    """After each test here, what the changes stored is what the rows say."""
    yield
    assert stored_facts_differences() == []


def test_a_quiet_briefing_needs_nobody_and_waits_for_the_client(project, say):
    say(project, "Здравствуйте! Хотим снять ролик.")
    stored = fresh(project)
    assert (stored.needs_reason, stored.waiting_for, stored.inbox_rank) == ("", "client", 1)
    assert stored.unread_count == 1
    assert stored.last_activity_at is not None


def test_a_message_after_completion_needs_the_producer_until_they_answer(project, producer, say):
    Project.objects.filter(pk=project.pk).update(
        status=Project.Status.COMPLETED, completed_at=timezone.now()
    )
    project.refresh_from_db()
    turn = say(project, "А субтитры сделаете?")
    stored = fresh(project)
    assert (stored.needs_reason, stored.waiting_for, stored.inbox_rank) == (
        "after_completion", "producer", 0,
    )  # fmt: skip
    assert stored.needs_since == turn.created_at
    producer_message_post(project=stored, text="Да, сделаем.", user=producer)
    stored = fresh(project)
    assert (stored.needs_reason, stored.waiting_for, stored.inbox_rank) == ("", "nobody", 2)


def test_a_holding_reply_needs_the_producer_and_the_fix_follows_it_up(
    project, producer, manager, dead_lettered_turn, scripted_model
):
    turn, letter = dead_lettered_turn
    stored = fresh(project)
    assert (stored.needs_reason, stored.waiting_for) == ("holding_reply", "producer")
    assert stored.needs_since == turn.processed_at
    scripted_model.answers({"message": "Как называется продукт?", "visionStatus": False})
    dead_letter_fix_apply(dead_letter=letter, data=FIXED_INTRO, user=manager)
    # The client's holding reply is followed by the fixed answer, and nobody is needed.
    last = project.turns.order_by("-seq").first()
    assert last.role == Turn.Role.AGENT
    assert last.reply_to_id == turn.pk
    assert fresh(project).needs_reason == ""


def test_a_holding_reply_not_fixed_in_time_asks_the_producer_once(
    project, settings, dead_lettered_turn
):
    turn, _ = dead_lettered_turn
    settings.BRIEFING_HOLDING_FOLLOW_UP_S = 600
    assert holding_replies_overdue_flag() == 0  # not yet
    later = timezone.now() + datetime.timedelta(seconds=601)
    assert holding_replies_overdue_flag(now=later) == 1
    assert holding_replies_overdue_flag(now=later) == 0  # once per turn
    assert fresh(project).needs_reason == "follow_up_due"
    event = BriefingEvent.objects.get(kind=BriefingEvent.Kind.FOLLOW_UP_REQUESTED)
    assert event.turn_id == turn.pk


def test_a_request_for_a_person_needs_the_producer(project, say):
    turn = say(project, "Здравствуйте!")
    Turn.objects.filter(pk=turn.pk).update(
        status=Turn.Status.WAITING_PRODUCER, meta={"attention": "human_request"}
    )
    inbox_refresh(project_id=project.pk)
    assert (fresh(project).needs_reason, fresh(project).needs_since) == (
        "human_request", turn.created_at,
    )  # fmt: skip


def test_a_paused_briefing_needs_the_producer_only_when_the_client_writes(project, producer, say):
    project_pause(project=project, user=producer)
    assert (fresh(project).needs_reason, fresh(project).waiting_for) == ("", "producer")
    first = say(project, "Вы здесь?")
    say(project, "Ау")
    stored = fresh(project)
    assert stored.needs_reason == "client_waiting"
    assert stored.needs_since == first.created_at  # the longest wait counts
    project_resume(project=stored, user=producer)
    assert fresh(project).needs_reason == ""


def test_a_proposed_lock_change_needs_a_decision(project, producer):
    lock_set(project=project, key="client_name", value="Анна", user=producer)
    proposal = event_record(
        project=project, kind=BriefingEvent.Kind.LOCK_CHANGE_PROPOSED,
        data={"key": "client_name", "old": "Анна", "new": "Анна Петрова", "evidence": "я Анна"},
    )  # fmt: skip
    assert (fresh(project).needs_reason, fresh(project).needs_since) == (
        "lock_change", proposal.created_at,
    )  # fmt: skip
    lock_change_decide(project=project, proposal_id=proposal.pk, accept=False, user=producer)
    assert fresh(project).needs_reason == ""


# --- the dashboard -----------------------------------------------------------------------------


def test_the_inbox_puts_who_waited_longest_first_then_the_latest_activity(
    producer_client, producer, say
):
    quiet_old = project_create(title="Quiet old", producer=producer)
    waiting_long = project_create(title="Waiting long", producer=producer)
    waiting_short = project_create(title="Waiting short", producer=producer)
    quiet_new = project_create(title="Quiet new", producer=producer)
    for project in (waiting_long, waiting_short):
        project_pause(project=project, user=producer)
    say(waiting_long, "Первый вопрос")
    say(waiting_short, "Второй вопрос")
    say(quiet_old, "Привет")
    say(quiet_new, "Привет")
    content = producer_client.get(reverse("dashboard")).content.decode()
    order = sorted(("Quiet old", "Waiting long", "Waiting short", "Quiet new"), key=content.index)
    assert order == ["Waiting long", "Waiting short", "Quiet new", "Quiet old"]
    # Each needs-you row says what to do and links where to do it.
    assert f'href="/briefings/{waiting_long.pk}/#composer"' in content
    assert f'href="/briefings/{quiet_new.pk}/#composer"' not in content


def test_keyset_pages_cover_every_briefing_once(producer):
    made = [project_create(title=f"B{i}", producer=producer) for i in range(5)]
    seen, cursor = [], ""
    while True:
        page, cursor = inbox_page(Project.objects.all(), after=cursor, size=2)
        seen += [p.pk for p in page]
        if not cursor:
            break
    assert sorted(seen) == sorted(p.pk for p in made)
    assert len(seen) == 5


def test_the_dashboard_pages_with_a_cursor(producer_client, producer, monkeypatch):
    monkeypatch.setattr("briefing.producer.views.DASHBOARD_PAGE_SIZE", 2)
    for i in range(3):
        project_create(title=f"Briefing {i}", producer=producer)
    first = producer_client.get(reverse("dashboard")).content.decode()
    assert first.count('class="project-row') == 2
    older = first.split('href="/?')[1].split('"')[0].replace("&amp;", "&")
    second = producer_client.get(f"/?{older}").content.decode()
    assert second.count('class="project-row') == 1
    assert "First page" in second


def test_the_idle_refresh_is_204_after_one_query_of_its_own(producer_client, project, say):
    page = producer_client.get(reverse("dashboard"), **HTMX).content.decode()
    since = page.split("since=")[1].split('"')[0]
    url = f"{reverse('dashboard')}?since={since}"
    producer_client.get(url, **HTMX)  # the session and the user's permissions are cached now
    with CaptureQueriesContext(connection) as queries:
        assert producer_client.get(url, **HTMX).status_code == 204
    inbox = [q["sql"] for q in queries.captured_queries if "briefing_project" in q["sql"]]
    assert len(inbox) == 1, inbox
    say(project, "Новое сообщение")
    assert producer_client.get(url, **HTMX).status_code == 200


def test_unread_counts_show_in_the_row_the_navigation_and_the_title(
    producer_client, project, manager, say
):
    manager_client = Client()
    manager_client.force_login(manager)
    say(project, "Здравствуйте!")
    say(project, "Меня зовут Анна")
    page = producer_client.get(reverse("dashboard")).content.decode()
    assert re.search(r"<title>\(2\) [^<]+</title>", page)
    assert 'data-unread="2"' in page
    assert 'data-unread-total="2"' in page
    # A manager looking in marks nothing read; the producer opening the briefing does.
    manager_client.get(reverse("project_detail", args=[project.pk]))
    assert fresh(project).unread_count == 2
    producer_client.get(reverse("project_detail", args=[project.pk]))
    assert fresh(project).unread_count == 0
    page = producer_client.get(reverse("dashboard")).content.decode()
    assert re.search(r"<title>[^(<][^<]*</title>", page)
    say(project, "И ещё вопрос")
    assert fresh(project).unread_count == 1


def test_the_briefing_page_says_what_to_do_and_links_the_dead_letter(
    producer_client, project, dead_lettered_turn
):
    _, letter = dead_lettered_turn
    content = producer_client.get(reverse("project_detail", args=[project.pk])).content.decode()
    assert "data-needs-you" in content
    assert reverse("dlq:dead_letter_detail", args=[letter.pk]) in content


def test_a_producer_reads_their_own_dead_letter_but_cannot_act(
    producer_client, client, dead_lettered_turn
):
    _, letter = dead_lettered_turn
    url = reverse("dlq:dead_letter_detail", args=[letter.pk])
    page = producer_client.get(url)
    assert page.status_code == 200
    content = page.content.decode()
    assert "read-only-note" in content
    assert reverse("dlq:dead_letter_fix", args=[letter.pk]) not in content
    assert producer_client.post(reverse("dlq:dead_letter_fix", args=[letter.pk])).status_code == 403
    client.force_login(user_in_group("stranger", "Producers"))
    assert client.get(url).status_code == 404


# --- the transcript appends --------------------------------------------------------------------


def test_the_transcript_poll_appends_new_turns_only(producer_client, project, say):
    say(project, "Здравствуйте!")
    last = project.turns.order_by("-seq").first().seq
    say(project, "Меня зовут Анна")
    body = producer_client.get(
        f"{reverse('project_detail', args=[project.pk])}?after={last}&open=0", **HTMX
    ).content.decode()
    assert '<div hx-swap-oob="beforeend:#turns">' in body
    assert "Меня зовут Анна" in body
    assert f'id="turn-{last + 1}"' in body
    assert 'id="turn-1"' not in body  # the turns shown are left alone
    assert 'id="transcript"' not in body
    assert f"after={last + 2}" in body  # the poller moves on


def test_a_producer_message_is_appended_after_what_the_page_shows(producer_client, project, say):
    say(project, "Здравствуйте!")
    last = project.turns.order_by("-seq").first().seq
    response = producer_client.post(
        reverse("project_action", args=[project.pk]),
        {"action": "message", "text": "Добрый день, я продюсер.", "after": last},
        **HTMX,
    )
    body = response.content.decode()
    assert '<div hx-swap-oob="beforeend:#turns">' in body
    assert "Добрый день, я продюсер." in body
    assert 'id="turn-1"' not in body


def test_the_search_can_use_the_trigram_indexes(postgres, producer):
    from briefing.producer.forms import DashboardFilterForm

    project_create(title="Кофейня «Зерно»", client_name="Анна", producer=producer)
    visible = Project.objects.all()
    form = DashboardFilterForm({"q": "зерн"}, projects=visible)
    search = form.filter(visible)
    assert [p.title for p in search] == ["Кофейня «Зерно»"]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = search.explain()
    assert "project_title_trgm" in plan
    assert "project_client_name_trgm" in plan


def test_a_refresh_costs_the_turn_two_statements(project, say):
    say(project, "Здравствуйте!")
    with CaptureQueriesContext(connection) as queries:
        inbox_refresh(project_id=project.pk)
    # One read of the briefing with its last turns and event, one write.
    assert len(queries.captured_queries) == 2


def test_inbox_rebuild_recomputes_every_briefing(project, producer, say):
    from io import StringIO

    from django.core.management import call_command

    project_pause(project=project, user=producer)
    say(project, "Вы здесь?")
    Project.objects.filter(pk=project.pk).update(needs_reason="", unread_count=0, inbox_rank=1)
    out = StringIO()
    call_command("inbox_rebuild", stdout=out)
    assert "1 briefings" in out.getvalue()
    stored = fresh(project)
    assert (stored.needs_reason, stored.unread_count, stored.inbox_rank) == ("client_waiting", 1, 0)


def test_the_follow_up_request_reads_as_a_line_of_the_activity(
    project, settings, dead_lettered_turn
):
    from briefing.common.status import event_line

    settings.BRIEFING_HOLDING_FOLLOW_UP_S = 0
    holding_replies_overdue_flag(now=timezone.now() + datetime.timedelta(seconds=1))
    event = BriefingEvent.objects.get(kind=BriefingEvent.Kind.FOLLOW_UP_REQUESTED)
    line = event_line(event, {}, {})
    assert line.level == "bad"
    assert "follow_up_requested" not in line.text  # a sentence, not the event's name


def test_a_whole_conversation_keeps_the_stored_facts_without_recomputing_them(
    project, producer, say, monkeypatch
):
    from pathlib import Path

    import yaml

    import briefing.common.events
    import briefing.turn.outcome

    example = Path(briefing.common.events.__file__).parents[1] / "examples" / "ru_orderly.yaml"
    messages = [step["client"] for step in yaml.safe_load(example.read_text("utf-8"))["turns"]]
    recomputed = []
    # Every module that recomputes the facts: a turn's writing, and a recorded event.
    for module in (briefing.turn.outcome, briefing.common.events):
        original = module.inbox_refresh

        def counting(*, project_id, original=original):
            recomputed.append(project_id)
            return original(project_id=project_id)

        monkeypatch.setattr(module, "inbox_refresh", counting)
    for text in messages:
        say(project, text)
        assert stored_facts_differences() == []
    assert fresh(project).status == Project.Status.COMPLETED
    assert recomputed == []  # each message and turn followed from the stored facts
    say(project, "И ещё: нужны субтитры")
    assert fresh(project).needs_reason == "after_completion"
    assert stored_facts_differences() == []
    producer_message_post(project=fresh(project), text="Сделаем.", user=producer)
    assert (fresh(project).needs_reason, fresh(project).waiting_for) == ("", "nobody")


def test_a_message_no_worker_takes_puts_a_banner_on_every_inbox(project, client, settings):
    settings.BRIEFING_STALL_ALERT_S = 120
    client.force_login(user_in_group("other", "Producers"))
    # Stored, never processed: no worker (the suite's Celery is in process; nothing runs
    # without the commit callbacks).
    turn = turn_receive(project=project, text="Здравствуйте!")
    assert "no worker is taking" not in client.get("/", headers={"Accept-Language": "en"}).text
    Turn.objects.filter(pk=turn.pk).update(
        created_at=timezone.now() - datetime.timedelta(minutes=7)
    )
    page = client.get("/", headers={"Accept-Language": "en"}).text
    assert "A client message has waited 7 minutes for an answer" in page
    russian = client.get("/", headers={"Accept-Language": "ru"}).text
    assert "Сообщение клиента ждёт ответа уже 7 минут" in russian
    Turn.objects.filter(pk=turn.pk).update(status=Turn.Status.DONE)  # a worker took it
    inbox_refresh(project_id=project.pk)
    assert "no worker is taking" not in client.get("/", headers={"Accept-Language": "en"}).text


def test_a_request_for_a_person_stays_open_until_the_producer_answers(project, producer, say):
    asked = say(project, "Позовите, пожалуйста, менеджера, хочу поговорить с человеком")
    assert asked.meta.get("attention") == "human_request"
    assert fresh(project).needs_reason == "human_request"
    later = say(project, "Бюджет 500 тысяч рублей")
    assert later.replies.exists()  # the later message is read and answered
    stored = fresh(project)
    assert (stored.needs_reason, stored.needs_since) == ("human_request", asked.created_at)
    producer_message_post(project=project, text="Здравствуйте, я ваш продюсер.", user=producer)
    assert fresh(project).needs_reason == ""
