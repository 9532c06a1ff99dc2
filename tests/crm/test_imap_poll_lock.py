"""The mailbox poll task: one poll of a mailbox at a time, and a mail it cannot finish is set
aside for a person after a few tries instead of holding up the mail behind it."""

from __future__ import annotations

import datetime
from email.message import EmailMessage

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone, translation

from crm import imap, tasks
from crm.models import InboundMessage
from tests.crm.imap_server import ImapTestServer

pytestmark = pytest.mark.django_db


def mail(name: str, body: str = "Нужен ролик к запуску, +7 916 123-45-67") -> bytes:
    message = EmailMessage()
    message["From"] = f"{name}@example.ru"
    message["Subject"] = f"Заявка {name}"
    message["Message-ID"] = f"<{name}@example.ru>"
    message.set_content(body)
    return bytes(message)


@pytest.fixture
def mailbox_server(monkeypatch):
    with ImapTestServer() as server:
        for name, value in {
            "CRM_IMAP_HOST": "127.0.0.1", "CRM_IMAP_PORT": str(server.port),
            "CRM_IMAP_USER": "crm@example.ru", "CRM_IMAP_PASSWORD": "secret",
            "CRM_IMAP_SSL": "false",
        }.items():  # fmt: skip
            monkeypatch.setenv(name, value)
        yield server


def test_a_poll_started_while_another_runs_reads_nothing(mailbox_server, monkeypatch):
    uids = [mailbox_server.add(mail(name)) for name in ("anna", "oleg")]
    real_fetch, overlapping = imap._fetch, []

    def fetch_while_another_poll_starts(connection, uid):
        if not overlapping:  # the beat fires again while the first poll is still busy
            overlapping.append(tasks.imap_poll())
        return real_fetch(connection, uid)

    monkeypatch.setattr(imap, "_fetch", fetch_while_another_poll_starts)
    assert tasks.imap_poll() == 2
    assert overlapping == [0]
    assert sorted(mailbox_server.seen()) == uids
    assert InboundMessage.objects.count() == 2
    assert tasks.imap_poll() == 0  # the lock was given back: a later poll runs (none unseen)


def test_a_poll_that_died_holding_the_lock_is_taken_over_after_its_lease(
    mailbox_server, monkeypatch
):
    from crm.mailbox_poll import mailbox_poll_claim, mailbox_poll_lease
    from crm.models import MailboxPoll

    uid = mailbox_server.add(mail("anna"))
    dead = mailbox_poll_claim(mailbox=f"crm@example.ru@127.0.0.1:{mailbox_server.port}/INBOX")
    assert tasks.imap_poll() == 0  # held: within its lease the first poll may be alive
    long_ago = timezone.now() - mailbox_poll_lease() - datetime.timedelta(seconds=1)
    MailboxPoll.objects.filter(mailbox=dead.mailbox).update(claimed_at=long_ago)
    assert tasks.imap_poll() == 1
    assert mailbox_server.seen() == [uid]


def refuse_to_save(external_id: str, error: BaseException, monkeypatch) -> None:
    real_save = InboundMessage.save

    def save(self, *args, **kwargs):
        if self.external_id == external_id:
            raise error
        return real_save(self, *args, **kwargs)

    monkeypatch.setattr(InboundMessage, "save", save)


def test_a_mail_that_keeps_failing_is_set_aside_whole_and_the_poll_moves_on(
    mailbox_server, monkeypatch
):
    raw = mail("broken")
    broken = mailbox_server.add(raw)
    later = mailbox_server.add(mail("anna"))
    refuse_to_save("broken@example.ru", RuntimeError("value too long"), monkeypatch)

    for _ in range(3):  # each poll tries it once more
        tasks.imap_poll()
        assert mailbox_server.seen() == [later]
    with translation.override("en"):
        tasks.imap_poll()

    assert sorted(mailbox_server.seen()) == [broken, later]
    aside = InboundMessage.objects.get(status=InboundMessage.Status.HUMAN, raw__isnull=False)
    assert bytes(aside.raw) == raw
    assert aside.human_reason == (
        "Storing this mail failed 3 times (the last time: RuntimeError: value too long): it "
        "was kept whole but not read."
    )
    assert InboundMessage.objects.filter(external_id="anna@example.ru").exists()


def test_a_mail_that_keeps_cutting_its_poll_short_no_longer_holds_up_later_mail(
    mailbox_server, monkeypatch
):
    heavy = mailbox_server.add(mail("heavy"))
    later = mailbox_server.add(mail("anna"))
    refuse_to_save("heavy@example.ru", SoftTimeLimitExceeded(), monkeypatch)

    for _ in range(3):  # the task's time limit ends each poll inside the heavy mail
        with pytest.raises(SoftTimeLimitExceeded):
            tasks.imap_poll()
        assert mailbox_server.seen() == []

    assert tasks.imap_poll() == 2
    assert sorted(mailbox_server.seen()) == [heavy, later]
    statuses = dict(InboundMessage.objects.values_list("external_id", "status"))
    assert statuses == {"": "human", "anna@example.ru": "received"}  # read by a worker next
