"""Every way a client gives to reach them, in the order written: phones (E.164), e-mail
addresses and messenger handles ("@velolev_lviv"), kept together in the one contact field as
"+380937154028, ostap@velolev.ua, @velolev_lviv" so that none is lost; a correction replaces
only the contact of its own kind."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import NamedTuple

from llmkit.extract import find_emails, find_phones

PHONE_REGIONS = {"uk": ("UA", "RU"), "en": ("US", "GB", "RU", "UA")}
# A handle on its own ("інста @velolev.lviv", "tg: @anna_k"), never the tail of an e-mail.
_HANDLE = re.compile(r"(?<![\w@.])@[A-Za-z][A-Za-z0-9_.]{2,31}(?<!\.)(?![\w@])")
SEPARATOR = ", "
# How alike two contacts of one kind must be for the second to be the first with a typo fixed
# ("ciara.byrne@byrnewalsh.ie" -> "ciara.byrne@byrne-walsh.ie").
TYPO_RATIO = 0.85


class Contact(NamedTuple):
    value: str
    start: int
    end: int


def contacts_find(text: str, language: str) -> list[Contact]:
    """Phones (the first region that finds any), e-mails and handles, in text order."""
    emails = [Contact(e.value, e.start, e.end) for e in find_emails(text)]

    def free(start: int, end: int, taken: list[Contact]) -> bool:
        return all(end <= t.start or start >= t.end for t in taken)

    phones: list[Contact] = []
    for region in PHONE_REGIONS.get(language, ("RU", "UA")):
        phones = [
            Contact(p.value, p.start, p.end)
            for p in find_phones(text, region=region)
            if free(p.start, p.end, emails)
        ]
        if phones:
            break
    taken = emails + phones
    handles = [
        Contact(m.group(), m.start(), m.end())
        for m in _HANDLE.finditer(text)
        if free(m.start(), m.end(), taken)
    ]
    found = sorted(taken + handles, key=lambda c: c.start)
    return list({c.value: c for c in found}.values())


def _kind(part: str) -> str:
    if part.startswith("@"):
        return "handle"
    if "@" in part:
        return "email"
    return "phone" if re.fullmatch(r"\+?[\d\s()-]+", part) else "other"


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
