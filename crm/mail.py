"""Raw inbound mail turned into plain facts (sender, text, attachments, hash); imports no Django."""

from __future__ import annotations

import codecs
import contextlib
import email
import email.header
import email.utils
import errno
import hashlib
import json
import mailbox
import math
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email import policy
from email.message import Message
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal, TypeVar

from core.input import datetime_problem

BodySource = Literal["plain", "html", "none"]
T = TypeVar("T")
D = TypeVar("D")

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


# --- charsets ------------------------------------------------------------------------------

# Letter frequencies of Russian prose (%), the yardstick that tells cp1251 from koi8-r: read
# through the wrong table, the same bytes turn into rare letters with the case flipped.
_RUSSIAN_LETTER_PERCENT = {
    "о": 10.97, "е": 8.45, "а": 8.01, "и": 7.35, "н": 6.70, "т": 6.26, "с": 5.47,
    "р": 4.73, "в": 4.54, "л": 4.40, "к": 3.49, "м": 3.21, "д": 2.98, "п": 2.81,
    "у": 2.62, "я": 2.01, "ы": 1.90, "ь": 1.74, "г": 1.70, "з": 1.65, "б": 1.59,
    "ч": 1.44, "й": 1.21, "х": 0.97, "ж": 0.94, "ш": 0.73, "ю": 0.64, "ц": 0.48,
    "щ": 0.36, "э": 0.32, "ф": 0.26, "ъ": 0.04, "ё": 0.04,
}  # fmt: skip
_CYRILLIC_LOG_FREQUENCY = {
    letter: math.log(percent / 100) for letter, percent in _RUSSIAN_LETTER_PERCENT.items()
}
_RARE_CYRILLIC = math.log(0.0002)
_CAPS_PENALTY = 0.5

# Declared charsets that are often wrong and that the heuristic may overrule. Anything else
# (utf-16, gb2312, iso-2022-jp, ...) is trusted whenever it decodes without errors.
_GUESSABLE_CODECS = frozenset(
    {
        "utf-8", "ascii", "iso8859-1", "cp1252", "iso8859-15",
        "cp1251", "koi8-r", "koi8-u", "iso8859-5", "cp866", "mac-cyrillic",
    }
)  # fmt: skip
# On a tie the earlier one wins; cp1252 is there so that undeclared French or German mail
# is not read as Cyrillic.
_DETECTED_CODECS = ("cp1251", "koi8-r", "utf-8", "cp1252")
_SCORE_SAMPLE_BYTES = 32_768  # enough to tell the tables apart; keeps 5 MB bodies fast
_LETTER_RUN_OR_CHAR = re.compile(r"[^\W\d_]+|.", re.DOTALL)


def _codec_name(charset: str | None) -> str | None:
    """Python's canonical name for a declared charset, None when missing or unknown."""
    if not charset:
        return None
    try:
        info = codecs.lookup(charset.strip().strip("\"'"))
    except (LookupError, ValueError, TypeError):
        return None
    if not getattr(info, "_is_text_encoding", True):  # base64, zlib, rot13 ...
        return None
    return info.name


def _word_score(word: str) -> float:
    """How plausible a run of letters is as prose; only its non-ASCII letters count, since
    ASCII reads the same through every candidate table."""
    ascii_letters = sum(1 for char in word if char.isascii())
    cyrillic = sum(1 for char in word if "\u0400" <= char <= "\u04ff")
    other = len(word) - ascii_letters - cyrillic
    score = 0.0
    previous_lower = previous_upper = False
    for char in word:
        if not char.isascii():
            if "\u0400" <= char <= "\u04ff":
                score += _CYRILLIC_LOG_FREQUENCY.get(char.lower(), _RARE_CYRILLIC)
                if ascii_letters or other:
                    score -= 4.0  # Latin and Cyrillic inside one word: a wrong table
            elif "\u00c0" <= char <= "\u024f":
                # An accent inside a mostly-ASCII word is French or German; a word made of
                # accented letters only ("Ïðèâåò") is Cyrillic read as Latin-1.
                score += -3.5 if ascii_letters >= len(word) - ascii_letters else -7.0
                if cyrillic:
                    score -= 4.0
            else:
                score -= 5.0
            if char.isupper() and previous_lower:
                score -= 5.0  # "оПХБЕР": case flipping inside a word
            elif char.isupper() and previous_upper:
                score -= _CAPS_PENALTY  # prose is mostly lower case; a misread is often not
        previous_lower, previous_upper = char.islower(), char.isupper()
    return score


