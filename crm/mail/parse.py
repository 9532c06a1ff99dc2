"""`mail_parse`: one raw RFC 5322 message turned into a `ParsedMail`; never raises."""

from __future__ import annotations

import email
import email.utils
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.feedparser import BytesFeedParser
from email.message import EmailMessage, Message
from email.policy import EmailPolicy
from typing import Literal

from crm.mail.charsets import GuessBudget, _decode_text
from crm.mail.headers import (
    _address,
    _first_headers,
    _header_text,
    _message_id,
    _safe,
    _sender,
    _sent_at,
)
from crm.mail.mime import (
    MailTextTooLong,
    _Attachment,
    _body_after_headers,
    _collect,
    _Collected,
    _Reading,
)
from crm.mail.text import (
    _normalise_text,
    _single_line,
)

BodySource = Literal["plain", "html", "none"]


# Bumped whenever the hashed form changes: stored hashes of the old form stop matching.
CONTENT_HASH_VERSION = "crm-mail-v1"

# What one mail may cost to read. Real mail stays far below each cap; a mail over one is not
# read further but kept whole for a person (`ParsedMail.over_cap` says which and by how much).
MAIL_MAX_BYTES = 32 * 1024 * 1024  # the whole raw message; a 25 MB attachment fits
MAIL_MAX_PARTS = 1000  # MIME parts, attached messages included
# Header fields of the message and all its parts: a megabyte of "X-A: b" lines is 120,000.
MAIL_MAX_HEADER_FIELDS = 20_000
MAIL_MAX_TEXT_BYTES = 8 * 1024 * 1024  # body text parts together (HTML: about 0.7 s/MB)
# Content-Type, -Disposition and -Transfer-Encoding of any part: the stdlib splits them into
# parameters in time that grows with the square of their length, several times a part. A
# 255-letter Cyrillic file name takes about 1.6 KB.
MAIL_MAX_MIME_HEADER_CHARS = 4096
# Bytes one mail may score while guessing charsets (about 2.5 us a byte, so about 0.7 s).
MAIL_GUESS_BYTES = 256 * 1024
# A mail set aside still shows its sender and subject: its head is read, up to this much.
_SET_ASIDE_HEAD_BYTES = 256 * 1024
_FEED_BYTES = 64 * 1024
_MIME_HEADERS = frozenset({"content-type", "content-disposition", "content-transfer-encoding"})


@dataclass(frozen=True)
class MailCaps:
    """The caps one mail is read under (see the MAIL_MAX_* constants)."""

    max_bytes: int = MAIL_MAX_BYTES
    max_parts: int = MAIL_MAX_PARTS
    max_header_fields: int = MAIL_MAX_HEADER_FIELDS
    max_text_bytes: int = MAIL_MAX_TEXT_BYTES
    max_mime_header_chars: int = MAIL_MAX_MIME_HEADER_CHARS


CapName = Literal["bytes", "parts", "header_fields", "text_bytes", "mime_header_chars"]


@dataclass(frozen=True)
class MailOverCap:
    """Which cap a mail went over: its `size` (for parts and header characters, where the
    count stopped: the cap plus one) against the cap's `limit`."""

    cap: CapName
    size: int
    limit: int


