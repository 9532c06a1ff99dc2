"""Contacts in free text: phone numbers (E.164, through `phonenumbers`), e-mail addresses
and web links, plus one-value normalisers for schema coercion.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import phonenumbers

from llmkit.extract._common import FindingMixin, word_alternation

logger = logging.getLogger(__name__)

# --- phones ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Phone(FindingMixin):
    value: str  # E.164, e.g. "+79001234567"
    text: str
    start: int
    end: int


def _region(region: str) -> str:
    # An unknown region would make national numbers ("8 900 ...") unreadable, not fail.
    code = (region or "").upper() if isinstance(region, str) else ""
    return code if code in phonenumbers.SUPPORTED_REGIONS else "ZZ"


def _e164(number: phonenumbers.PhoneNumber) -> str:
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def find_phones(text: str, *, region: str = "RU") -> list[Phone]:
    """Valid phone numbers in `text` ("8 (900) 123-45-67", "+7 900 123 45 67",
    "+380 67 123 4567"); national numbers are read as numbers of `region`."""
    if not isinstance(text, str) or not text:
        return []
    found: list[Phone] = []
    matcher = phonenumbers.PhoneNumberMatcher(
        text, _region(region), leniency=phonenumbers.Leniency.VALID
    )
    try:
        for match in matcher:
            found.append(Phone(_e164(match.number), match.raw_string, match.start, match.end))
    except Exception:  # a third-party parser must not break extraction
        logger.debug("phonenumbers gave up on a text; keeping what it found", exc_info=True)
    return [p for p in found if text[p.start : p.end] == p.text]


_TEL_PREFIX = re.compile(r"^\s*(?:tel:|тел\.?:?|phone:?|телефон:?)\s*", re.IGNORECASE)


def normalise_phone(text: str, *, region: str = "RU") -> str | None:
    """One phone number as E.164 ("8 (900) 123-45-67" → "+79001234567"), or None when the
    string is not a valid number. A string with prose around one number yields that number."""
    if not isinstance(text, str):
        return None
    candidate = _TEL_PREFIX.sub("", text.strip())
    if not candidate or len(candidate) > 200:
        return None
    try:
        number = phonenumbers.parse(candidate, _region(region))
        if phonenumbers.is_valid_number(number):
            return _e164(number)
    except phonenumbers.NumberParseException:
        pass
    found = {phone.value for phone in find_phones(candidate, region=region)}
    return found.pop() if len(found) == 1 else None


# --- e-mails -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Email(FindingMixin):
    value: str  # lower-cased
    text: str
    start: int
    end: int


# Bounded repeats and a start guard keep every pattern linear on hostile input.
_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
_EMAIL_BODY = rf"[\w+%-](?:[\w.+%-]{{0,62}}[\w+%-])?@(?:{_LABEL}\.){{1,10}}[^\W\d_]{{2,24}}"
_EMAIL = re.compile(rf"(?<![\w.+%-]){_EMAIL_BODY}(?![\w-]|\.[^\W_])")
_EMAIL_WHOLE = re.compile(_EMAIL_BODY)
_MAILTO = re.compile(r"^\s*(?:mailto:)?<?\s*|\s*>?\s*$", re.IGNORECASE)


def find_emails(text: str) -> list[Email]:
    """E-mail addresses in `text`; `value` is lower-cased."""
    if not isinstance(text, str) or "@" not in text:
        return []
    return [
        Email(m.group(0).lower(), m.group(0), m.start(), m.end()) for m in _EMAIL.finditer(text)
    ]


def normalise_email(text: str) -> str | None:
    """One address, lower-cased and stripped of "mailto:" and angle brackets, or None.
    A string with prose around exactly one address yields that address."""
    if not isinstance(text, str) or len(text) > 500:
        return None
    candidate = _MAILTO.sub("", text)
    if _EMAIL_WHOLE.fullmatch(candidate):
        return candidate.lower()
    found = {email.value for email in find_emails(text)}
    return found.pop() if len(found) == 1 else None


# --- links -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Url(FindingMixin):
    value: str  # with a scheme ("https://" added to bare links), scheme and host lower-cased
    text: str
    start: int
    end: int


# Bare "name.tld" links are recognised only for these TLDs, so "Node.js", "file.pdf",
# "т.е." and "sentence.Next" are not links; "www." links may have any TLD. Two-letter
# words that are also TLDs ("in", "is", "it", "to", "at", "us") are left out on purpose.
_TLDS = frozenset(
    {
        "com",
        "net",
        "org",
        "info",
        "biz",
        "pro",
        "ru",
        "su",
        "рф",
        "ua",
        "укр",
        "by",
        "kz",
        "uz",
        "ge",
        "am",
        "az",
        "md",
        "eu",
        "de",
        "uk",
        "fr",
        "es",
        "pl",
        "nl",
        "ch",
        "cz",
        "lt",
        "lv",
        "ee",
        "fi",
        "se",
        "no",
        "dk",
        "be",
        "io",
        "ai",
        "co",
        "me",
        "tv",
        "app",
        "dev",
        "online",
        "site",
        "store",
        "shop",
        "tech",
        "cloud",
        "agency",
        "studio",
        "media",
        "design",
        "digital",
        "xyz",
        "edu",
        "gov",
        "moscow",
        "москва",
        "blog",
        "team",
        "space",
        "film",
        "video",
        "photo",
        "gallery",
        "academy",
        "school",
        "events",
        "ly",
        "gg",
        "fm",
    }
)
_STOP = "\\s<>\"'`«»“”\u201e"
_URL = re.compile(
    rf"(?<![\w@/.:-])(?:(?:https?|ftp)://[^{_STOP}]+"
    rf"|www\.(?:{_LABEL}\.){{0,10}}[^\W\d_]{{2,24}}(?::\d{{1,5}})?(?:[/?#][^{_STOP}]*)?"
    rf"|(?:{_LABEL}\.){{1,10}}(?:{word_alternation(_TLDS)})(?::\d{{1,5}})?(?![\w-])"
    rf"(?:[/?#][^{_STOP}]*)?)",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?…)]}>'\""
_HOST = re.compile(r"^(?P<scheme>[a-z]+://)?(?P<host>[^/?#]*)(?P<rest>.*)$", re.IGNORECASE | re.S)


def _trim(url: str) -> str:
    """Drop sentence punctuation after a link; keep ")" that closes a "(" inside it."""
    while url and url[-1] in _TRAILING:
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def _normalised_url(url: str) -> str | None:
    parts = _HOST.match(url)
    if parts is None or not parts.group("host") or parts.group("host").startswith((".", ":")):
        return None
    scheme = (parts.group("scheme") or "https://").lower()
    return scheme + parts.group("host").lower() + parts.group("rest")


def find_urls(text: str) -> list[Url]:
    """Links in `text`: http(s)/ftp URLs and bare "www.…" / "name.tld/…" ones; trailing
    punctuation is not part of a link and addresses inside e-mails are not links."""
    if not isinstance(text, str) or "." not in text:
        return []
    emails = [(e.start, e.end) for e in find_emails(text)]
    found: list[Url] = []
    for match in _URL.finditer(text):
        raw = _trim(match.group(0))
        start, end = match.start(), match.start() + len(raw)
        if any(start < e_end and e_start < end for e_start, e_end in emails):
            continue
        value = _normalised_url(raw)
        if value is not None:
            found.append(Url(value, raw, start, end))
    return found


__all__ = [
    "Email",
    "Phone",
    "Url",
    "find_emails",
    "find_phones",
    "find_urls",
    "normalise_email",
    "normalise_phone",
]
