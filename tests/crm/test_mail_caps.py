"""What one mail may cost: a mail over a cap is kept whole for a person, not read; headers are
decoded in one pass; a Date outside 1970-2100 is unknown."""

from __future__ import annotations

import base64
from datetime import UTC

import pytest
from django.utils import translation

from crm.mail import MailCaps, mail_parse, raw_content_hash
from crm.models import InboundMessage, Lead
from crm.services import inbound_from_mail, inbound_store

HEAD = (
    b"From: Anna <anna@example.ru>\r\nSubject: Parts\r\nMessage-ID: <parts-1@example.ru>\r\n"
    b"Date: Tue, 03 Jun 2025 10:15:00 +0300\r\nMIME-Version: 1.0\r\n"
)


def multipart(*parts: bytes) -> bytes:
    body = b"".join(b"--b\r\n" + part for part in parts)
    return HEAD + b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n' + body + b"--b--\r\n"


def tiny_parts(count: int) -> bytes:
    """The issue's mail: 120,000 one-letter parts are about 5 MB, and cost a minute to read."""
    return multipart(*[b"Content-Type: text/plain\r\n\r\nx\r\n"] * count)


def test_a_mail_of_120_000_tiny_parts_is_not_read_but_keeps_its_head():
    raw = tiny_parts(120_000)

    parsed = mail_parse(raw)

    assert (parsed.over_cap.cap, parsed.over_cap.limit) == ("parts", 1000)
    assert (parsed.body_text, parsed.body_source, parsed.attachments) == ("", "none", ())
    assert (parsed.sender_email, parsed.subject, parsed.message_id) == (
        "anna@example.ru",
        "Parts",
        "parts-1@example.ru",
    )
    assert parsed.content_hash == raw_content_hash(raw)  # two such mails never merge
    assert parsed.charset_notes == ("not read: over the parts cap (1001 > 1000)",)


@pytest.mark.django_db
def test_a_mail_over_a_cap_is_stored_whole_in_the_human_queue_and_never_read(
    django_capture_on_commit_callbacks,
):
    raw = tiny_parts(120_000)
    with translation.override("en"), django_capture_on_commit_callbacks(execute=True) as queued:
        message, created = inbound_store(inbound_from_mail(raw, source="imap:INBOX"))

    assert created
    assert queued == []  # no worker reads it
    message.refresh_from_db()
    assert message.status == InboundMessage.Status.HUMAN
    assert message.human_reason == (
        "This mail has more than 1000 MIME parts: it was kept whole but not read."
    )
    assert bytes(message.raw) == raw
    assert (message.sender, message.subject, message.external_id) == (
        "anna@example.ru",
        "Parts",
        "parts-1@example.ru",
    )
    assert Lead.objects.count() == 0
    again, created = inbound_store(inbound_from_mail(raw, source="imap:INBOX"))
    assert (again.pk, created) == (message.pk, False)


@pytest.mark.django_db
def test_the_size_cap_is_the_crm_mail_max_bytes_setting(settings):
    settings.CRM_MAIL_MAX_BYTES = 10_000
    raw = multipart(b"Content-Type: text/plain\r\n\r\n" + b"Need a video. " * 1000 + b"\r\n")

    with translation.override("en"):
        message, _ = inbound_store(inbound_from_mail(raw, source="import"))

    assert message.status == InboundMessage.Status.HUMAN
    assert message.human_reason.startswith("This mail is 13.9\xa0KB, over the limit of 9.8\xa0KB")


@pytest.mark.parametrize(
    ("raw", "cap"),
    [
        (b"X-Spam: 1\r\n" * 20_001 + HEAD + b"\r\nhi", "header_fields"),
        (multipart(b"Content-Type: text/html\r\n\r\n" + b"<p>x</p>\r\n" * 900_000), "text_bytes"),
        (multipart(b"Content-Type: application/pdf" + b"; a=b" * 2000 + b"\r\n\r\nx\r\n"),
         "mime_header_chars"),
    ],
)  # fmt: skip
def test_every_cap_sets_the_mail_aside(raw, cap):
    parsed = mail_parse(raw)
    assert parsed.over_cap.cap == cap
    assert parsed.body_text == ""


