"""Walking a message's MIME tree: which parts are body text, which are attachments, and
messages forwarded inline or attached."""

from __future__ import annotations

import email.utils
import hashlib
import re
from dataclasses import dataclass, field
from email.generator import BytesGenerator
from email.message import Message
from io import BytesIO

from crm.mail.charsets import GuessBudget, _decode_text
from crm.mail.headers import (
    _first_headers,
    _header_text,
    _safe,
)
from crm.mail.text import (
    _HTML_META_CHARSET,
    _SURROGATES,
    _html_to_text,
    _normalise_text,
    _single_line,
)

_MAX_MIME_DEPTH = 100  # real mail nests a few levels; this only stops recursion bombs


class MailTextTooLong(Exception):
    """The mail's body text parts together are over the text cap: it is not read further."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"body text over {limit} bytes")
        self.size, self.limit = size, limit


@dataclass
class _Reading:
    """What one mail's walk may still spend: bytes of body text to decode and convert (HTML
    costs most, about 0.7 s a megabyte), and bytes to score while guessing charsets."""

    text_cap: int
    guess: GuessBudget
    text_bytes: int = 0

    def spend_text(self, size: int) -> None:
        self.text_bytes += size
        if self.text_bytes > self.text_cap:
            raise MailTextTooLong(self.text_bytes, self.text_cap)


@dataclass
class _Attachment:
    filename: str
    content_type: str
    size: int
    sha256: str


@dataclass
class _Collected:
    segments: list[tuple[str, str]] = field(default_factory=list)  # (plain|html|meta, text)
    attachments: list[_Attachment] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def has(self, kind: str) -> bool:
        return any(k == kind and text for k, text in self.segments)

    def extend(self, other: _Collected, *, with_text: bool = True) -> None:
        if with_text:
            self.segments.extend(other.segments)
            self.notes.extend(other.notes)
        self.attachments.extend(other.attachments)


def _content_type(part: Message) -> str:
    content_type = _safe(part.get_content_type, "text/plain") or "text/plain"
    return _SURROGATES.sub("\ufffd", content_type)  # 8-bit bytes in it: it is stored


_MISSING = object()


def _filename(part: Message, notes: list[str], reading: _Reading) -> str:
    """The part's file name (as Message.get_filename finds it): RFC 2231 names
    (filename*=utf-8''...) through their charset, checked like a body's; 8-bit bytes and
    RFC 2047 words (name="=?utf-8?B?...?=", which many mailers write) decoded here."""
    value = _safe(lambda: part.get_param("filename", _MISSING, "content-disposition"), _MISSING)
    if value is _MISSING:
        value = _safe(lambda: part.get_param("name", _MISSING, "content-type"), _MISSING)
    if value is _MISSING or not value:
        return ""
    if isinstance(value, tuple):  # RFC 2231: (charset, language, the bytes as latin-1)
        charset, _, text = value
        # Percent-decoded bytes come as latin-1 letters; raw 8-bit ones as surrogates.
        data = _safe(lambda: text.encode("latin-1", "surrogateescape"), None)
        data = data if data is not None else text.encode("utf-8", "replace")
        name, note = _decode_text(data, charset or None, reading.guess)
        if note:
            notes.append(f"attachment name: {note}")
    else:
        value = email.utils.unquote(str(value))
        name = _header_text(value, notes, "attachment name", reading.guess)
    return _single_line(name).strip('"')


def _payload_bytes(part: Message) -> bytes:
    payload = _safe(lambda: part.get_payload(decode=True), None)
    if isinstance(payload, bytes):
        return payload
    return b""


def _as_written(message: Message) -> bytes:
    """A message serialised with its headers as they came. The stdlib refolds long headers
    by parsing them, and an address header of a thousand encoded words takes seconds."""
    out = BytesIO()
    policy = message.policy.clone(refold_source="none")
    BytesGenerator(out, mangle_from_=False, policy=policy).flatten(message)
    return out.getvalue()


def _attachment(
    part: Message, content_type: str, notes: list[str], reading: _Reading
) -> _Attachment:
    filename = _filename(part, notes, reading)
    if part.is_multipart():  # an attached message: its size is its serialised form
        inner = _safe(lambda: part.get_payload(0), None)
        data = _safe(lambda: _as_written(inner), b"") if isinstance(inner, Message) else b""
        if not filename and isinstance(inner, Message):
            subject = _first_headers(inner).get("subject", "")
            subject = _single_line(_header_text(subject, notes, "Subject", reading.guess))
            filename = f"{subject or 'message'}.eml"
    else:
        data = _payload_bytes(part)
    return _Attachment(
        filename=filename,
        content_type=content_type,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
    )


def _is_body_text(part: Message, content_type: str) -> bool:
    if content_type not in ("text/plain", "text/html"):
        return False
    disposition = _safe(part.get_content_disposition, None)
    if disposition == "attachment":
        return False
    # A named text part without a disposition is an attached file (notes.txt), not the body.
    return not (disposition is None and _safe(part.get_filename, None))


def _forward_preamble(inner: Message, notes: list[str], reading: _Reading) -> str:
    headers = _first_headers(inner)
    lines = ["---------- Forwarded message ----------"]
    for name in ("From", "Date", "Subject", "To"):
        value = headers.get(name.lower())
        if value:
            text = _header_text(value, notes, name, reading.guess)
            lines.append(f"{name}: {_single_line(text)}")
    return "\n".join(lines)


def _collect(part: Message, out: _Collected, depth: int, reading: _Reading) -> None:
    if depth > _MAX_MIME_DEPTH:
        out.notes.append(f"MIME nesting deeper than {_MAX_MIME_DEPTH} levels was skipped")
        return
    content_type = _content_type(part)
    disposition = _safe(part.get_content_disposition, None)
    if part.is_multipart():
        children = [child for child in part.get_payload() if isinstance(child, Message)]
        if content_type in ("message/rfc822", "message/global") and disposition != "attachment":
            # A message forwarded inline: its text belongs to the conversation.
            for inner in children[:1]:
                forwarded = _Collected()
                _collect(inner, forwarded, depth + 1, reading)
                if forwarded.has("plain") or forwarded.has("html"):
                    out.segments.append(("meta", _forward_preamble(inner, out.notes, reading)))
                out.extend(forwarded)
            return
        if content_type.startswith("message/"):
            out.attachments.append(_attachment(part, content_type, out.notes, reading))
            return
        if content_type == "multipart/alternative":
            # The same content several ways: the first plain version, else the first HTML.
            versions = []
            for child in children:
                version = _Collected()
                _collect(child, version, depth + 1, reading)
                versions.append(version)
            chosen = next((v for v in versions if v.has("plain")), None)
            chosen = chosen or next((v for v in versions if v.has("html")), None)
            for version in versions:
                out.extend(version, with_text=version is chosen)
            return
        for child in children:
            _collect(child, out, depth + 1, reading)
        return
    if content_type.startswith("multipart/"):
        # A multipart whose boundary never came: the parser left its text as one payload.
        content_type = "text/plain"
    if not _is_body_text(part, content_type):
        out.attachments.append(_attachment(part, content_type, out.notes, reading))
        return
    data = _payload_bytes(part)
    reading.spend_text(len(data))
    charset = _safe(part.get_content_charset, None)
    if content_type == "text/html" and charset is None:
        meta = _HTML_META_CHARSET.search(data[:4096])
        charset = meta.group(1).decode("ascii") if meta else None
    text, note = _decode_text(data, charset, reading.guess)
    if note:
        out.notes.append(f"{content_type} part: {note}")
    if content_type == "text/html":
        out.segments.append(("html", _html_to_text(text)))
    else:
        out.segments.append(("plain", _normalise_text(text)))


def _body_after_headers(raw: bytes) -> bytes:
    blank_line = re.search(rb"\r?\n\r?\n", raw)
    return raw[blank_line.end() :] if blank_line else b""
