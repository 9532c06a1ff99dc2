"""Mail into leads: the mailbox poll (a local IMAP server) and the `.eml`/mbox import, with
the charsets, HTML-only mail, forwarded chains and duplicate deliveries the issue names."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from email.mime.text import MIMEText
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crm import mailbox_poll, tasks
from crm.models import InboundMessage, Lead
from tests.crm.imap_server import ImapTestServer

# These mails sell cars: they are read with the dealer's catalogue (CRM_LEAD_TYPE=dealer).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("dealer_leads")]


def mail(number: int, body: str, *, charset: str = "utf-8", html: bool = False) -> bytes:
    message = MIMEText(body, "html" if html else "plain", charset)
    message["From"] = f"Client {number} <client{number}@example.ru>"
    message["Subject"] = f"Заявка {number}"
    message["Message-ID"] = f"<lead-{number}@example.ru>"
    return message.as_bytes()


def undeclared_cp1251(number: int, body: str) -> bytes:
    """A mail whose bytes are cp1251 but whose header names no charset at all."""
    head = (
        f"From: client{number}@example.ru\r\nSubject: order\r\n"
        f"Message-ID: <lead-{number}@example.ru>\r\nContent-Type: text/plain\r\n\r\n"
    )
    return head.encode() + body.encode("cp1251")


HTML_ONLY = "<p>Нужен <b>кроссовер</b> до 3&nbsp;млн рублей</p><script>steal()</script>"
FORWARDED = """Коллеги, пересылаю клиента.

---------- Forwarded message ---------
From: Пётр <petr@example.ru>
Subject: Покупка