class _RawMimeHeaders(EmailPolicy):
    """policy.default, except that a part's header reads as the text it came as. The walk
    needs only strings (Message's own get_content_type, get_param, get_filename read those),
    while the header registry parses every parameter, comment and encoded word in time
    quadratic in their number: one Content-Type of 800 parameters took 0.2 s."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        if hasattr(value, "name"):  # a header object set by code, not parsed from bytes
            return value
        return _LINE_BREAKS.sub("", value)


_LINE_BREAKS = re.compile(r"[\r\n]")
_RAW_MIME_HEADERS = _RawMimeHeaders()


class _OverCap(Exception):
    def __init__(self, over: MailOverCap) -> None:
        super().__init__(over.cap)
        self.over = over


@dataclass(frozen=True)
class ParsedMail:
    """What one raw message says, decoded and normalised; built only by `mail_parse`.

    `body_text` joins the message's text parts in order: of alternatives the plain one,
    else the HTML one converted to text; a message forwarded inline (message/rfc822) adds
    a "Forwarded message" block with its From/Date/Subject/To and text. `body_source` is
    "plain" when any plain part gave text, "html" when only HTML did, else "none" (and the
    text is empty). Attachments (and messages attached as files) are only listed.
    `charset_notes` explains each charset fallback ("text/plain part: declared utf-8 but
    bytes were cp1251") and any part of the structure that had to be skipped.

    `content_hash` is the sha256 (hex) of a JSON array of: CONTENT_HASH_VERSION, message_id,
    sender_email, subject, sent_at in UTC ISO form ("" when missing), body_text and, per
    attachment, [filename, content_type, size, sha256 of its decoded bytes]. Everything in
    it is what the sender wrote, never what relays add (Received, Delivered-To, X-*), and
    it is taken after transfer and charset decoding, so a message delivered twice, or
    re-encoded on the way (8bit → quoted-printable), hashes the same. A message where none
    of those could be read (junk) hashes its raw bytes instead, so two different unreadable
    inputs never look like one message.

    `over_cap` is set when the mail went over one of its caps (`MailCaps`): then only its
    head was read (message_id, sender, subject, date), the body and attachments are left
    empty and `content_hash` is over the raw bytes; a person must open the mail.
    """

    message_id: str
    sender_email: str
    sender_name: str
    subject: str
    body_text: str
    body_source: BodySource
    attachments: tuple[dict[str, str | int], ...]
    sent_at: datetime | None
    content_hash: str
    charset_notes: tuple[str, ...]
    # Where replies go when that is not the sender: a site's form relay sends from its own
    # no-reply address with the client in Reply-To.
    reply_to_email: str = ""
    over_cap: MailOverCap | None = None


def _content_hash(
    *,
    message_id: str,
    sender_email: str,
    subject: str,
    sent_at: datetime | None,
    body_text: str,
    attachments: list[_Attachment],
    raw: bytes,
) -> str:
    if not (message_id or sender_email or subject or body_text or attachments):
        return raw_content_hash(raw)
    form = [
        CONTENT_HASH_VERSION,
        message_id,
        sender_email,
        subject,
        sent_at.astimezone(UTC).isoformat() if sent_at else "",
        body_text,
        [[a.filename, a.content_type, a.size, a.sha256] for a in attachments],
    ]
    encoded = json.dumps(form, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8", "surrogatepass")).hexdigest()


def raw_content_hash(raw: bytes) -> str:
    """The content hash of a mail none of which was read: over its raw bytes."""
    return hashlib.sha256(b"crm-mail-raw-v1\n" + raw).hexdigest()


def mail_parse(raw: bytes, caps: MailCaps | None = None) -> ParsedMail:
    """Parse one raw RFC 5322 message. Never raises: what cannot be read is left empty and
    charset guesses are explained in `charset_notes`. A mail over one of `caps` (by default
    the MAIL_MAX_* constants) is not read past its head: see `ParsedMail.over_cap`."""
    raw = bytes(raw or b"")
    caps = caps or MailCaps()
    try:
        if len(raw) > caps.max_bytes:
            raise _OverCap(MailOverCap("bytes", len(raw), caps.max_bytes))
        return _parse(raw, caps)
    except _OverCap as over:
        return _set_aside(raw, over.over)
    except Exception as error:  # a last resort: the parts above already guard themselves
        return ParsedMail(
            message_id="",
            sender_email="",
            sender_name="",
            subject="",
            body_text="",
            body_source="none",
            attachments=(),
            sent_at=None,
            content_hash=raw_content_hash(raw),
            charset_notes=(f"message could not be parsed: {type(error).__name__}",),
        )


def _capped_message(raw: bytes, caps: MailCaps) -> Message:
    """The message tree, built only while it stays within the part and header caps: the
    parser stops at the first message object or header past them."""
    parts = fields = 0

    class CappedMessage(EmailMessage):
        def set_raw(self, name: str, value: str) -> None:
            nonlocal fields
            fields += 1
            if fields > caps.max_header_fields:
                raise _OverCap(MailOverCap("header_fields", fields, caps.max_header_fields))
            if len(value) > caps.max_mime_header_chars and name.lower() in _MIME_HEADERS:
                limit = caps.max_mime_header_chars
                raise _OverCap(MailOverCap("mime_header_chars", limit + 1, limit))
            super().set_raw(name, value)

    def factory(policy: policy.Policy) -> Message:
        nonlocal parts
        parts += 1
        if parts > caps.max_parts:
            raise _OverCap(MailOverCap("parts", parts, caps.max_parts))
        return CappedMessage(policy=policy)

    parser = BytesFeedParser(factory, policy=_RAW_MIME_HEADERS)
    parts = 0  # the constructor calls the factory once, to probe its signature
    view = memoryview(raw)
    for start in range(0, len(raw), _FEED_BYTES):  # in pieces, so that a cap stops it early
        parser.feed(bytes(view[start : start + _FEED_BYTES]))
    return parser.close()


def _head(raw: bytes) -> Message | None:
    """The headers alone, from at most the first _SET_ASIDE_HEAD_BYTES."""
    head = raw[:_SET_ASIDE_HEAD_BYTES]
    blank_line = re.search(rb"\r?\n\r?\n", head)
    head = head[: blank_line.start()] if blank_line else head
    return _safe(lambda: email.message_from_bytes(head, policy=policy.default), None)


def _set_aside(raw: bytes, over: MailOverCap) -> ParsedMail:
    """A mail over a cap: its head for people to recognise it, nothing else read."""
    notes: list[str] = []
    headers = _first_headers(_head(raw))
    sender_name, sender_email = _sender(headers, notes)
    _, reply_to_email = _address(headers.get("reply-to"), notes, "Reply-To")
    notes.append(f"not read: over the {over.cap} cap ({over.size} > {over.limit})")
    return ParsedMail(
        message_id=_message_id(headers.get("message-id"), notes),
        sender_email=sender_email,
        sender_name=sender_name,
        subject=_single_line(_header_text(headers.get("subject", ""), notes, "Subject")),
        body_text="",
        body_source="none",
        attachments=(),
        sent_at=_sent_at(headers.get("date"), notes),
        content_hash=raw_content_hash(raw),
        charset_notes=tuple(dict.fromkeys(_single_line(note) for note in notes)),
        reply_to_email=reply_to_email if reply_to_email != sender_email else "",
        over_cap=over,
    )


def _parse(raw: bytes, caps: MailCaps) -> ParsedMail:
    notes: list[str] = []
    try:
        message: Message | None = _capped_message(raw, caps)
    except _OverCap:
        raise
    except Exception:
        message = None
    headers = _first_headers(message)
    message_id = _message_id(headers.get("message-id"), notes)
    sender_name, sender_email = _sender(headers, notes)
    _, reply_to_email = _address(headers.get("reply-to"), notes, "Reply-To")
    subject = _single_line(_header_text(headers.get("subject", ""), notes, "Subject"))
    sent_at = _sent_at(headers.get("date"), notes)

    body = _Collected()
    reading = _Reading(text_cap=caps.max_text_bytes, guess=GuessBudget(MAIL_GUESS_BYTES))
    try:
        if message is None:
            raise ValueError("no message")
        _collect(message, body, 0, reading)
    except MailTextTooLong as error:
        raise _OverCap(MailOverCap("text_bytes", error.size, error.limit)) from None
    except Exception as error:
        body = _Collected()
        data = _body_after_headers(raw)
        if len(data) > caps.max_text_bytes:
            raise _OverCap(MailOverCap("text_bytes", len(data), caps.max_text_bytes)) from None
        text, note = _decode_text(data, None, reading.guess)
        body.segments.append(("plain", _normalise_text(text)))
        body.notes.append(f"MIME structure unreadable ({type(error).__name__}); body read as text")
        if note:
            body.notes.append(f"body: {note}")
    notes.extend(body.notes)

    if body.has("plain"):
        body_source: BodySource = "plain"
    elif body.has("html"):
        body_source = "html"
    else:
        body_source = "none"
    body_text = ""
    if body_source != "none":
        body_text = "\n\n".join(text for _, text in body.segments if text)

    return ParsedMail(
        message_id=message_id,
        sender_email=sender_email,
        sender_name=sender_name,
        subject=subject,
        body_text=body_text,
        body_source=body_source,
        attachments=tuple(
            {"filename": a.filename, "content_type": a.content_type, "size": a.size}
            for a in body.attachments
        ),
        sent_at=sent_at,
        content_hash=_content_hash(
            message_id=message_id,
            sender_email=sender_email,
            subject=subject,
            sent_at=sent_at,
            body_text=body_text,
            attachments=body.attachments,
            raw=raw,
        ),
        charset_notes=tuple(dict.fromkeys(_single_line(note) for note in notes)),
        reply_to_email=reply_to_email if reply_to_email != sender_email else "",
    )
