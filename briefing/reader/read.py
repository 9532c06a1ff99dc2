"""One reading of one client message for every field of every stage: names, company, role,
contact, product, budget (not a price), currency, deadline, labelled statements (idea, goal,
audience, format), each finding with its evidence, a confidence and the kind of statement
it was (answer, correction, mention, question)."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import re
from collections.abc import Iterable
from typing import Any

from briefing.reader.amounts import (
    BUDGET_CUE,
    amount_role,
    amounts_find,
    budget_plausible,
    currency_named,
)
from briefing.reader.chatter import (
    declines,
    is_closing,
    is_confirmation,
    is_greeting,
    is_question,
)
from briefing.reader.contacts import SEPARATOR, contacts_find, local_number_written
from briefing.reader.dates import NO_FIXED_DATE, VAGUE_WHEN, deadlines_find, month_number
from briefing.reader.findings import (
    ANSWER,
    ANY_DAY,
    CORRECTION,
    MENTION,
    QUESTION,
    RANK,
    Collector,
    Finding,
    Reading,
)
from briefing.reader.names import (
    read_companies_and_products,
    read_names,
    read_product_answer,
    read_product_title,
    read_role,
)
from briefing.reader.places import regions_named
from briefing.reader.spoken import spoken_numbers_written
from briefing.reader.statements import (
    Sentence,
    fact_labelled,
    labelled_statements,
    sentence_at,
    sentences_of,
)
from briefing.reader.topics import read_topics, tells_something_else
from core.input import long_runs_blank
from llmkit.extract import find_urls

# --- the reader ------------------------------------------------------------------------------

_NAMEISH_FIELDS = ("clientName", "company")
_LIST_FIELDS = frozenset({"deliverables"})
# Fields whose finding is its whole clause: cut from the answer to the question asked.
_CLAUSE_FIELDS = frozenset({"creativeSession"})


def _read_contacts(c: Collector, places: tuple[str, ...]) -> None:
    contacts = contacts_find(c.text, c.language, places)
    c.taken += [(found.start, found.end) for found in contacts]
    if contacts:
        value = SEPARATOR.join(found.value for found in contacts)
        c.add("contact", value, contacts[0].start, contacts[-1].end, 0.95)
    urls = [u for u in find_urls(c.text) if not c.overlaps(u.start, u.end)]
    if urls:
        # links fill the references while they are empty; they never replace them
        c.add("references", [u.value for u in urls], urls[0].start, urls[-1].end, 0.8, MENTION)
        c.taken += [(u.start, u.end) for u in urls]


def _read_money(c: Collector) -> None:
    amounts = [a for a in amounts_find(c.text, language=c.language) if not c.overlaps(a[2], a[3])]
    budget_found = None
    for value, currency, start, end in amounts:
        sentence = sentence_at(c.sentences, start)
        clause_start = sentence.start if sentence else 0
        others = tuple((a[2], a[3]) for a in amounts if a[2] != start)
        role = amount_role(c.text, start, end, clause_start=clause_start, others=others)
        kind = c.kind_at(start, "budget")
        if sentence and sentence.corrected_away(start):
            continue  # the amount being corrected ("не 2 млн", "…, not €20,000")
        if role == "price":
            c.mentions.append(Finding("price", value, c.text[start:end], start, end, 0.8, MENTION))
            continue
        is_budget = (role == "budget" or kind in (ANSWER, CORRECTION)) and budget_plausible(
            value, currency
        )
        starts = [a[2] for a in amounts]
        if not is_budget and kind != QUESTION and _budget_said_before(c, sentence, start, starts):
            # "Бюджет считаем в евро. 18 000 евро.": the amount right after the budget's cue
            is_budget = True
        if not is_budget and kind != QUESTION and len(amounts) == 1 and _said_alone(c, start, end):
            # "300к", "≈ $6k", "где-то 40 тыщ": a message that is only an amount answers the
            # budget whatever was asked last
            is_budget = budget_plausible(value, currency)
        if kind == QUESTION or not is_budget:
            c.mentions.append(Finding("amount", value, c.text[start:end], start, end, 0.5, MENTION))
            continue
        confidence = 0.9 if role == "budget" else 0.75
        # A correction wins, then an amount said as the budget over one only answered with
        # ("у соседей снимали за 400к… мы готовы на двести косарей")
        if (
            budget_found is None
            or kind == CORRECTION
            or (budget_found[4] != CORRECTION and confidence > budget_found[5])
        ):
            budget_found = (value, currency, start, end, kind, confidence)
    if budget_found is None:
        named = set(currency_named(c.text))
        if not amounts and len(named) == 1:
            # "Oh, and the sixty is US dollars", "это в гривнах": the currency of an amount
            # given before; it fills the currency while it is empty, never replaces one.
            c.add("currency", named.pop(), 0, len(c.text), 0.75, c.kind_at(0, "currency"))
        return
    value, currency, start, end, kind, confidence = budget_found
    c.add("budget", value, start, end, confidence, kind)
    named = currency_named(c.text[start : end + 30])
    sentence = sentence_at(c.sentences, start)
    if sentence and sentence.correction:
        # "fifteen grand, pounds... sorry, I mean euros": the currency after the marker
        after = currency_named(c.text[sentence.pivot or start : sentence.end])
        if after:
            currency = after[-1]
    currency = currency or (named[0] if named else None)
    if currency is None:
        in_message = currency_named(c.text)
        currency = in_message[0] if len(set(in_message)) == 1 else None
    if currency:
        c.add("currency", currency, start, end, confidence, kind)


# Words a client hedges an amount or a date with: "где-то 300к", "about €9k", "десь 40 тисяч".
_HEDGE_WORDS = frozenset({
    "примерно", "около", "где-то", "где", "то", "порядка", "приблизно", "десь", "біля",
    "близько", "about", "around", "roughly", "approx", "approximately", "maybe", "ну",
    "so", "ok", "ок", "max", "tops", "максимум", "макс",
})  # fmt: skip


def _said_alone(c: Collector, start: int, end: int) -> bool:
    """Whether the message holds nothing but the amount or date at start:end, hedge words
    and punctuation."""
    words = re.findall(r"[^\W\d_][\w'’-]*|\d+", (c.text[:start] + " " + c.text[end:]).lower())
    return all(word in _HEDGE_WORDS for word in words)


def _budget_said_before(c: Collector, sentence: Any, start: int, starts: list[int]) -> bool:
    """Whether the amount at `start` is the first of its sentence and the sentence before
    speaks of the budget with no amount of its own ("Бюджет считаем в евро. 18 000 евро.")."""
    index = c.sentences.index(sentence) if sentence in c.sentences else 0
    if index == 0:
        return False
    before = c.sentences[index - 1]
    return (
        bool(BUDGET_CUE.search(before.text))
        and not declines(before.text)
        and not any(before.start <= other < sentence.start for other in starts)
        and start == min(other for other in starts if other >= sentence.start)
    )


def _read_deadline(c: Collector, *, today: datetime.date) -> None:
    candidates = []
    # "не до 10-го, а до 3-го — пятого июня открывается выставка": the day put right is the
    # deadline's (the turn gives it its month); a date after it is an event's
    day_fix = _day_fix_match(c.text)
    for found in deadlines_find(c.text, today=today, language=c.language):
        sentence = sentence_at(c.sentences, found.start)
        if c.overlaps(found.start, found.end):
            continue
        if day_fix and found.start >= day_fix.end():
            c.mentions.append(Finding("date", found.value.isoformat(), found.text, found.start,
                                      found.end, 0.5, MENTION))  # fmt: skip
            continue
        if sentence and sentence.corrected_away(found.start):
            # "до 20 березня ні стоп не 20-го а до 28-го": the day put right in the same breath
            day = _BARE_DAY.search(c.text, sentence.pivot or found.end, sentence.end)
            if day is None or sentence.pivot is None:
                continue
            with contextlib.suppress(ValueError):
                candidates.append(
                    (dataclasses.replace(found, value=found.value.replace(day=int(day[1]))), True)
                )
            continue
        candidates.append((found, bool(sentence and sentence.correction)))
    candidates += [(found, False) for found in _limit_days(c, [f for f, _ in candidates], today)]
    # "хотіли до нового року, але … тому до 30 січня": a date wished for and given up
    kept = [(f, correcting) for f, correcting in candidates if not _WISHED_BEFORE.search(
        c.text[max(0, f.start - 30) : f.start]
    ) or not _GIVEN_UP_AFTER.search(c.text[f.end : f.end + 60])]  # fmt: skip
    candidates = kept or candidates
    # The first date, unless a later sentence corrects it ("15 лютого... ні, переплутав — 20")
    # or the client works the deadline out from it ("презентація 20 березня, відео треба за
    # тиждень, тобто до 13 березня"; "opening on 1 March, ready a week before — so 22 Feb")
    corrections = [found for found, correcting in candidates if correcting]
    concluded = [
        found for found, _ in candidates
        if _CONCLUDED.search(c.text[max(0, found.start - 20) : found.start])
    ]  # fmt: skip
    limits = [found for found, _ in candidates if _by_date(c.text, found)]
    # "к Новому году … лучше до 20 декабря": the date the client would rather have
    preferred = [
        found for found, _ in candidates
        if _PREFERRED.search(c.text[max(0, found.start - 25) : found.start])
    ]  # fmt: skip
    ordered = corrections or concluded or preferred or limits or [f for f, _ in candidates]
    # an event's date named first is no deadline when a cued one follows ("20 февраля
    # проводим фестиваль. Ролик нужен к Татьяниному дню, 25 января")
    cued = [f for f in ordered if _deadline_cued(c, f)]
    chosen = next(iter(cued or ordered), None)
    if chosen is not None and not _deadline_cued(c, chosen):
        # "за три месяца без зубрёжки" describes the product: a date, but no deadline
        c.mentions.append(
            Finding("date", chosen.value.isoformat(), chosen.text, chosen.start, chosen.end,
                    0.5, MENTION)
        )  # fmt: skip
        return
    if chosen is not None:
        kind = c.kind_at(chosen.start, "deadline")
        if kind == QUESTION:
            kind = ANSWER if "deadline" in c.asked else MENTION
        # Only a date said as the deadline ("срок", "сдать", "deadline") restates one
        sentence = sentence_at(c.sentences, chosen.start)
        strong = "deadline" in c.asked or bool(sentence and _DEADLINE_WORD.search(sentence.text))
        # "by March 20th" is surer than "launching in April" (it replaces that reading), not
        # sure enough to restate a deadline given with a deadline word.
        confidence = 0.9 if strong else 0.84 if _by_date(c.text, chosen) else 0.8
        value = chosen.value
        day = _bare_day_corrected(c, after=chosen.end, dates=[f for f, _ in candidates])
        if day is not None and day != value.day:
            # "Deadline is April 12th. Sorry — the 19th": the day put right, the month kept
            with contextlib.suppress(ValueError):  # "the 31st" of a 30-day month: not it
                value, kind = value.replace(day=day), CORRECTION
        c.add("deadline", value.isoformat(), chosen.start, chosen.end, confidence, kind)


# What says a sentence speaks of when the work is needed, beside a period without a day.
_WHEN_NEEDED = re.compile(
    r"(?<![\w])(?:нуж(?:ен|н)|надо|треба|потріб|хотел|хотим|хочем|хотіл|хочу|желательн|бажано|"
    r"готов|успе|встигн|need|want(?:ed)?\s+it|ideally|ready|запуск|запуст|launch|выпуст|випуст|release)",
    re.IGNORECASE,
)
# A period said of the shoot ("снимать будем весной") is no deadline.
_SHOOT = re.compile(r"(?<![\w])(?:сним|сніма|знім|зйом|съём|съем|shoot|film(?:ing)?\b)",
                    re.IGNORECASE)  # fmt: skip
# "Дедлайн — ", "Терміни: ", "По срокам — ", "Deadline:": the name before the deadline's words.
_DEADLINE_LABEL = re.compile(
    r"^\W*(?:(?:срок\w*|дедлайн\w*|термін\w*|deadline|timeline|timing)\s*(?:[:—–-]|is\b)|"
    r"по\s+(?:срок\w*|термін\w*|часу|времени|timing))\s*[:—–-]?\s*",
    re.IGNORECASE,
)
VAGUE_DEADLINE_CONFIDENCE = 0.75


def _read_vague_deadline(c: Collector) -> None:
    """A deadline without a day ("Дедлайн — первый квартал, жёсткой даты нет", "відео треба
    навесні", "we need it before the summer"): the client's words, when their sentence names
    the deadline or says the work is needed then. Never over a date, which is surer."""
    if any(f.field == "deadline" for f in c.findings):
        return
    for sentence in c.sentences:
        if sentence.question:
            continue
        text = sentence.text
        named = bool(_DEADLINE_WORD.search(text) or _DEADLINE_LABEL.search(text))
        when = VAGUE_WHEN.search(text) or (named and NO_FIXED_DATE.search(text))
        if not when or c.overlaps(sentence.start + when.start(), sentence.start + when.end()):
            continue
        if not named and (_SHOOT.search(text) or not _needed_then(text, when.start())):
            continue
        words = _DEADLINE_LABEL.sub("", sentence.text.strip()).strip()
        if not words:
            continue
        start = sentence.start + (len(sentence.text) - len(sentence.text.lstrip()))
        c.add("deadline", words[:1].upper() + words[1:], start, sentence.end,
              VAGUE_DEADLINE_CONFIDENCE)  # fmt: skip
        return


# How many words may stand between the word that says the work is needed and the period
# ("Ролик нужен к весне", "we need it before the summer"; not "нужно много планов весной"
# or "we sell the most in summer and we need more bookings").
NEEDED_REACH_WORDS = 1
_NEEDED_JUST_BEFORE = re.compile(
    rf"(?:{_WHEN_NEEDED.pattern})\w*(?:\s+\S+){{0,{NEEDED_REACH_WORDS}}}\s+$", re.IGNORECASE
)


def _needed_then(text: str, when: int) -> bool:
    clause = re.split(r"[,;:—–]", text[:when])[-1]
    return bool(_NEEDED_JUST_BEFORE.search(clause))


# A day alone, said as a day: "the 19th", "10-го", "20 числа".
_BARE_DAY = re.compile(
    r"(?<![\d.,:/])(\d{1,2})(?:-?(?:го|е|ое|ого|му|ому|th|st|nd|rd)\b|\s*(?:числа|число)\b)",
    re.IGNORECASE,
)


def _bare_day_corrected(c: Collector, *, after: int, dates: list[Any]) -> int | None:
    """The day a correcting sentence after `after` gives alone ("Sorry — the 19th", "Ой, ні,
    до 10-го"), when that sentence holds no whole date of its own."""
    for sentence in c.sentences:
        if sentence.end <= after or not sentence.correction:
            continue
        if any(sentence.start <= found.start < sentence.end for found in dates):
            continue
        start = max(sentence.start, after, sentence.pivot or 0)
        match = _BARE_DAY.search(c.text, start, sentence.end)
        if match and 1 <= int(match.group(1)) <= 31:
            return int(match.group(1))
    return None


_DEADLINE_CUE = re.compile(
    r"(?<![\w])(?:срок|дедлайн|deadline|сдат|сдач|нужн|надо|готов|запуск|запуст|успе|хотел|"
    r"желательн|здат|здач|термін|треба|потрібн|встигн|вийти|launch|ready|need|due|live|"
    r"ideally|possible|great|have\s+it|must|should|выпуст|випуст|release)"
    r"|(?<![\w])(?:к|ко|до|by|until|till|before|out)(?![\w])",
    re.IGNORECASE,
)
_DEADLINE_WORD = re.compile(
    r"срок|дедлайн|deadline|сдать|сдач|здати|здач|термін|\bdue\b|ready\s+by|need\s+it\s+by|"
    r"delivered\s+by|needed\s+by",
    re.IGNORECASE,
)
# "к 15 марта", "до 20 грудня", "by March 20th": the date said as a limit, not in passing
# ("запускаемся в апреле", "launching in April").
# ... also after the holiday it names ("к Татьяниному дню, 25 января", "by Anzac Day, 25 April")
# ... or after a deadline's name ("крайний срок 22 декабря", "дедлайн — 9 лютого", "the
# deadline is December 22nd"): a date said as the limit beats an event's date before it
# ("Открываемся 26 декабря, ролик нужен раньше — крайний срок 22 декабря").
_BY_BEFORE = re.compile(
    r"(?:^|[^\w])(?:к|ко|до|by|until|till|before|no\s+later\s+than|not\s+later\s+than|"
    r"не\s+позже|не\s+позднее|не\s+пізніше)"
    r"(?:\s+(?!the\s+way\b)(?:[\w'’-]+\s+){0,2}[\w'’-]+,)?\s*$"
    r"|(?<![\w])(?:срок|сроки|дедлайн|deadline|термін|терміни|due(?:\s+date)?)"
    r"(?:\s+(?:сдачи|здачі|сдать|здати|is|будет|буде|это|це))?\s*[:—–-]?\s*$",
    re.IGNORECASE,
)


# A date the client wished for, then gave up for another: "хотели к Новому году, но …",
# "we wanted it by Christmas but …".
_WISHED_BEFORE = re.compile(
    r"(?<![\w])(?:хотел\w*|хотіл\w*|планировал\w*|планувал\w*|мечтал\w*|мріял\w*|"
    r"wanted|hoped|planned|would\s+have\s+liked)\b[^.!?]{0,20}$",
    re.IGNORECASE,
)
_GIVEN_UP_AFTER = re.compile(r"^[^.!?]{0,30}?(?:\bно\b|\bале\b|\bbut\b|\bоднак)", re.IGNORECASE)
# "лучше до 20 декабря", "а краще до 5-го", "ideally by the 12th", "конец января, hard
# deadline 29.01": the date the client prefers or pins down among others.
_PREFERRED = re.compile(
    r"(?<![\w])(?:(?:лучше|краще|желательно|бажано|ideally|preferably|better)"
    r"(?:\s+(?:всего|всього|бы|б|би))?|(?:hard|final|firm|жёстк\w*|жестк\w*|жорстк\w*|"
    # (the date found may hold the word "deadline" itself)
    r"крайн\w*|последн\w*|останн\w*)(?:\s+(?:deadline|дедлайн|срок|термін))?)"
    r"\W*(?:до|к|ко|by|before|is)?\s*(?:the\s+)?$",
    re.IGNORECASE,
)
# "тобто до 13 березня", "то есть 10 марта", "so 22 February": the date worked out.
_CONCLUDED = re.compile(
    r"(?:тобто|то\s+есть|значит|получается|виходить|so|i\.\s?e\.|that\s+is|which\s+means)"
    r"\W*(?:до|к|by|the)?\s*$",
    re.IGNORECASE,
)
# "не 15-го, а 22-го", "not the 14th — the 21st", "не 20-го, а 27-го числа": a day corrected
# without its month (the month is the deadline's, briefing.turn.reading applies it).
_DAY = r"(\d{1,2})(?:-?(?:го|е|ое|ого|му|ому|th|st|nd|rd))?"
_DAY_FIX = re.compile(
    rf"(?<![\w])(?:не|not)\s+(?:(?:к|ко|до|by)\s+)?(?:the\s+)?{_DAY}\b"
    r"(?!\s*(?!числа|число|but\b)[a-zа-яёіїєґ]{3,})"
    rf"[^\d.!?]{{0,12}}?(?:,\s*)?(?:а|but|—|–|-)\s*(?:(?:к|ко|до|by|to)\s+)?(?:the\s+)?"
    rf"{_DAY}(?:\s*(?:числа|число))?(?!\s*(?:\d|[a-zа-яёіїєґ]{{3,}}(?<!числа)(?<!число)))",
    re.IGNORECASE,
)


# "by the 10th, not the 3rd", "22-го, а не 15-го": the day that stands first.
_DAY_FIX_INVERTED = re.compile(
    rf"(?:the\s+)?{_DAY}\s*(?:числа|число)?\s*[,—–-]?\s*(?:а\s+)?(?<![\w])(?:не|not)\s+(?:the\s+)?"
    rf"{_DAY}(?!\s*(?:\d|[a-zа-яёіїєґ]{{3,}}(?<!числа)(?<!число)))",
    re.IGNORECASE,
)


def _day_fix_match(text: str) -> re.Match[str] | None:
    """Where a message puts a day right ("не 15-го, а 22-го", "the 10th, not the 3rd"):
    both days of a month, not an age range ("горожане 25–40")."""
    for pattern in (_DAY_FIX, _DAY_FIX_INVERTED):
        match = pattern.search(text)
        if match and all(1 <= int(day) <= 31 for day in match.groups()):
            return match
    return None


def _read_day_fix(c: Collector) -> tuple[int, int] | None:
    """(the day corrected away, the day that stands) when the message corrects a day only."""
    if any(f.field == "deadline" for f in c.findings):
        return None
    match = _day_fix_match(c.text)
    if match and match.re is _DAY_FIX:
        old, new = int(match.group(1)), int(match.group(2))
    elif match:
        new, old = int(match.group(1)), int(match.group(2))
    elif (day := _bare_day_corrected(c, after=0, dates=[])) is not None:
        return (ANY_DAY, day)  # "Sorry — the 19th": whichever day the deadline had
    else:
        return None
    return (old, new) if 1 <= old <= 31 and 1 <= new <= 31 and old != new else None


# One word put right: "не Коваль, а Ковальчук", "ой не мартынюк а мартынова", "Бондаренко, не
# Бондар", "Tkachuk, not Tkach", "not Smith but Smyth". Letters only: days have their own.
_FIX_WORD = r"[«\"“„]?([^\W\d_][\w'’-]*[^\W\d_])[»\"”“]?"
_WORD_FIXES = (
    (re.compile(rf"(?<![\w'’-])(?:не|not)\s+{_FIX_WORD}\s*[,—–-]?\s*(?:а|but)\s+{_FIX_WORD}"
                r"(?![\w'’-])", re.IGNORECASE), 1, 2),
    (re.compile(rf"(?<![\w'’-]){_FIX_WORD}\s*[,—–-]\s*(?:а\s+)?(?:не|not)\s+{_FIX_WORD}"
                r"(?![\w'’-])", re.IGNORECASE), 2, 1),
)  # fmt: skip


# What a client says to spell a name again: the word right after it is the name as it
# should be ("фамилия Мелихова", "а правильно ракитский", "it's spelt Nicholls").
_RESPELLING_CUE = re.compile(
    r"(?<![\w'’-])(?:фамилия|прізвище|surname|last\s+name|правильно|правильне|correctly|"
    r"correct\s+spelling\s+is|spelt|spelled|пишется|пишеться|пишу)\s*(?:is\s+|это\s+|—\s*|:\s*)?"
    r"(?P<word>[^\W\d_][\w'’-]{2,})",
    re.IGNORECASE,
)
# "McDonagh, one word — my phone keeps splitting it": the word a short correcting message
# opens with.
_RESPELT_OPENING = re.compile(
    r"^\W*(?P<word>[^\W\d_][\w'’-]{2,})\s*,\s*(?:one\s+word|одним\s+словом|разом|"
    r"через|with|with\s+an?|не\s|not\s)",
    re.IGNORECASE,
)


# "ой автозамена, Шибанова!", "sorry autocorrect, its Dwyer": a slip of the keyboard owned
# up to; the capitalised words after it are names written again.
_SLIP_CUE = re.compile(
    r"(?<![\w'’-])(?:автозамен\w*|автозамін\w*|auto-?correct\w*|опечат\w*|описк\w*|"
    r"одрук\w*|typo)",
    re.IGNORECASE,
)
# ("Tkachuk, not Tkach": the word after a "not" is the one put right away)
_CAPITALISED = re.compile(r"(?<![\w'’-])(?<!not )(?<!не )(?<!ні )(?<!no )[A-ZА-ЯЁІЇЄҐ][\w'’-]{2,}")


def _respelt_words(text: str) -> tuple[str, ...]:
    """The words a client spells again in a correcting message (the cue, the opening word,
    or a capitalised word after owning up to a slip), for briefing.turn.reading to put in place
    of the name word each nearly is."""
    words = [m.group("word") for m in _RESPELLING_CUE.finditer(text)]
    slip = _SLIP_CUE.search(text)
    if slip:
        words += _CAPITALISED.findall(text, slip.end())
    opening = _RESPELT_OPENING.match(text)
    if opening:
        words.append(opening.group("word"))
    return tuple(dict.fromkeys(words))


def _read_word_fix(text: str) -> tuple[str, str] | None:
    """(the words corrected away, the words that stand) when the message puts a word of a
    name right: one word ("Бондаренко, не Бондар"), or two names that start alike, whole
    ("Volga Talks, не Volga English"), so the course "English for IT" keeps its word."""
    for pattern, old, new in _WORD_FIXES:
        for match in pattern.finditer(text):
            wrong, right = match.group(old), match.group(new)
            if old == 2:  # "RIGHT, не WRONG": the words around may be the names' other words
                wrong, right = _names_aligned(text, match)
            if wrong.casefold() != right.casefold():
                return wrong, right
    return None


_WORD = re.compile(r"[^\W\d_][\w'’-]*")
MAX_FIX_WORDS = 3


def _names_aligned(text: str, match: re.Match[str]) -> tuple[str, str]:
    """(wrong, right) of "Volga Talks, не Volga English": the longest names of up to
    MAX_FIX_WORDS words ending at the right word and starting at the wrong one that begin
    with the same word."""
    before = _WORD.findall(text[max(0, match.start(1) - 60) : match.start(1)])
    after = _WORD.findall(text[match.end(2) : match.end(2) + 60])
    right, wrong = [match.group(1)], [match.group(2)]
    for extra in range(MAX_FIX_WORDS - 1, 0, -1):
        if len(before) < extra or len(after) < extra:
            continue
        longer_right, longer_wrong = [*before[-extra:], right[0]], [wrong[0], *after[:extra]]
        if longer_right[0].casefold() == longer_wrong[0].casefold():
            return " ".join(longer_wrong), " ".join(longer_right)
    return wrong[0], right[0]


# "до 15-го", "by the 12th": a day set as the limit without its month.
_LIMIT_DAY = re.compile(
    r"(?<![\w])(?:до|к|ко|by|until|before)\s+(?:the\s+)?(\d{1,2})"
    r"(?:-?(?:го|е|ое|ого|му|ому)|th|st|nd|rd)(?![\w])",
    re.IGNORECASE,
)


def _limit_days(c: Collector, dates: list[Any], today: datetime.date) -> list[Any]:
    """A day set as the limit beside a date with its month ("Відкриття 20 грудня, трейлер
    хочемо до 15-го"): that day of the date's month, when no date is itself the limit."""
    if not dates or any(_by_date(c.text, found) for found in dates):
        return []
    month_of = dates[0]
    found = []
    for match in _LIMIT_DAY.finditer(c.text):
        if any(d.start <= match.start() < d.end for d in dates):
            continue
        with contextlib.suppress(ValueError):
            value = month_of.value.replace(day=int(match.group(1)))
            if value >= today:
                found.append(dataclasses.replace(month_of, value=value, start=match.start(),
                                                 end=match.end(), text=match.group()))  # fmt: skip
    return found


def _by_date(text: str, found: Any) -> bool:
    return bool(_DEADLINE_LEAD.search(found.text.strip()) or _BY_BEFORE.search(text[: found.start]))


_DEADLINE_LEAD = re.compile(r"^(?:к|до|by|until|till|before|не\s+позднее|не\s+позже|"
                            r"не\s+пізніше|not\s+later|no\s+later)\b", re.IGNORECASE)  # fmt: skip


def _deadline_cued(c: Collector, found: Any) -> bool:
    """A date is the deadline when asked for, when it reads "к …" / "до …" / "by …", when
    its sentence speaks of a deadline ("сдать", "надо", "need it", "ideally"), or when the
    sentence corrects a date."""
    if "deadline" in c.asked or _DEADLINE_LEAD.search(found.text.strip()):
        return True
    if _said_alone(c, found.start, found.end):
        return True  # "15.01", "ну 20 марта": a message that is only a date answers the deadline
    sentence = sentence_at(c.sentences, found.start)
    # "не двадцатого, а 27 мая": a date the client corrects is the one date of the brief
    return bool(sentence and (sentence.correction or _DEADLINE_CUE.search(sentence.text)))


# The kinds of video project a studio makes, as clients name them: "имиджевый ролик",
# "відеоподкаст", "a brand film", "a 30-second spot". Up to two words before the noun (its
# adjectives) are part of the type.
_PROJECT_NOUN = (
    r"(?:видео)?ролик\w*|видео(?:подкаст\w*)?|клип\w*|фильм\w*|подкаст\w*|сериал\w*|рилс\w*|"
    r"анимаци\w*|трейлер\w*|відео(?:подкаст\w*)?|відосі?к\w*|кліп\w*|фільм\w*|серіал\w*|"
    r"анімаці\w*|reels?|spots?|commercials?|ads?|videos?|films?|podcasts?|clips?|trailers?|"
    r"explainers?|animations?|documentar(?:y|ies)"
)
_PROJECT_TYPE = re.compile(
    rf"(?<![\w-])(?:[^\W\d_]+-)?(?:{_PROJECT_NOUN})(?![\w-])", re.IGNORECASE
)  # "промо-ролик", "промо-відео"
# A word before the noun that belongs to the type: a Russian or Ukrainian adjective
# ("имиджевый", "рекламні"), a number with a unit ("30-секундный", "30-second"), or an
# English word that is not a function word ("brand film", "promo video").
_TYPE_ADJECTIVE = re.compile(
    r"^(?:\d+-?\w*|[а-яёіїєґ'’-]+(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ій|ая|а|е|і|ых|их)|"
    r"(?!(?:a|an|the|one|our|we|us|some|any|for|of|and|need|want|would|like|make|be|it|is|"
    r"just|also|with|this|that|new|short|little|quick)$)[a-z][a-z-]+)$",
    re.IGNORECASE,
)
_CYRILLIC_FUNCTION_WORD = re.compile(
    r"^(?:нам|нужна|нужно|нужны|нужен|такая|такой|такі|такий|эта|это|ця|це|наша|наше|наш|"
    r"одна|один|одне|одна|свой|своя|своє|якась|какой-то|какая-то|какое|яка|яке|який|цей|"
    r"этот|коротка|короткий|короткая|короткое|невелика|небольшая|небольшой)$",
    re.IGNORECASE,
)


def is_project_type(text: str) -> bool:
    """Whether `text` opens with a kind of project ("Рекламний ролик", "A short ad for
    Instagram", "Іміджевий фільм про пекарню") and names nothing (no quote, no capitalised
    word past the first): said where a name is asked, it answers another question."""
    c = Collector(text, "ru", (), sentences_of(text))
    _read_project_type(c)
    found = next((f for f in c.findings if f.field == "projectType"), None)
    if found is None or len(text[: found.start].split()) > 2:
        return False
    later_words = re.findall(r"[^\W\d_][\w'’&-]*", text)[1:]
    return not re.search(r"[«»\"“”]", text) and not any(
        word[0].isupper() and word != "I" for word in later_words
    )


def _read_project_type(c: Collector) -> None:
    """The kind of project, from the first video noun the client uses for what they want,
    with the adjectives just before it."""
    for match in _PROJECT_TYPE.finditer(c.text):
        if c.overlaps(match.start(), match.end()):
            continue
        start = match.start()
        for _ in range(2):
            before = re.search(r"([^\s,.;:!?()«»\"]+)\s+$", c.text[:start])
            if before is None or not _TYPE_ADJECTIVE.match(before.group(1)):
                break
            if _CYRILLIC_FUNCTION_WORD.match(before.group(1)):
                break
            start = before.start(1)
        c.add("projectType", c.text[start : match.end()], start, match.end(), 0.75, MENTION)
        return


# "Creative session yes", "креативную сессию давайте", "No creative session", "Креативна
# сесія потрібна": said in passing, whatever was asked.
_CREATIVE_SESSION = re.compile(
    r"креатив\w*[\s-]+сесси\w*|креатив\w*[\s-]+сесі\w*|creative\s+session", re.IGNORECASE
)


def _read_creative_session(c: Collector) -> None:
    from briefing.stages.readers import read_yes_no  # the stages import the reader

    match = _CREATIVE_SESSION.search(c.text)
    if match is None:
        return
    sentence = sentence_at(c.sentences, match.start())
    start, end = (sentence.start, sentence.end) if sentence else (0, len(c.text))
    for part in re.finditer(r"[^;\n]+", c.text[start:end]):
        if _CREATIVE_SESSION.search(part.group()):
            value = read_yes_no(part.group(), c.language)
            if value is not None:  # the clause is the answer: no other field's
                c.add("creativeSession", value, start + part.start(), start + part.end(), 0.85)
            return


def _read_labels(c: Collector) -> None:
    # the stages import the reader
    from briefing.stages.readers import read_list, read_references

    for name, value, start, end in labelled_statements(c.text):
        if name in _LIST_FIELDS:  # "Deliverables: one film, three cutdowns and stills"
            value = read_list(value, c.language)
        elif name == "references":  # "Refs: the Apple AirTag film, https://…"
            value = read_references(value, c.language)
        if not value:
            continue
        c.add(name, value, start, end, 0.8)
        c.taken.append((start, end))


def _answer_text(
    text: str,
    sentences: list[Sentence],
    labelled: list[tuple[int, int]],
    corrected: list[int],
) -> str:
    """What is left to answer the question asked: no counter-questions, no corrections, no
    labelled statements, no greetings."""
    parts = []
    for sentence in sentences:
        if sentence.question or (
            sentence.correction and any(sentence.start <= s < sentence.end for s in corrected)
        ):
            continue
        chunk = sentence.text
        for start, end in sorted(labelled, reverse=True):
            if sentence.start <= start < sentence.end:
                cut_start = start - sentence.start
                cut_end = min(end, sentence.end) - sentence.start
                chunk = chunk[:cut_start] + chunk[cut_end:]
        if re.search(r"\w", chunk) and not is_greeting(chunk) and not is_confirmation(chunk):
            parts.append(chunk.strip())
    return " ".join(parts).strip(" ,;")


def _best(findings: Iterable[Finding]) -> dict[str, Finding]:
    best: dict[str, Finding] = {}
    for finding in findings:
        current = best.get(finding.field)
        if current is None or (RANK[finding.kind], finding.confidence, finding.start) >= (
            RANK[current.kind],
            current.confidence,
            current.start,
        ):
            best[finding.field] = finding
    return best


def message_read(
    text: str,
    *,
    language: str,
    today: datetime.date,
    asked: Iterable[str] = (),
    known: Iterable[str] = (),
    earlier: Iterable[str] = (),
) -> Reading:
    """Read one client message for every field. `asked` are the fields the bot asked for
    last (their findings are answers); `known` the fields already filled: the NER (the
    costly part) runs only while the client's name or company is still unknown; `earlier`
    the client's earlier messages, whose places say how to read a local phone number."""
    settled = set(known) - set(asked)
    ner = ("clientName" not in settled, "company" not in settled)  # (PER, ORG)
    text = spoken_numbers_written(long_runs_blank(text), language=language, month_of=month_number)
    places = ()
    if local_number_written(text):
        named = (region for said in [*earlier, text] for region in regions_named(said, language))
        places = tuple(dict.fromkeys(named))
    return _read_cached(text, language, today, tuple(asked), ner, places)


@functools.lru_cache(maxsize=256)
def _read_cached(
    text: str,
    language: str,
    today: datetime.date,
    asked: tuple[str, ...],
    ner: tuple[bool, bool] = (True, True),
    places: tuple[str, ...] = (),
) -> Reading:
    # One reading per message and question: the orchestrator and the rules agent share it.
    sentences = sentences_of(text)
    c = Collector(text, language, asked, sentences, ner=ner)
    _read_contacts(c, places)
    _read_labels(c)
    _read_creative_session(c)
    _read_deadline(c, today=today)
    _read_vague_deadline(c)
    _read_money(c)
    read_companies_and_products(c)
    read_names(c)
    read_role(c)
    _read_project_type(c)
    read_topics(c)
    # the labelled statements ("Рефы: …"), never a link read as a reference in passing
    labelled = (
        [(start, end) for _, _, start, end in labelled_statements(text)]
        + [(f.start, f.end) for f in c.findings if f.field in _CLAUSE_FIELDS]
        + [(start, end) for field, start, end in fact_labelled(sentences) if field not in asked]
    )
    corrected = [f.start for f in c.findings if f.kind == CORRECTION]
    answer = _answer_text(text, sentences, labelled, corrected)
    c.answer_text = answer
    read_product_title(c)
    # A reply that states a contact, an amount or a date, or a kind of project, names no product.
    # Nor does one that speaks of a length, pieces, a purpose or a date ("deadline 5 feb plz").
    if (
        not is_project_type(answer)
        and not any(f.field in ("contact", "budget", "deadline") for f in c.findings)
        and not any(m.field == "date" for m in c.mentions)
        and not tells_something_else(answer)
    ):
        read_product_answer(c)
    findings = tuple(c.findings)
    stripped = text.strip()
    day_fix = _read_day_fix(c)
    return Reading(
        text=text,
        language=language,
        findings=findings,
        mentions=tuple(c.mentions),
        asks=any(s.question for s in sentences) or (is_question(stripped) and not findings),
        confirms=is_confirmation(stripped) or is_closing(stripped),
        greets=is_greeting(stripped),
        corrects=bool(corrected) or day_fix is not None,
        day_fix=day_fix,
        word_fix=_read_word_fix(text),
        respelt=_respelt_words(text),
        answer_text=answer,
        _best=_best(findings),
    )