def _symbol_score(char: str) -> float:
    if char == "\ufffd":
        return -10.0
    if "\u2500" <= char <= "\u259f":  # box drawing: koi8-r's upper half read wrongly
        return -10.0
    category = unicodedata.category(char)
    if category[0] == "C":  # C1 controls, soft hyphens, unassigned
        return -8.0
    if category == "Zs":
        return -2.0
    if category[0] == "P":  # «», —, …, “” are normal in Russian prose
        return -3.0
    return -6.0  # box drawing, currency and other symbols


def _plausibility(text: str) -> float:
    """Higher is likelier to be human prose; sums, so longer misreadings cost more."""
    score = 0.0
    for match in _LETTER_RUN_OR_CHAR.finditer(text):
        token = match.group()
        if token.isascii():
            continue
        score += _word_score(token) if len(token) > 1 or token.isalpha() else _symbol_score(token)
    return score


def _keep_margin(text: str) -> float:
    """How much better another reading must score before it overrules the declared one."""
    non_ascii = sum(1 for char in text if not char.isascii())
    return 1.0 + 0.1 * non_ascii


def _fallback_note(declared: str | None, codec: str | None, used: str) -> str:
    if not declared:
        return f"no charset declared; bytes looked like {used}"
    if codec is None:
        return f"declared charset {declared!r} is unknown; bytes looked like {used}"
    if codec == used:
        return f"declared {declared} but some bytes were invalid and were replaced"
    return f"declared {declared} but bytes were {used}"


def _decode_text(data: bytes, declared: str | None) -> tuple[str, str | None]:
    """Text from bytes and, when the declared charset was not simply used, a note saying why.

    The declared charset wins when it decodes cleanly and, for the single-byte tables
    senders often get wrong, when no other reading is clearly more plausible. Otherwise the
    likeliest of utf-8, cp1251, koi8-r (and cp1252, so that undeclared French stays French)
    is used: valid utf-8 with non-ASCII bytes is practically never an accident, and cp1251
    against koi8-r is settled by Russian letter frequencies and case (see `_plausibility`);
    from about five words on it read every sample tried right; one or two words can miss.
    """
    if not data:
        return "", None
    declared = declared.strip() if declared else None
    codec = _codec_name(declared)
    if codec is not None and codec not in _GUESSABLE_CODECS:
        try:
            return data.decode(codec), None
        except (ValueError, LookupError):
            pass  # falls through to detection, which says so in its note
    if data.isascii():
        if codec is None or codec in _GUESSABLE_CODECS:
            return data.decode("ascii"), None
        return data.decode("ascii"), _fallback_note(declared, codec, "ascii")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return text, None if codec == "utf-8" else _fallback_note(declared, codec, "utf-8")

    sample = data[:_SCORE_SAMPLE_BYTES]
    readings: dict[str, str] = {}
    for name in (codec, *_DETECTED_CODECS) if codec else _DETECTED_CODECS:
        with contextlib.suppress(ValueError, LookupError):  # idna & co. refuse "replace"
            readings.setdefault(name, sample.decode(name, "replace"))
    scores = {name: _plausibility(reading) for name, reading in readings.items()}
    best = max(readings, key=lambda name: scores[name])
    if codec in readings and scores[best] - scores[codec] <= _keep_margin(readings[codec]):
        best = codec
    try:
        return data.decode(best), None if best == codec else _fallback_note(declared, codec, best)
    except UnicodeDecodeError:
        return data.decode(best, "replace"), _fallback_note(declared, codec, best)


# --- text normalisation --------------------------------------------------------------------

_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # keeps \t and \n
_SURROGATES = re.compile(r"[\ud800-\udfff]")
_WHITESPACE_RUN = re.compile(r"\s+")


