"""Mail headers read defensively: decoded header text, Message-ID, sender, Reply-To, Date."""

from __future__ import annotations

import binascii
import email
import email.quoprimime
import email.utils
import re
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import Message
from typing import TypeVar

from core.input import date_problem, datetime_problem
from crm.mail.charsets import GuessBudget, _decode_text
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


# An RFC 2047 encoded word. Neither its charset nor its text may hold a "?", so every match
# attempt stops at the next "?": the scan stays linear however many words a header holds
# (email.header.decode_header pops from a list's front and concatenates bytes: quadratic).
_ENCODED_WORD = re.compile(r"=\?([^?\s]*)\?([bBqQ])\?([^?]*)\?=")


def _encoded_word_bytes(encoding: str, text: str) -> bytes | None:
    """The bytes an encoded word's text stands for, read as leniently as the stdlib does
    (stray characters skipped, missing padding added); None when even that fails."""
    try:
        if encoding in "bB":
            padded = text + "==="[: -len(text) % 4]
            return binascii.a2b_base64(padded.encode("raw-unicode-escape"))
        return email.quoprimime.header_decode(text).encode("raw-unicode-escape")
    except (binascii.Error, ValueError):
        return None


def _encoded_words(value: str) -> list[tuple[str | bytes, str | None]]:
    """A header value as (text, None) and (encoded bytes, charset) chunks, in one pass: what
    email.header.decode_header gives, without its quadratic cost. Whitespace between two
    encoded words is dropped (RFC 2047 6.2) and adjacent words of one charset are joined,
    so that a character split between two words is decoded whole."""
    chunks: list[tuple[str | list[bytes], str | None]] = []
    position = 0
    after_word = False
    for match in _ENCODED_WORD.finditer(value):
        data = _encoded_word_bytes(match.group(2), match.group(3))
        if data is None:  # left as it is written, with the text around it
            continue
        between = value[position : match.start()]
        if between and not (after_word and between.isspace()):
            chunks.append((between, None))
        charset = match.group(1).split("*", 1)[0].lower()  # RFC 2231: charset*language
        last = chunks[-1] if chunks else None
        if last is not None and last[1] == charset and isinstance(last[0], list):
            last[0].append(data)
        else:
            chunks.append(([data], charset))
        position, after_word = match.end(), True
    if position < len(value):
        chunks.append((value[position:], None))
    return [
        (text if isinstance(text, str) else b"".join(text), charset) for text, charset in chunks
    ]


def _header_text(value: str, notes: list[str], what: str, budget: GuessBudget | None = None) -> str:
    """A raw header value decoded: 8-bit bytes through charset detection, RFC 2047 words
    through their declared charset (checked the same way as bodies)."""
    value = re.sub(r"\r?\n(?=[ \t])", "", value)
    if _SURROGATES.search(value):  # undecoded 8-bit bytes kept by the parser as surrogates
        raw = value.encode("utf-8", "surrogateescape")
        value, note = _decode_text(raw, None, budget)
        if note:
            notes.append(f"{what}: {note}")
    if "=?" not in value:
        return value
    decoded: list[str] = []
    for chunk, charset in _encoded_words(value):
        if isinstance(chunk, str):
            decoded.append(chunk)
            continue
        text, note = _decode_text(chunk, charset or None, budget)
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


# A year written with three or more digits that the stdlib still reads as a two-digit one
# ("0000" -> 2000, "0050" -> 2050): it never meant this century.
_PADDED_SHORT_YEAR = re.compile(r"(?<![\d:+-])0\d{2,}(?![\d:])")


def _date_problem(parsed: datetime, text: str) -> str:
    """Why a Date header's time is not the mail's, or "": it must be a time a person means
    (core.input: 1970-2100) and its year written as it was read."""
    problem = datetime_problem(parsed)
    if problem:
        return problem
    year = parsed.astimezone(UTC).year
    problem = date_problem(parsed.astimezone(UTC).date())
    if problem:
        return f"out of range ({problem})"
    for written in _PADDED_SHORT_YEAR.findall(text):
        if int(written) + 1900 == year or int(written) + 2000 == year:
            return f"out of range (year {written} read as {year})"
    return ""


def _sent_at(value: str | None, notes: list[str]) -> datetime | None:
    if not value:
        return None
    text = _single_line(_header_text(value, notes, "Date"))
    parsed = _safe(lambda: email.utils.parsedate_to_datetime(text), None)
    if not isinstance(parsed, datetime):
        return None
    if parsed.tzinfo is None:  # "-0000": UTC, with no word on the sender's zone (RFC 5322)
        parsed = parsed.replace(tzinfo=UTC)
    problem = _date_problem(parsed, text)
    if problem:  # 31 Dec 9999 23:59 -1400 is in year 10000 in UTC: the date is unknown
        notes.append(f"Date header {text[:60]!r} is {problem}; the arrival time stands for it")
        return None
    return parsed
