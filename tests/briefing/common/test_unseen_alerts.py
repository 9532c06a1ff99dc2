"""The e-mail to a briefing's producer when its client wrote and nobody on the staff has had
the briefing open for BRIEFING_UNSEEN_ALERT_MIN minutes: sent once per wait through Django's
mail by the beat schedule's sweep, never while someone has the page open, none when the
setting is 0; a mail that fails is tried again by the next sweep."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from briefing import tasks
from briefing.common.inbox import unseen_alerts_send
from briefing.models import Project, Turn
from briefing.services import project_create, turn_receive
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fifteen_minutes(settings):
    settings.BRIEFING_UNSEEN_ALERT_MIN = 15
    settings.SITE_URL = "https://studio.example"


@pytest.fixture
def briefing(producer):
    producer.email = "producer@studio.example"
    producer.save()
    return project_create(title="Ромашка: ролик", producer=producer)


def later(minutes: int) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(minutes=minutes)


def open_page(user, project) -> None:
    browser = Client()
    browser.force_login(user)
    assert browser.get(reverse("project_detail", args=[project.pk])).status_code == 200


def test_the_producer_is_emailed_once_per_wait(briefing, producer):
    turn_receive(project=briefing, text="Здравствуйте, нужен ролик к маю")
    assert unseen_alerts_send(now=later(10)) == 0  # not yet 15 minutes
    assert unseen_alerts_send(now=later(16)) == 1
    [message] = mail.outbox
    assert message.to == ["producer@studio.example"]
    assert "Ромашка: ролик" in message.subject
    assert "16 minutes" in message.subject
    assert "Здравствуйте, нужен ролик к маю" in message.body
    assert f"https://studio.example/briefings/{briefing.pk}/" in message.body
    # The same wait: no second e-mail, however long it goes on or how often the client writes.
    turn_receive(project=briefing, text="Ау?")
    assert unseen_alerts_send(now=later(40)) == 0
    assert len(mail.outbox) == 1


def test_a_new_wait_begins_once_someone_opened_the_briefing(briefing, producer):
    turn_receive(project=briefing, text="Первое сообщение")
    assert unseen_alerts_send(now=later(16)) == 1
    open_page(producer, briefing)
    assert Project.objects.get(pk=briefing.pk).seen_at is not None
    # The clock as the sweep saw it: the page was opened after the e-mail, then the client
    # wrote again and nobody looked for another quarter of an hour.
    Project.objects.filter(pk=briefing.pk).update(seen_at=later(17))
    second = turn_receive(project=briefing, text="Второе сообщение")
    Turn.objects.filter(pk=second.pk).update(created_at=later(18))
    assert unseen_alerts_send(now=later(30)) == 0
    assert unseen_alerts_send(now=later(34)) == 1
    assert "Второе сообщение" in mail.outbox[-1].body
    assert len(mail.outbox) == 2


def test_nobody_is_emailed_while_the_page_is_open(briefing, producer, manager):
    turn_receive(project=briefing, text="Вы здесь?")
    # A manager looking in counts: someone on the staff has the briefing open.
    open_page(manager, briefing)
    assert unseen_alerts_send(now=later(30)) == 0
    assert mail.outbox == []


def test_the_page_stamps_that_it_was_seen_at_most_every_half_minute(briefing, producer):
    browser = Client()
    browser.force_login(producer)
    url = reverse("project_detail", args=[briefing.pk])
    browser.get(url)
    first = Project.objects.get(pk=briefing.pk).seen_at
    assert first is not None
    browser.get(url, {"after": "0", "open": "0"}, HTTP_HX_REQUEST="true")  # the poll
    assert Project.objects.get(pk=briefing.pk).seen_at == first
    Project.objects.filter(pk=briefing.pk).update(seen_at=first - datetime.timedelta(minutes=1))
    assert browser.get(url, {"after": "0", "open": "0"}, HTTP_HX_REQUEST="true").status_code == 204
    assert Project.objects.get(pk=briefing.pk).seen_at > first


def test_no_email_when_the_setting_is_zero_or_the_producer_has_no_address(
    settings, briefing, producer
):
    turn_receive(project=briefing, text="Здравствуйте")
    settings.BRIEFING_UNSEEN_ALERT_MIN = 0
    assert unseen_alerts_send(now=later(60)) == 0
    settings.BRIEFING_UNSEEN_ALERT_MIN = 15
    producer.email = ""
    producer.save()
    assert unseen_alerts_send(now=later(60)) == 0
    assert mail.outbox == []


def test_a_failed_mail_is_sent_by_the_next_sweep(briefing, monkeypatch):
    turn_receive(project=briefing, text="Здравствуйте")

    def refused(*args, **kwargs):
        raise ConnectionRefusedError("no SMTP server")

    monkeypatch.setattr("django.core.mail.EmailMessage.send", refused)
    assert unseen_alerts_send(now=later(16)) == 0
    assert Project.objects.get(pk=briefing.pk).unseen_alerted_at is None
    monkeypatch.undo()
    assert unseen_alerts_send(now=later(17)) == 1


def test_the_beat_schedule_runs_the_sweeps_every_minute(briefing, producer):
    tasks_by_name = {
        entry["task"]: entry["schedule"] for entry in django_settings.CELERY_BEAT_SCHEDULE.values()
    }
    assert tasks_by_name["briefing.tasks.unseen_alerts"] == 60.0
    assert tasks_by_name["briefing.tasks.snoozes_wake"] == 60.0
    turn_receive(project=briefing, text="Здравствуйте")
    Project.objects.filter(pk=briefing.pk).update(seen_at=None, unseen_alerted_at=None)
    other = user_in_group("other", "Producers", email="other@studio.example")
    project_create(title="Тихий", producer=other)  # nothing written: nothing to tell
    assert tasks.unseen_alerts.delay().get() == 0  # 15 minutes have not passed
    assert tasks.snoozes_wake.delay().get() == 0