def _normalise_text(text: str) -> str:
    """LF line ends, no NULs or other control characters, no trailing spaces or blank edges."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _SURROGATES.sub("\ufffd", _CONTROL_CHARS.sub("", text))
    text = "\n".join(line.rstrip() for line in text.lstrip("\ufeff").split("\n"))
    return text.strip("\n")


def _single_line(text: str) -> str:
    """A header value as one clean line: folded or injected line breaks become spaces."""
    text = _SURROGATES.sub("\ufffd", text)
    text = _WHITESPACE_RUN.sub(" ", _CONTROL_CHARS.sub(" ", text))
    return text.strip()


# --- HTML ----------------------------------------------------------------------------------

_SKIPPED_TAGS = frozenset({"script", "style", "title", "template"})
_PARAGRAPH_TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "ul", "ol", "hr", "pre"}
)
_LINE_TAGS = frozenset(
    {
        "address", "article", "aside", "body", "caption", "center", "dd", "details", "dialog",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header",
        "html", "li", "main", "nav", "section", "summary", "tbody", "tfoot", "thead", "tr",
    }
)  # fmt: skip
_HTML_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


class _HtmlText(HTMLParser):
    """Readable text of an HTML body: what a mail client shows, with its line structure."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0
        self._preformatted = 0
        self._trailing_newlines = 2  # the start counts as a fresh paragraph: no leading gap

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        stripped = text.rstrip("\n")
        if stripped:
            self._trailing_newlines = len(text) - len(stripped)
        else:
            self._trailing_newlines += len(text)

    def _break(self, newlines: int) -> None:
        """End the current line (1) or paragraph (2), without stacking up blank lines."""
        if self._trailing_newlines < newlines:
            self._emit("\n" * (newlines - self._trailing_newlines))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping += 1
        elif tag == "br":
            self._emit("\n")
        elif tag == "li":
            self._break(1)
            self._emit("- ")
        elif tag in ("td", "th"):
            if not self._trailing_newlines:
                self._emit(" ")
        elif tag in _PARAGRAPH_TAGS:
            self._break(2)
        elif tag in _LINE_TAGS:
            self._break(1)
        if tag == "pre":
            self._preformatted += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _PARAGRAPH_TAGS:
            self._break(2)
        elif tag in _LINE_TAGS:
            self._break(1)
        if tag == "pre":
            self._preformatted = max(0, self._preformatted - 1)

    def handle_data(self, data: str) -> None:
        if self._skipping or not data:
            return
        if not self._preformatted:
            data = _WHITESPACE_RUN.sub(" ", data)
            if self._trailing_newlines:
                data = data.lstrip(" ")
            if not data:
                return
        self._emit(data)


def _html_to_text(html: str) -> str:
    converter = _HtmlText()
    try:
        converter.feed(html)
        converter.close()
    except Exception:  # noqa: S110 - HTMLParser is lenient; keep whatever it produced
        pass
    text = _normalise_text("".join(converter.parts))
    return re.sub(r"\n{3,}", "\n\n", text)


# --- MIME walking --------------------------------------------------------------------------

_MAX_MIME_DEPTH = 100  # real mail nests a few levels; this only stops recursion bombs


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


def _safe(call: Callable[[], T], default: D) -> T | D:
    """The stdlib's header objects can raise on hostile input; a missing value is better."""
    try:
        return call()
    except Exception:
        return default


def _content_type(part: Message) -> str:
    return _safe(part.get_content_type, "text/plain") or "text/plain"


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


def _filename(part: Message, notes: list[str]) -> str:
    name = _safe(part.get_filename, None)
    if not name:
        return ""
    if _SURROGATES.search(name):
        name, note = _decode_text(name.encode("utf-8", "surrogateescape"), None)
        if note:
            notes.append(f"attachment name: {note}")
    return _single_line(name)


def _payload_bytes(part: Message) -> bytes:
    payload = _safe(lambda: part.get_payload(decode=True), None)
    if isinstance(payload, bytes):
        return payload
    return b""


def _attachment(part: Message, content_type: str, notes: list[str]) -> _Attachment:
    filename = _filename(part, notes)
    if part.is_multipart():  # an attached message: its size is its serialised form
        inner = _safe(lambda: part.get_payload(0), None)
        data = _safe(inner.as_bytes, b"") if isinstance(inner, Message) else b""
        if not filename and isinstance(inner, Message):
            subject = _first_headers(inner).get("subject", "")
            filename = f"{_single_line(_header_text(subject, notes, 'Subject')) or 'message'}.eml"
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


def _forward_preamble(inner: Message, notes: list[str]) -> str:
    headers = _first_headers(inner)
    lines = ["---------- Forwarded message ----------"]
    for name in ("From", "Date", "Subject", "To"):
        value = headers.get(name.lower())
        if value:
            lines.append(f"{name}: {_single_line(_header_text(value, notes, name))}")
    return "\n".join(lines)


