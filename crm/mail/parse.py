"""`mail_parse`: one raw RFC 5322 message turned into a `ParsedMail`; never raises."""

from __future__ import annotations

import email
import email.header
import email.utils
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import Message
from typing import Literal

from crm.mail.charsets import _decode_text
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
    _Attachment,
    _body_after_headers,
    _collect,
    _Collected,
)
from crm.mail.text import (
    _normalise_text,
    _single_line,
)

BodySource = Literal["plain", "html", "none"]


# Bumped whenever the hashed form changes: stored hashes of the old form stop matching.
CONTENT_HASH_VERSION = "crm-mail-v1"


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
        return hashlib.sha256(b"crm-mail-raw-v1\n" + raw).hexdigest()
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


def mail_parse(raw: bytes) -> ParsedMail:
    """Parse one raw RFC 5322 message. Never raises: what cannot be read is left empty and
    charset guesses are explained in `charset_notes`."""
    raw = bytes(raw or b"")
    try:
        return _parse(raw)
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
            content_hash=hashlib.sha256(b"crm-mail-raw-v1\n" + raw).hexdigest(),
            charset_notes=(f"message could not be parsed: {type(error).__name__}",),
        )


def _parse(raw: bytes) -> ParsedMail:
    notes: list[str] = []
    message: Message | None = _safe(
        lambda: email.message_from_bytes(raw, policy=policy.default), None
    )
    headers = _first_headers(message)
    message_id = _message_id(headers.get("message-id"), notes)
    sender_name, sender_email = _sender(headers, notes)
    _, reply_to_email = _address(headers.get("reply-to"), notes, "Reply-To")
    subject = _single_line(_header_text(headers.get("subject", ""), notes, "Subject"))
    sent_at = _sent_at(headers.get("date"), notes)

    body = _Collected()
    try:
        if message is None:
            raise ValueError("no message")
        _collect(message, body, 0)
    except Exception as error:
        body = _Collected()
        text, note = _decode_text(_body_after_headers(raw), None)
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
