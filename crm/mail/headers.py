"""Mail headers read defensively: decoded header text, Message-ID, sender, Reply-To, Date."""

from __future__ import annotations

import email
import email.header
import email.utils
import re
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import Message
from typing import TypeVar

from core.input import datetime_problem
from crm.mail.charsets import _decode_text
from crm.mail.text import (
    _SURROGATES,
    _single_line,
)

T = TypeVar("T")
D = TypeVar("D")


def _safe(call: Callable[[], T], default: D) -> T | D:
    """The stdlib's header objects can raise on hostile input; a missing value is better."""
    try:
        return call()
    except Exception:
        return default


def _header_text(value: str, notes: list[str], what: str) -> str:
    """A raw header value decoded: 8-bit bytes through charset detection, RFC 2047 words
    through their declared charset (checked the same way as bodies)."""
    value = re.sub(r"\r?\n(?=[ \t])", "", value)
    if _SURROGATES.search(value):  # undecoded 8-bit bytes kept by the parser as surrogates
        raw = value.encode("utf-8", "surrogateescape")
        value, note = _decode_text(raw, None)
        if note:
            notes.append(f"{what}: {note}")
    if "=?" not in value:
        return value
    try:
        chunks = email.header.decode_header(value)
    except Exception:
        return value
    decoded: list[str] = []
    for chunk, charset in chunks:
        if isinstance(chunk, str):
            decoded.append(chunk)
        elif charset is None:
            decoded.append(chunk.decode("raw-unicode-escape", "replace"))
        else:
            text, note = _decode_text(chunk, charset)
            if note:
                notes.append(f"{what}: {note}")
            decoded.append(text)
    return "".join(decoded)


def _first_headers(message: Message | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    if message is None:
        return headers
    for name, value in _safe(message.raw_items, []):
        headers.setdefault(str(name).strip().lower(), str(value))
    return headers


def _message_id(value: str | None, notes: list[str]) -> str:
    if not value:
        return ""
    text = _header_text(value, notes, "Message-ID")
    closing = text.find(">")
    opening = text.rfind("<", 0, closing) if closing > 0 else -1
    if opening >= 0:
        text = text[opening + 1 : closing]
    return re.sub(r"\s+", "", _single_line(text))


def _sender(headers: dict[str, str], notes: list[str]) -> tuple[str, str]:
    """(display name, lower-cased address) from From, else Sender."""
    return _address(headers.get("from") or headers.get("sender"), notes, "From")


def _address(value: str | None, notes: list[str], label: str) -> tuple[str, str]:
    """(display name, lower-cased address) of one address header."""
    if not value:
        return "", ""
    value = re.sub(r"\r?\n(?=[ \t])", "", value)
    if _SURROGATES.search(value):
        value, note = _decode_text(value.encode("utf-8", "surrogateescape"), None)
        if note:
            notes.append(f"{label}: {note}")
    name, address = _safe(lambda: email.utils.parseaddr(value), ("", ""))
    if "@" not in address:
        found = re.search(r"[^\s<>()\"',;:@]+@[^\s<>()\"',;:@]+", value[:4096])
        address = found.group() if found else ""
    name = _single_line(_header_text(name, notes, label)).strip("\"' ")
    return name, _single_line(address).strip("<>").lower()


def _sent_at(value: str | None, notes: list[str]) -> datetime | None:
    if not value:
        return None
    text = _single_line(_header_text(value, notes, "Date"))
    parsed = _safe(lambda: email.utils.parsedate_to_datetime(text), None)
    if not isinstance(parsed, datetime):
        return None
    if parsed.tzinfo is None:  # "-0000": UTC, with no word on the sender's zone (RFC 5322)
        parsed = parsed.replace(tzinfo=UTC)
    problem = datetime_problem(parsed)
    if problem:  # 31 Dec 9999 23:59 -1400 is in year 10000 in UTC: the date is unknown
        notes.append(f"Date header {text[:60]!r} is {problem}; the arrival time stands for it")
        return None
    return parsed