def test_a_plain_5_mb_mail_with_a_few_parts_is_under_every_cap():
    raw = multipart(
        b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
        + "Нужен ролик. ".encode() * 220_000
        + b"\r\n",
        b"Content-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n"
        b"Content-Disposition: attachment; filename=brief.pdf\r\n\r\n"
        + base64.encodebytes(b"%PDF" * 2_500_000),
    )
    parsed = mail_parse(raw)
    assert parsed.over_cap is None
    assert parsed.body_text.startswith("Нужен ролик.")
    assert parsed.attachments[0]["size"] == 10_000_000


def test_many_undeclared_cp1251_parts_are_read_after_the_guessing_budget_is_spent():
    text = "Хотим снять рекламный ролик к запуску продукта в сентябре. " * 300
    raw = multipart(*[b"Content-Type: text/plain\r\n\r\n" + text.encode("cp1251") + b"\r\n"] * 40)
    parsed = mail_parse(raw, MailCaps())
    assert parsed.body_text.count("рекламный ролик") == 40 * 300
    assert any("guessing budget was spent" in note for note in parsed.charset_notes)


def word(text: str) -> str:
    return f"=?utf-8?B?{base64.b64encode(text.encode()).decode()}?="


def test_40_000_encoded_words_are_all_decoded_and_a_broken_one_spoils_only_itself():
    words = [word("Анна")] * 20_000 + ["=?utf-8?B?Q?="] + [word("Олег")] * 20_000
    raw = HEAD.replace(b"Subject: Parts", b"Subject: " + " ".join(words).encode()) + b"\r\nhi"
    subject = mail_parse(raw).subject
    assert subject == "Анна" * 20_000 + " =?utf-8?B?Q?= " + "Олег" * 20_000


def test_a_character_split_between_two_encoded_words_is_decoded_whole():
    data = "Заявка".encode()
    halves = [base64.b64encode(data[:5]).decode(), base64.b64encode(data[5:]).decode()]
    header = " ".join(f"=?utf-8?B?{half}?=" for half in halves)
    raw = HEAD.replace(b"Subject: Parts", f"Subject: {header}".encode()) + b"\r\nhi"
    assert mail_parse(raw).subject == "Заявка"


@pytest.mark.parametrize(
    "date",
    [b"Sat, 01 Jan 0000 00:00:00 +0000", b"Mon, 01 Jan 0069 10:00:00 +0000",
     b"Fri, 01 Jan 2101 00:00:00 +0000", b"Thu, 31 Dec 1969 23:59:59 +0000"],
)  # fmt: skip
def test_a_date_outside_1970_to_2100_is_unknown(date):
    raw = HEAD.replace(b"Tue, 03 Jun 2025 10:15:00 +0300", date) + b"\r\nhi"
    parsed = mail_parse(raw)
    assert parsed.sent_at is None
    assert any(note.startswith("Date header") for note in parsed.charset_notes)


@pytest.mark.parametrize(
    ("date", "year"),
    [(b"Fri, 31 Dec 2100 12:00:00 +0000", 2100), (b"Thu, 1 Jan 1970 00:00:00 +0000", 1970),
     (b"Sun, 03 Jan 99 10:00:00 +0000", 1999), (b"Tue, 03 Jun 25 10:15:00 +0300", 2025)],
)  # fmt: skip
def test_dates_from_1970_to_2100_and_two_digit_years_are_kept(date, year):
    raw = HEAD.replace(b"Tue, 03 Jun 2025 10:15:00 +0300", date) + b"\r\nhi"
    assert mail_parse(raw).sent_at.astimezone(UTC).year == year


def test_an_outlook_style_encoded_word_file_name_is_decoded():
    raw = multipart(
        b"Content-Type: text/plain\r\n\r\nsee the brief\r\n",
        b"Content-Type: application/pdf\r\nContent-Disposition: attachment; filename=\""
        + word("Бриф весна.pdf").encode() + b'"\r\n\r\nx\r\n',
    )  # fmt: skip
    assert mail_parse(raw).attachments[0]["filename"] == "Бриф весна.pdf"