def _collect(part: Message, out: _Collected, depth: int) -> None:
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
                _collect(inner, forwarded, depth + 1)
                if forwarded.has("plain") or forwarded.has("html"):
                    out.segments.append(("meta", _forward_preamble(inner, out.notes)))
                out.extend(forwarded)
            return
        if content_type.startswith("message/"):
            out.attachments.append(_attachment(part, content_type, out.notes))
            return
        if content_type == "multipart/alternative":
            # The same content several ways: the first plain version, else the first HTML.
            versions = []
            for child in children:
                version = _Collected()
                _collect(child, version, depth + 1)
                versions.append(version)
            chosen = next((v for v in versions if v.has("plain")), None)
            chosen = chosen or next((v for v in versions if v.has("html")), None)
            for version in versions:
                out.extend(version, with_text=version is chosen)
            return
        for child in children:
            _collect(child, out, depth + 1)
        return
    if content_type.startswith("multipart/"):
        # A multipart whose boundary never came: the parser left its text as one payload.
        content_type = "text/plain"
    if not _is_body_text(part, content_type):
        out.attachments.append(_attachment(part, content_type, out.notes))
        return
    data = _payload_bytes(part)
    charset = _safe(part.get_content_charset, None)
    if content_type == "text/html" and charset is None:
        meta = _HTML_META_CHARSET.search(data[:4096])
        charset = meta.group(1).decode("ascii") if meta else None
    text, note = _decode_text(data, charset)
    if note:
        out.notes.append(f"{content_type} part: {note}")
    if content_type == "text/html":
        out.segments.append(("html", _html_to_text(text)))
    else:
        out.segments.append(("plain", _normalise_text(text)))


def _body_after_headers(raw: bytes) -> bytes:
    blank_line = re.search(rb"\r?\n\r?\n", raw)
    return raw[blank_line.end() :] if blank_line else b""


# --- headers -------------------------------------------------------------------------------


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


# --- public --------------------------------------------------------------------------------


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


# --- files ---------------------------------------------------------------------------------


def _looks_like_mbox(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(5) == b"From "  # the mbox separator; a header would be "From:"


def _mail_sources(paths: Iterable[str | os.PathLike[str]]) -> Iterator[tuple[Path, bool]]:
    """(file, is_mbox) for every file to read, each once, in a stable order."""
    seen: set[Path] = set()

    def first_time(path: Path) -> bool:
        resolved = path.resolve()
        if resolved in seen:
            return False
        seen.add(resolved)
        return True

    for given in paths:
        path = Path(given)
        if path.is_dir():
            for folder, subfolders, files in os.walk(path):
                subfolders.sort()
                for name in sorted(files):
                    found = Path(folder) / name
                    if found.suffix.lower() == ".eml" and found.is_file() and first_time(found):
                        yield found, False
        elif path.is_file():
            if first_time(path):
                yield path, _looks_like_mbox(path)
        else:
            raise FileNotFoundError(errno.ENOENT, "no such mail file or folder", str(path))


def mail_messages_from_paths(
    paths: Iterable[str | os.PathLike[str]],
) -> Iterator[tuple[str, bytes]]:
    """(source label, raw bytes) for each message: a file given or found under a folder
    (`*.eml`, walked recursively) is one message, unless it starts with an mbox "From "
    line; each message of an mbox is labelled "path#n" (n from 1). Labels are for people
    and progress output; a message's identity is its Message-ID and content hash."""
    for path, is_mbox in _mail_sources(paths):
        if not is_mbox:
            yield str(path), path.read_bytes()
            continue
        box = mailbox.mbox(path, create=False)
        try:
            for number, key in enumerate(box.iterkeys(), start=1):
                yield f"{path}#{number}", box.get_bytes(key)
        finally:
            box.close()


def mail_messages_count(paths: Iterable[str | os.PathLike[str]]) -> int:
    """How many messages `mail_messages_from_paths` will yield for the same paths."""
    total = 0
    for path, is_mbox in _mail_sources(paths):
        if not is_mbox:
            total += 1
            continue
        box = mailbox.mbox(path, create=False)
        try:
            total += len(box)
        finally:
            box.close()
    return total
