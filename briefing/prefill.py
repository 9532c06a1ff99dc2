"""The pre-parse: deterministic extractors read the client's free text, and each stage takes
the findings its `prefill` mapping names, with their evidence, so the client is never asked
what they already said."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from llmkit.extract import find_deadlines, find_emails, find_money, find_phones, find_urls

PREFILL_KINDS = ("contact", "money", "currency", "deadline", "urls")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    value: Any
    evidence: str
    start: int
    end: int


# Where a number written without a country code is read first, by conversation language.
PHONE_REGIONS = {"uk": ("UA", "RU")}
DEFAULT_PHONE_REGIONS = ("RU",)


def prefill_findings(
    text: str, *, today: datetime.date, language: str = "ru"
) -> dict[str, Finding]:
    """The first finding of each kind: a second amount or date is more likely a detail (the
    price of something else, a shooting day) than the answer."""
    found: dict[str, Finding] = {}
    phones = []
    for region in PHONE_REGIONS.get(language, DEFAULT_PHONE_REGIONS):
        phones = find_phones(text, region=region)
        if phones:
            break
    emails = find_emails(text)
    contact = phones[0] if phones else emails[0] if emails else None
    if contact is not None:
        found["contact"] = Finding(
            "contact", contact.value, contact.text, contact.start, contact.end
        )
    money = [m for m in find_money(text) if m.value > 0]
    if money:
        amount = money[0]
        found["money"] = Finding("money", amount.value, amount.text, amount.start, amount.end)
        if amount.currency:
            found["currency"] = Finding(
                "currency", amount.currency, amount.text, amount.start, amount.end
            )
    deadlines = find_deadlines(text, today=today)
    if deadlines:
        first = deadlines[0]
        found["deadline"] = Finding(
            "deadline", first.value.isoformat(), first.text, first.start, first.end
        )
    urls = find_urls(text)
    if urls:
        found["urls"] = Finding(
            "urls", [u.value for u in urls], urls[0].text, urls[0].start, urls[-1].end
        )
    return found
