"""Benchmark of the reader (briefing/reader): which extractor reads dates and amounts right,
and what reading one message costs.

    python -m bench.reader

(a) dates in words and relative dates, and (b) amounts in words and slang, each phrase with
its right value (today = 2026-12-01): llmkit's extractor alone, dateparser alone, and the
reader (llmkit first, its own forms, dateparser last); (c) milliseconds per message over
every client message of the natural conversation set, with the NER (natasha) allowed and
with it skipped (the orchestrator skips it once the client's name and company are known).
No database, no Django settings: the reader is plain Python.
"""

from __future__ import annotations

import datetime
import statistics
import time
from pathlib import Path

import yaml

from bench.django_setup import percentile

TODAY = datetime.date(2026, 12, 1)
NATURAL = Path(__file__).resolve().parents[1] / "briefing" / "examples" / "natural"

DATES = {
    "к концу февраля": "2027-02-28",
    "через два месяца": "2027-02-01",
    "до кінця кварталу": "2026-12-31",
    "in six weeks": "2027-01-12",
    "сдать к 15 апреля": "2027-04-15",
    "next Friday": "2026-12-04",
    "до середины марта": "2027-03-15",
    "к Новому году": "2026-12-31",
    "by the end of January": "2027-01-31",
    "через месяц": "2027-01-01",
    "в течение трёх недель": "2026-12-22",
    "до 20-го января": "2027-01-20",
    "к 8 марта": "2027-03-08",
    "за два тижні": "2026-12-15",
    "до кінця лютого": "2027-02-28",
    "by mid-March": "2027-03-15",
    "in two months": "2027-02-01",
    "до 1 березня": "2027-03-01",
    "by 1 June": "2027-06-01",
    "до середини лютого": "2027-02-15",
}
AMOUNTS = {
    "пол-ляма рублей": 500_000,
    "Бюджет — лям": 1_000_000,
    "два с половиной миллиона рублей": 2_500_000,
    "триста тисяч гривень": 300_000,
    "twenty-five grand": 25_000,
    "25k": 25_000,
    "тысяч 450 рублей": 450_000,
    "пів мільйона гривень": 500_000,
    "$25k": 25_000,
    "2,5 млн": 2_500_000,
    "полтора ляма": 1_500_000,
    "300к рублей": 300_000,
    "сто п'ятдесят тисяч гривень": 150_000,
    "€15k": 15_000,
    "12 тыщ долларов": 12_000,
    "пятьсот тысяч": 500_000,
    "1,2 млн грн": 1_200_000,
    "$40,000": 40_000,
    "€18,000": 18_000,
    "800 тысяч рублей": 800_000,
}


def _first(values):
    return values[0] if values else None


def dates() -> None:
    from dateparser.search import search_dates

    from briefing.reader.dates import deadlines_find
    from llmkit.extract import find_deadlines

    base = datetime.datetime.combine(TODAY, datetime.time())
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future"}

    def by_dateparser(text):
        found = search_dates(text, languages=["ru", "uk", "en"], settings=settings) or []
        return _first([moment.date().isoformat() for _, moment in found])

    readers = {
        "llmkit": lambda t: _first([d.value.isoformat() for d in find_deadlines(t, today=TODAY)]),
        "dateparser": by_dateparser,
        "reader": lambda t: _first(
            [d.value.isoformat() for d in deadlines_find(t, today=TODAY, language="ru")]
        ),
    }
    print(f"(a) {len(DATES)} dates in words and relative dates, right:")
    for name, read in readers.items():
        right = sum(read(text) == expected for text, expected in DATES.items())
        print(f"    {name:<11} {right:>2}/{len(DATES)}")


def amounts() -> None:
    from briefing.reader.amounts import amounts_find
    from llmkit.extract import find_money

    readers = {
        "llmkit": lambda t: _first([m.value for m in find_money(t)]),
        "reader": lambda t: _first([a[0] for a in amounts_find(t, language="ru")]),
    }
    print(f"(b) {len(AMOUNTS)} amounts in words and slang, right:")
    for name, read in readers.items():
        right = sum(read(text) == expected for text, expected in AMOUNTS.items())
        print(f"    {name:<11} {right:>2}/{len(AMOUNTS)}")


def cost() -> None:
    from briefing.reader import message_read, nlp
    from briefing.reader.read import _read_cached

    nlp.warm_up()
    messages = []
    for path in sorted(NATURAL.glob("*.yaml")):
        script = yaml.safe_load(path.read_text("utf-8"))
        messages += [(step["client"], script["language"]) for step in script["turns"]]
    print(f"(c) ms per message, {len(messages)} client messages of the natural set:")
    for label, known in (("NER allowed", ()), ("NER skipped", ("clientName", "company"))):
        timings = []
        for text, language in messages:
            _read_cached.cache_clear()
            started = time.perf_counter()
            message_read(text, language=language, today=TODAY, known=known)
            timings.append((time.perf_counter() - started) * 1000)
        print(f"    {label:<11} p50 {statistics.median(timings):5.1f} ms, "
              f"p95 {percentile(timings, 0.95):5.1f} ms, max {max(timings):5.1f} ms")  # fmt: skip


def main() -> None:
    dates()
    amounts()
    cost()


if __name__ == "__main__":
    main()
