"""Every way a client gives to reach them, in the order written: phones (E.164), e-mail
addresses, messenger handles and links ("@velolev_lviv", "t.me/velolev") and a website named
as theirs ("наш сайт velolev.ua"), kept together in the one contact field as
"+380937154028, ostap@velolev.ua, @velolev_lviv" so that none is lost; a correction replaces
only the contact of its own kind. `contacts_typed` splits the field into its typed slots for
the brief, the results table, the exports and the API."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import NamedTuple

import phonenumbers

from llmkit.extract import find_emails, find_phones

PHONE_REGIONS = {"uk": ("UA", "RU"), "en": ("US", "GB", "RU", "UA")}
# A handle on its own ("інста @velolev.lviv", "tg: @anna_k"), never the tail of an e-mail.
_HANDLE = re.compile(r"(?<![\w@.])@[A-Za-z][A-Za-z0-9_.]{2,31}(?<!\.)(?![\w@])")
# A messenger link ("t.me/anna_k", "https://wa.me/79161234567", "viber://chat?number=…").
_MESSENGER_LINK = re.compile(
    r"(?:https?://)?(?:t\.me|telegram\.me|wa\.me|api\.whatsapp\.com)/[\w?=+/.-]+"
    r"|viber://[\w?=+&%.-]+",
    re.IGNORECASE,
)
# A website the client calls theirs: a site word, then a domain or URL within a few words
# ("наш сайт medovyi-dim.ua"); a bare link is more often a reference than a contact.
_HOST = r"[a-zа-яёіїєґ0-9-]+(?:\.[a-zа-яёіїєґ0-9-]+)*\.[a-zа-яёіїєґ]{2,12}(?:/[\w/.-]*)?"
_SITE_WORDS = r"(?:веб-?)?(?:сайт\w*|site|website|сторінк\w*|страниц\w*)"
_WEBSITE = re.compile(
    rf"\b{_SITE_WORDS}\b[^.!?\n@]{{0,24}}?(?<![\w@.])((?:https?://)?(?:www\.)?{_HOST})",
    re.IGNORECASE,
)
SEPARATOR = ", "
# The typed slots of the contact field, in the order the brief lists them.
CONTACT_KINDS = ("phones", "emails", "messengers", "websites", "other")
# How alike two contacts of one kind must be for the second to be the first with a typo fixed
# ("ciara.byrne@byrnewalsh.ie" -> "ciara.byrne@byrne-walsh.ie").
TYPO_RATIO = 0.85


class Contact(NamedTuple):
    value: str
    start: int
    end: int


# Country-code domains used as generic ones ("studio.io", "brand.tv"): they name no country.
_GENERIC_CCTLDS = frozenset({"ai", "cc", "co", "fm", "io", "me", "tv", "ws"})


def _regions_of_domains(text: str) -> list[str]:
    """The countries the message's e-mail and web domains name ("…@corkmuseum.ie" -> IE), so
    that a local number written beside them ("021 496 3388") is read as that country's."""
    regions = []
    for tld in re.findall(r"[\w-]\.([a-z]{2})\b(?![.@-])", text.lower()):
        region = "GB" if tld == "uk" else tld.upper()
        if tld not in _GENERIC_CCTLDS and region in phonenumbers.SUPPORTED_REGIONS:
            regions.append(region)
    return list(dict.fromkeys(regions))


# A number written the local way: seven digits or more, no "+" before them.
_LOCAL_NUMBER = re.compile(r"(?<![+\d])\d(?:[\s().-]{0,3}\d){6,}")


def local_number_written(text: str) -> bool:
    """Whether `text` holds a phone-like run of digits without a country code, one that the
    countries the conversation names may read."""
    return bool(_LOCAL_NUMBER.search(text))


def contacts_find(text: str, language: str, places: tuple[str, ...] = ()) -> list[Contact]:
    """Phones (each read in the first region that reads it: a country the message's domains
    name, then the countries the conversation put the client in (`places`), then the
    language's), e-mails and handles, in text order."""
    emails = [Contact(e.value, e.start, e.end) for e in find_emails(text)]

    def free(start: int, end: int, taken: list[Contact]) -> bool:
        return all(end <= t.start or start >= t.end for t in taken)

    phones: list[Contact] = []
    regions = [
        *_regions_of_domains(text),
        *(p for p in places if p in phonenumbers.SUPPORTED_REGIONS),
        *PHONE_REGIONS.get(language, ("RU", "UA")),
    ]
    for region in dict.fromkeys(regions):
        # each region reads what the ones before it could not ("+44 (0)117 … is the office,
        # mobile 07700 900412": the second is British only when read as such)
        phones += [
            Contact(p.value, p.start, p.end)
            for p in find_phones(text, region=region)
            if free(p.start, p.end, emails + phones)
        ]
    taken = emails + phones
    for pattern, group in ((_MESSENGER_LINK, 0), (_HANDLE, 0), (_WEBSITE, 1)):
        for m in pattern.finditer(text):
            start, end = m.span(group)
            value = m.group(group).rstrip(".,;:)/")
            if free(start, end, taken):
                taken.append(Contact(value, start, start + len(value)))
    found = sorted(taken, key=lambda c: c.start)
    return list({c.value: c for c in found}.values())


def _kind(part: str) -> str:
    """The typed slot of one contact: phones, emails, messengers, websites or other (what a
    producer typed that is none of these, "после 18:00")."""
    if part.startswith("@") or _MESSENGER_LINK.fullmatch(part):
        return "messengers"
    if "@" in part:
        return "emails"
    if re.fullmatch(r"\+?[\d\s()-]+", part):
        return "phones"
    return "websites" if re.fullmatch(rf"(?:https?://)?(?:www\.)?{_HOST}", part, re.I) else "other"


def contacts_typed(value: object) -> dict[str, list[str]]:
    """The contact field in its typed slots (CONTACT_KINDS), each a list in the order
    written: "+79161234567, anna@zerno.ru, @anna_k" → phones, emails, messengers."""
    typed: dict[str, list[str]] = {kind: [] for kind in CONTACT_KINDS}
    for part in contact_parts(value):
        typed[_kind(part)].append(part)
    return typed


def contact_parts(value: object) -> list[str]:
    if not isinstance(value, str):
        return []
    return [part.strip() for part in value.split(",") if part.strip()]


def contacts_merged(current: object, new: str, *, correction: bool) -> str:
    """The contact field after the client gave `new`: every earlier contact kept, a new one
    added; a correction replaces the earlier ones of the same kind."""
    parts = contact_parts(current)
    known = {part.casefold() for part in parts}
    fresh = [part for part in contact_parts(new) if part.casefold() not in known]
    if correction:
        kinds = {_kind(part) for part in fresh}
        parts = [part for part in parts if _kind(part) not in kinds]
    added = []
    for part in fresh:
        # The same address or number with a typo fixed replaces it where it stood.
        near = [
            i for i, old in enumerate(parts)
            if _kind(old) == _kind(part) and SequenceMatcher(None, old, part).ratio() >= TYPO_RATIO
        ]  # fmt: skip
        if near:
            parts[near[0]] = part
        else:
            added.append(part)
    return SEPARATOR.join([*parts, *added])
