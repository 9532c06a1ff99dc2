"""Deterministic extractors for Russian, Ukrainian and English text: numbers, money,
deadlines, phones, e-mails and links. Used by a briefing's pre-parse, the rules agent and
the parse pipeline's coercion layer; no model, no Django, no I/O.

Every finding is a frozen dataclass with `value`, `text` (exactly `source[start:end]`),
`start`, `end`, kind-specific fields and `as_dict()` for JSON.
"""

from __future__ import annotations

import datetime

from llmkit.extract.contacts import (
    Email,
    Phone,
    Url,
    find_emails,
    find_phones,
    find_urls,
    normalise_email,
    normalise_phone,
)
from llmkit.extract.deadlines import Deadline, DeadlineKind, find_deadlines
from llmkit.extract.money import Currency, Money, find_money
from llmkit.extract.numbers import parse_number

EXTRACT_KEYS = ("money", "phones", "emails", "urls", "deadlines")


def _overlaps(finding: object, spans: list[tuple[int, int]]) -> bool:
    start, end = finding.start, finding.end  # type: ignore[attr-defined]
    return any(start < s_end and s_start < end for s_start, s_end in spans)


def extract_all(text: str, *, today: datetime.date, region: str = "RU") -> dict[str, list[dict]]:
    """Run every extractor over `text`; keys exactly money, phones, emails, urls, deadlines.

    Where findings overlap the more specific one wins (e-mail > link > phone > money), so
    the digits of a phone number or of a link are not also reported as an amount.
    """
    emails = find_emails(text)
    urls = [u for u in find_urls(text) if not _overlaps(u, [(e.start, e.end) for e in emails])]
    taken = [(f.start, f.end) for f in [*emails, *urls]]
    phones = [p for p in find_phones(text, region=region) if not _overlaps(p, taken)]
    taken += [(p.start, p.end) for p in phones]
    money = [m for m in find_money(text) if not _overlaps(m, taken)]
    deadlines = find_deadlines(text, today=today)
    return {
        "money": [f.as_dict() for f in money],
        "phones": [f.as_dict() for f in phones],
        "emails": [f.as_dict() for f in emails],
        "urls": [f.as_dict() for f in urls],
        "deadlines": [f.as_dict() for f in deadlines],
    }


__all__ = [
    "EXTRACT_KEYS",
    "Currency",
    "Deadline",
    "DeadlineKind",
    "Email",
    "Money",
    "Phone",
    "Url",
    "extract_all",
    "find_deadlines",
    "find_emails",
    "find_money",
    "find_phones",
    "find_urls",
    "normalise_email",
    "normalise_phone",
    "parse_number",
]