Хочу купить внедорожник до 5 млн рублей, звоните +7 905 555 44 33"""


@pytest.fixture
def mailbox_server(monkeypatch):
    with ImapTestServer() as server:
        monkeypatch.setenv("CRM_IMAP_HOST", "127.0.0.1")
        monkeypatch.setenv("CRM_IMAP_PORT", str(server.port))
        monkeypatch.setenv("CRM_IMAP_USER", "crm@example.ru")
        monkeypatch.setenv("CRM_IMAP_PASSWORD", "secret")
        monkeypatch.setenv("CRM_IMAP_SSL", "false")
        yield server


def test_the_mailbox_poll_stores_reads_and_only_then_marks_seen(
    mailbox_server, django_capture_on_commit_callbacks
):
    uids = [
        mailbox_server.add(mail(1, "Хочу купить седан, перезвоните: +7 916 123-45-67")),
        mailbox_server.add(mail(2, HTML_ONLY, html=True)),
        mailbox_server.add(mail(3, "Сколько стоит ТО? +7 903 000 11 22", charset="koi8-r")),
        mailbox_server.add(undeclared_cp1251(4, "Купить минивэн, бюджет 2 млн рублей")),
        mailbox_server.add(mail(5, FORWARDED)),
        mailbox_server.add(mail(1, "Хочу купить седан, перезвоните: +7 916 123-45-67")),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        stored = tasks.imap_poll()
    assert stored == 6  # the duplicate delivery is "stored" as the message already there
    assert sorted(mailbox_server.seen()) == sorted(uids)
    assert InboundMessage.objects.count() == 5
    by_id = {m.external_id: m for m in InboundMessage.objects.all()}
    html = by_id["lead-2@example.ru"]
    assert (html.body_source, html.lead.product_class, html.lead.budget_amount) == (
        "html",
        "crossover",
        3_000_000,
    )
    assert "steal()" not in html.body_text
    assert by_id["lead-3@example.ru"].lead.client_intent == "service"
    cp1251 = by_id["lead-4@example.ru"]
    assert "минивэн" in cp1251.body_text
    assert cp1251.charset_notes
    forwarded = by_id["lead-5@example.ru"]
    assert "Forwarded message" in forwarded.body_text
    assert (forwarded.lead.product_class, forwarded.lead.phones) == ("SUV", ["+79055554433"])
    assert all(m.raw for m in by_id.values())


def test_a_mail_that_cannot_be_stored_stays_unseen_for_the_next_poll(
    mailbox_server, monkeypatch, django_capture_on_commit_callbacks
):
    good = mailbox_server.add(mail(1, "Хочу купить седан, +7 916 123-45-67"))
    bad = mailbox_server.add(mail(2, "Хочу купить пикап, +7 916 000-00-01"))
    real_store = mailbox_poll.inbound_store

    def flaky_store(inbound):
        if inbound.external_id == "lead-2@example.ru":
            raise RuntimeError("database went away")
        return real_store(inbound)

    monkeypatch.setattr(mailbox_poll, "inbound_store", flaky_store)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.imap_poll() == 1
    assert mailbox_server.seen() == [good]
    monkeypatch.setattr(mailbox_poll, "inbound_store", real_store)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.imap_poll() == 1
    assert sorted(mailbox_server.seen()) == [good, bad]
    assert Lead.objects.count() == 2


def test_no_mailbox_configured_polls_nothing(monkeypatch):
    monkeypatch.delenv("CRM_IMAP_HOST", raising=False)
    assert tasks.imap_poll() == 0


def test_the_import_command_reads_eml_folders_and_mboxes_once(
    tmp_path, django_capture_on_commit_callbacks
):
    folder = tmp_path / "mails"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.eml").write_bytes(mail(1, "Хочу купить седан, +7 916 123-45-67"))
    (folder / "sub" / "b.eml").write_bytes(mail(2, ""))  # an empty body
    box = mailbox.mbox(tmp_path / "archive.mbox")
    for number in (3, 4):
        message = EmailMessage()
        message["From"] = f"c{number}@example.ru"
        message["Message-ID"] = f"<lead-{number}@example.ru>"
        message.set_content(f"Куплю кроссовер, номер +7 916 000-00-0{number}")
        box.add(message)
    box.close()
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("crm_import", str(folder), str(tmp_path / "archive.mbox"),
                     "--no-progress", stdout=out)  # fmt: skip
    assert "4 stored, 0 already there, 0 failed (of 4)" in out.getvalue()
    statuses = sorted(InboundMessage.objects.values_list("status", flat=True))
    assert statuses == ["human", "lead", "lead", "lead"]
    again = StringIO()
    call_command("crm_import", str(folder), "--no-progress", stdout=again)
    assert "0 stored, 2 already there" in again.getvalue()
    with pytest.raises(CommandError, match="no such"):
        call_command("crm_import", str(tmp_path / "missing.eml"), "--no-progress")


def relayed(number: int, client: str, body: str) -> bytes:
    """A site's form mailed on by its relay: from the site's no-reply address, the client
    in Reply-To."""
    message = EmailMessage()
    message["From"] = "Сайт дилера <noreply@dealer.example>"
    message["Reply-To"] = f"Клиент <{client}>"
    message["Subject"] = "Новая заявка с сайта"
    message["Message-ID"] = f"<form-{number}@dealer.example>"
    message.set_content(body)
    return message.as_bytes()


def test_form_relay_mail_is_the_clients_not_the_relays(
    tmp_path, django_capture_on_commit_callbacks
):
    (tmp_path / "1.eml").write_bytes(relayed(1, "anna@example.ru", "Хочу купить седан"))
    (tmp_path / "2.eml").write_bytes(relayed(2, "oleg@example.ru", "Хочу купить пикап"))
    (tmp_path / "3.eml").write_bytes(relayed(3, "anna@example.ru", "И ещё: есть кредит?"))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("crm_import", str(tmp_path), "--no-progress", stdout=StringIO())
    leads = {lead.emails[0]: lead for lead in Lead.objects.all()}
    # Two clients, two leads: the relay's address joined nothing.
    assert set(leads) == {"anna@example.ru", "oleg@example.ru"}
    assert leads["anna@example.ru"].messages.count() == 2
    message = InboundMessage.objects.get(external_id="form-1@dealer.example")
    assert (message.sender, message.extra) == (
        "anna@example.ru",
        {"from": "noreply@dealer.example"},
    )
