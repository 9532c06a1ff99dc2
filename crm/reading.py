"""The rules agent's readers of one inbound message's values, on the sender's own words
(`crm.reply`): money in any currency, the call-back wish with its negations, phones in the
sender's country, the name from the signature, and the client's own future dates. The
briefing reader's parts (amounts, dates, contacts) do the parsing; this module decides
which finding is the client's."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

import phonenumbers
from phonenumbers import geocoder

from briefing.reader.amounts import amount_role, amounts_find
from briefing.reader.contacts import contacts_find
from briefing.reader.dates import DateFinding, deadlines_find, month_number
from llmkit.extract.numbers import parse_number

# The currencies a card holds (ISO 4217). The briefing reader names RUB, UAH, USD and EUR;
# pounds are read here, since the studio works with British clients too.
CURRENCIES = ("RUB", "UAH", "USD", "EUR", "GBP")
# A budget said with no currency is in the money of the message's language, where it has one.
LANGUAGE_CURRENCY = {"ru": "RUB", "uk": "UAH"}


@dataclass(frozen=True)
class Budget:
    amount: int
    currency: str | None
    text: str


# "£6k", "GBP 6,000", "6 000 фунтов": the pounds the shared reader has no currency for.
_POUNDS = re.compile(
    r"(?:£|\bgbp\s?)(?P<a>\d(?:[\d,.]|\s(?=\d))*)\s?(?P<ka>k|к|m)?\b"
    r"|\b(?P<b>\d(?:[\d,.]|\s(?=\d))*)\s?(?P<kb>k|к|тис\.?|тыс\.?|m)?\s?"
    r"(?:£|gbp\b|pounds?\b|quid\b|фунт\w*)",
    re.IGNORECASE,
)
# "полмиллиона", "пів мільйона", "half a million": a half of a magnitude.
_HALF_MAGNITUDE = re.compile(
    r"\b(?:пол|полу|пів|півміль|half\s+a)\s*-?\s*(?P<unit>миллион\w*|мільйон\w*|million|"
    r"лям\w*)",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[.!?;\n]")


def _amount_number(text: str, magnitude: str | None) -> int | None:
    value = parse_number(re.sub(r"[\s,]", "", text).replace(",", "."))
    if value is None:
        return None
    scale = {"k": 1_000, "к": 1_000, "m": 1_000_000}.get((magnitude or "").lower()[:1], 1)
    if magnitude and magnitude.lower().startswith(("тис", "тыс")):
        scale = 1_000
    return round(value * scale)


def _amounts(text: str, *, language: str) -> list[tuple[int, str | None, int, int]]:
    """Every amount (value, currency, start, end): the briefing reader's, with pounds and
    "полмиллиона" it has no reading for."""
    found: list[tuple[int, str | None, int, int]] = list(amounts_find(text, language=language))
    for match in _POUNDS.finditer(text):
        number, magnitude = (match.group("a"), match.group("ka")) if match.group("a") else (
            match.group("b"), match.group("kb"))  # fmt: skip
        value = _amount_number(number, magnitude)
        if value:
            found = [f for f in found if f[3] <= match.start() or f[2] >= match.end()]
            found.append((value, "GBP", match.start(), match.end()))
    for match in _HALF_MAGNITUDE.finditer(text):
        if not any(f[2] <= match.start() < f[3] for f in found):
            found.append((500_000, None, match.start(), match.end()))
    return sorted(found, key=lambda f: f[2])


def amounts_said(text: str, *, language: str) -> set[int]:
    """The amounts written in a text (what a model's budget must be one of)."""
    return {value for value, *_ in _amounts(text, language=language)}


def budget_find(text: str, *, language: str, sender: str = "") -> Budget | None:
    """The client's budget: an amount the text calls a budget ("budget is around £6k",
    "маємо 60 000 гривень"), else one with a currency that is no price. An amount said with
    no currency takes the sender's country's money (their address's domain: "12 grand"
    from a .co.uk firm is pounds), else the language's ("около полумиллиона" in Russian is
    roubles)."""
    implied = _REGION_CURRENCY.get(sender_region(sender) or "") or LANGUAGE_CURRENCY.get(language)
    best: tuple[int, Budget] | None = None
    for value, currency, start, end in _amounts(text, language=language):
        clause_start = max((m.end() for m in _CLAUSE.finditer(text, 0, start)), default=0)
        role = amount_role(text, start, end, clause_start=clause_start)
        rank = {"budget": 0, "mention": 1}.get(role)
        clause_end = next((m.start() for m in _CLAUSE.finditer(text, end)), len(text))
        if _PAID.search(text, clause_start, clause_end):
            continue  # "Съёмку мы оплатили полностью — 85 000 рублей": money already spent
        if rank is None or value <= 0 or (rank and currency is None):
            continue  # a price, or a number with neither a currency nor a budget cue
        budget = Budget(value, currency or implied, text[start:end])
        if best is None or rank < best[0]:
            best = (rank, budget)
    return best[1] if best else None


# Money already paid to the studio is history, never a budget: "мы оплатили", "сплатили",
# "we paid the full $9,000", "paid up front".
_PAID = re.compile(
    r"\b(?:о|за|с|спл|уже\s+о)?плат(?:ил|или|ила|ив|или|ла)\b|\bперевел\w*|\bпереказал\w*"
    r"|\bсплатил\w*|\bоплачен\w*|\bсплачен\w*|\bpaid\b|\bwe\s+(?:have\s+)?transferred\b",
    re.IGNORECASE,
)


# --- complaints -------------------------------------------------------------------------------
# A complaint told as a story rather than named ("жалоба", "refund" are the catalogue's words):
# the studio's past work or the client's past payment, with something gone wrong.
_STUDIO_DID = re.compile(
    r"\byou(?:r\s+\w+)?\s+(?:delivered|sent|shot|filmed|made|produced|streamed|edited"
    r"|photographed|recorded|did)\b"
    r"|\b(?:вы|ваш\w*\s+\w+|ви|ваш\w*)\s+(?:\w+\s+)?\w+(?:ли|ла|л|в)\b",
    re.IGNORECASE,
)
_WENT_WRONG = re.compile(
    r"frustrat\w*|\bproblems?\b|\bissues?\b|\bwrong\b|\bmistakes?\b|\bbroken\b|\bblurr\w*"
    r"|\bunusable\b|\bcompensat\w*|\bexplain\s+what\s+happened"
    r"|компенсац\w*|компенсаці\w*|объясн\w*|поясн\w*|что\s+произошло|що\s+сталося"
    r"|размыт\w*|розмит\w*|ошибк\w*|помилк\w*|оборвал\w*|обірвал\w*|не\s+работает"
    r"|не\s+працює|потеряли|втратили|нет\s+совсем|немає\s+зовсім|брак\b|испорч\w*|зіпсова\w*",
    re.IGNORECASE,
)


def complaint_told(text: str) -> bool:
    """Whether the client tells of the studio's past work or their payment and of something
    gone wrong with it: a complaint, whatever project, sum or date it mentions."""
    return bool(_WENT_WRONG.search(text)) and bool(_STUDIO_DID.search(text) or _PAID.search(text))


# --- selling contacts or leads -----------------------------------------------------------------
# Spam that sells the studio its own clients: a list or base of contacts, or leads delivered
# by the number or the month, whatever product or event it names ("NAB Show Attendees List",
# "40+ qualified B2B leads a month", "база контактів відеостудій", "целевые заявки").
_CONTACTS = (
    r"(?:contacts?|leads?|prospects?|attendees?|e-?mails?|emails?|records|decision[\s-]makers"
    r"|контакт\w*|лид\w*|лід\w*|заявк\w*|клиент\w*|клієнт\w*|адрес\w*)"
)
_SELLS_CONTACTS = re.compile(
    "|".join(
        (
            r"\b(?:attendees?|contacts?|e-?mail|mailing|b2b|leads?|prospects?|buyers?)\s+"
            r"(?:list|database|data\s?base)s?\b",
            r"\b(?:verified|qualified|targeted|warm|validated|opt-in)\s+(?:[\w+-]+\s+){0,2}"
            + _CONTACTS,
            r"\b\d[\d,+ ]*\s*(?:[\w-]+\s+){0,3}(?:leads|contacts|meetings)\s+(?:a|per|every)\s+"
            r"(?:month|week)",
            r"\bpay\s+(?:only\s+)?[$€£]?\d+\s+per\s+(?:lead|booked\s+meeting|meeting|appointment)",
            r"\bбаз[аиуы]\s+(?:\w+\s+){0,2}(?:контакт|клиент|клієнт|компан|адрес|email|e-mail)\w*",
            r"\b(?:целев|цільов|тепл|качественн|якісн|верифицир|верифікова|перевірен|проверенн)\w*"
            r"\s+(?:\w+\s+)?" + _CONTACTS,
            r"\bлидогенерац\w*|\bлідогенерац\w*|\blead\s+gen\w*",
        )
    ),
    re.IGNORECASE,
)


def sells_contacts(text: str) -> bool:
    """Whether a message sells contacts or leads (a list, a base, leads by the month)."""
    return bool(_SELLS_CONTACTS.search(text))


# --- call-back --------------------------------------------------------------------------------
# A call asked for, in the client's words: an imperative to call, waiting for or thanking in
# advance for a call, "please call".
_CALL_WANTED = re.compile(
    r"перезвон\w*|позвон\w*\s+(?:мне|нам)|позвоните|\bзвоните\b|наберите|жду\s+(?:вашего\s+)?"
    r"звонка|ждем\s+(?:вашего\s+)?звонка|ждём\s+(?:вашего\s+)?звонка|благодар\w+\s+за\s+звон"
    r"|свяжитесь\s+.{0,20}по\s+телефону|передзвон\w*|зателефонуйте|подзвоніть|дзвоніть"
    r"|чекаю\s+(?:на\s+)?(?:вашого\s+)?дзвінка|чекаю\s+на\s+дзвінок|вдячн\w+\s+за\s+дзвінок"
    r"|\bcall\s+(?:me|us)\b|call\s+(?:me\s+)?back|give\s+(?:me|us)\s+a\s+(?:call|ring)"
    r"|please\s+(?:call|phone|ring)|phone\s+me|ring\s+me|(?:await|expect)\w*\s+your\s+call"
    r"|grateful\s+for\s+a\s+call|appreciate\s+a\s+call"
    # "I wouldn't say no to a quick call", "we'd welcome a short call", "a call would help".
    r"|(?:wouldn'?t\s+say\s+no\s+to|would\s+(?:love|like|welcome|appreciate)|'d\s+(?:love|like"
    r"|welcome|appreciate)|happy\s+to\s+(?:have|jump\s+on))\s+(?:a\s+)?(?:quick\s+|short\s+"
    r"|brief\s+)?(?:phone\s+)?call\b|\b(?:a\s+)?(?:quick|short|brief)\s+(?:phone\s+)?call\s+would"
    r"\s+be\s+(?:great|good|helpful|useful|appreciated)",
    re.IGNORECASE,
)
# A call refused: "не звоните", "звонить не нужно", "телефонувати не треба", "don't call",
# "only e-mail", "только письменно", "лише пошта".
_CALL_REFUSED = re.compile(
    r"\bне\s+(?:надо\s+|нужно\s+|стоит\s+|треба\s+|потрібно\s+)?(?:звон\w*|позвон\w*"
    r"|перезван\w*|дзвон\w*|дзвоніть|телефон\w*|зателефон\w*|передзвон\w*)"
    r"|(?:звонить|звонки|дзвонити|телефонувати|дзвінки)\s+(?:мне\s+|мені\s+)?(?:не\s+"
    r"(?:нужно|надо|стоит|треба|потрібно|варто)|не\s+надо)"
    r"|без\s+(?:звонков|дзвінків)"
    r"|(?:только|лише|лишь|тільки)\s+(?:по\s+)?(?:почт\w*|пошт\w*|письменно|письмово|e-?mail"
    r"|емейл\w*|имейл\w*|в\s+переписке|в\s+листуванні)"
    r"|\b(?:don'?t|do\s+not|please\s+don'?t|no\s+need\s+to)\s+(?:call|phone|ring)"
    r"|\bno\s+(?:phone\s+)?calls\b|(?:e-?mail|email|writing)\s+only\b|only\s+(?:by\s+)?e-?mail"
    r"|e-?mail\s+is\s+best|prefer\s+e-?mail",
    re.IGNORECASE,
)


def call_back_wanted(text: str) -> bool:
    """Whether the client asks to be called: a refusal anywhere ("не звоните", "email only")
    outweighs a wish; an offer to call the sender's firm is no wish of theirs (spam is
    decided by its intent, not here)."""
    refused = list(_CALL_REFUSED.finditer(text))
    refused_spans = [(m.start(), m.end()) for m in refused]
    wanted = [
        m
        for m in _CALL_WANTED.finditer(text)
        if not any(start <= m.start() < end for start, end in refused_spans)
    ]
    return bool(wanted) and not refused


# --- phones -----------------------------------------------------------------------------------


# The money of a country a sender's domain names, for an amount said without a currency.
_EURO = "AT BE CY DE EE ES FI FR GR HR IE IT LT LU LV MT NL PT SI SK"
_REGION_CURRENCY = {
    "GB": "GBP", "UA": "UAH", "RU": "RUB", "US": "USD", **dict.fromkeys(_EURO.split(), "EUR"),
}  # fmt: skip
_TLD_REGION = {"uk": "GB"}  # the one country whose domain is not its ISO code


def sender_region(sender: str) -> str | None:
    """The country (ISO 3166) a sender's address names by its domain ("…@firm.co.uk" is
    GB, "…@clinic.com.ua" UA), or None for a generic one (.com, .io, .org)."""
    if "@" not in sender:
        return None
    tld = sender.rsplit(".", 1)[-1].lower()
    region = _TLD_REGION.get(tld, tld.upper())
    if len(tld) != 2 or not phonenumbers.country_code_for_region(region):
        return None
    return region


def phones_find(text: str, *, language: str, sender: str = "") -> list[str]:
    """Phones in E.164: local numbers read in the sender's country (the phone's own "+"
    prefix, then the domains written and the sender's, then the language); an international
    number is kept when its length fits its country even where its range is unassigned
    ("+44 7700 900412"), and a local one valid in the country of the sender's domain
    ("07911 123456" from a .org.uk address)."""
    domain = sender.rsplit("@", 1)[-1] if "@" in sender else ""
    hint = f"{text}\n{domain}" if domain else text
    found = [c.value for c in contacts_find(hint, language) if c.value.startswith("+")]
    for match in phonenumbers.PhoneNumberMatcher(
        text, None, leniency=phonenumbers.Leniency.POSSIBLE
    ):
        if match.raw_string.lstrip().startswith("+"):
            found.append(
                phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
            )
    region = sender_region(sender)
    if region and region not in _LANGUAGE_REGIONS.get(language, ()):
        for match in phonenumbers.PhoneNumberMatcher(
            text, region, leniency=phonenumbers.Leniency.POSSIBLE
        ):
            raw = match.raw_string.lstrip()
            # Valid in that country, or written with its trunk "0" at a possible length
            # ("07700 900318": a range Ofcom keeps for examples is no valid number).
            if not raw.startswith("+") and (
                raw.startswith("0") or phonenumbers.is_valid_number(match.number)
            ):
                e164 = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
                found.append(e164)
    return list(dict.fromkeys(found))


# The countries whose local numbers the shared reader already reads by the language.
_LANGUAGE_REGIONS = {"ru": ("RU",), "uk": ("UA",)}


def phone_country(phone: str, language: str) -> str:
    """The country a stored (E.164) phone was read as, named in `language` ("Украина"), so a
    manager sees how a local number was taken; "" when it names none."""
    try:
        number = phonenumbers.parse(phone, None)
    except phonenumbers.NumberParseException:
        return ""
    return geocoder.country_name_for_number(number, language or "en")


# --- names ------------------------------------------------------------------------------------
_UPPER = "A-ZА-ЯЁІЇЄҐÀ-ÖØ-Þ"
_LOWER = "a-zа-яёіїєґß-öø-ÿ"
_WORD = rf"[{_UPPER}][{_LOWER}'’-]+(?:[{_UPPER}][{_LOWER}]+)?"  # "Inês", "MacLeod"
_INITIAL = rf"[{_UPPER}]\.\s?"
# "Елена Шубина", "Fiona MacLeod", "А. В. Белова", "Inês Carvalho": one to three words,
# or initials before a surname.
_SIGNATURE_NAME = re.compile(
    rf"^\s*((?:{_INITIAL}){{1,2}}{_WORD}|{_WORD}(?:\s+{_WORD}){{0,2}})\s*[,.]?\s*$"
)
_NOT_A_NAME = re.compile(
    r"^(?:unsubscribe|tel|phone|телефон|тел|mob|e-?mail|www|http|ооо|тов|llc|ltd|inc|head|"
    r"manager|director|директор|менеджер|студия|студія|team|команда)\b",
    re.IGNORECASE,
)


def signature_name(signature: str) -> str | None:
    """The sender's name as they sign: the signature's first line of one to three
    capitalised words, or initials and a surname (a role or a company is no name). A lone
    word with a comma or "!" above the name is a closing in any language ("Obrigada,",
    "Grazie!", "Danke,"), never the name."""
    lines = [line for line in signature.splitlines() if line.strip()][:3]
    for index, line in enumerate(lines[:2]):
        match = _SIGNATURE_NAME.match(line)
        if not match or _NOT_A_NAME.match(match.group(1)):
            continue
        closing = re.fullmatch(r"\s*\S+\s*[,!]\s*", line)
        if closing and index + 1 < len(lines) and _SIGNATURE_NAME.match(lines[index + 1]):
            continue
        return match.group(1)
    return None


# --- urgency ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class UrgencyTerm:
    """The client's nearest term: days from the mail's date, and the words it was read from
    (read again on the same day, they give the same day)."""

    days: int
    text: str


def urgency_days(text: str, *, today: datetime.date, language: str) -> int | None:
    """Days until the earliest date ahead of the mail's date in the client's own words
    (`urgency_find`)."""
    term = urgency_find(text, today=today, language=language)
    return term.days if term else None


def urgency_find(text: str, *, today: datetime.date, language: str) -> UrgencyTerm | None:
    """The earliest term ahead of the mail's date in the client's own words: a date already
    past ("the video you delivered on 14 November", which the calendar readers move to next
    year) is history, a weekday followed by its date ("до п'ятниці, 18 грудня") is that date,
    a weekday is counted from the mail's date ("к пятнице", "by next Friday"), a term set
    before another date is that much earlier ("a week before the release on 12 February"),
    and the client's own absence ("I'm travelling until mid-December", "мене не буде до
    понеділка") is no term."""
    findings = _dates_with_weekdays(text, today=today, language=language)
    findings = _offsets_applied(text, findings)
    best: UrgencyTerm | None = None
    for index, finding in enumerate(findings):
        if not (any(ch.isdigit() for ch in finding.text) or _TERM_CUE.search(
            text[max(0, finding.start - 12) : finding.end]
        )):  # fmt: skip
            continue  # "хоча минув місяць" names a month gone by, not a term
        following = findings[index + 1] if index + 1 < len(findings) else None
        if following and 0 <= following.start - finding.end <= 3 and _dated(following.text):
            continue  # "п'ятниці, 18 грудня": the date says which Friday (not "вторника: в среду")
        if _past(finding.value, today) or _absence(text, finding.start):
            continue
        delta = (finding.value - today).days
        if delta >= 0 and (best is None or max(delta, 1) < best.days):
            best = UrgencyTerm(max(delta, 1), finding.text)
    return best


def _dated(words: str) -> bool:
    """Whether a date's words name a day of the calendar (a figure or a month)."""
    return any(ch.isdigit() for ch in words) or month_number_in(words)


# --- relative terms: weekdays, "a week before", absences ---------------------------------------
_WEEKDAY_STEMS = (
    ("понедельник", 0), ("понеділ", 0), ("monday", 0),
    ("вторник", 1), ("вівтор", 1), ("tuesday", 1),
    ("сред", 2), ("серед", 2), ("wednesday", 2),
    ("четверг", 3), ("четвер", 3), ("thursday", 3),
    ("пятниц", 4), ("п'ятниц", 4), ("пʼятниц", 4), ("friday", 4),
    ("суббот", 5), ("субот", 5), ("saturday", 5),
    ("воскресень", 6), ("неділ", 6), ("sunday", 6),
)  # fmt: skip
_WEEKDAY_WORD = r"(?:понедельник|понеділ|вторник|вівтор|сред[ауы]|середу|середи|четверг|четвер"
_WEEKDAY_WORD += r"|пятниц|п['’ʼ]ятниц|суббот|субот|воскресень|неділ|monday|tuesday|wednesday"
_WEEKDAY_WORD += r"|thursday|friday|saturday|sunday)\w*"
# A weekday as a term: after "к", "до", "by", "until", "не позже"; "next" or "следующ…" names
# the one of the next calendar week, "this" or nothing the first one after the mail's day.
_WEEKDAY_TERM = re.compile(
    r"\b(?P<prep>к|ко|до|by|before|until|till|no\s+later\s+than|не\s+позже|не\s+позднее"
    r"|не\s+пізніше)\s+(?:(?P<next>следующ\w*|наступн\w*|next)|(?:this|эт\w+|ц\w+)\s+)?\s*"
    r"(?P<day>" + _WEEKDAY_WORD + r")"
    r"|\b(?P<next2>next)\s+(?P<day2>" + _WEEKDAY_WORD + r")",
    re.IGNORECASE,
)


def month_number_in(words: str) -> bool:
    return any(month_number(word) for word in re.findall(r"[a-zа-яёіїєґ]{3,}", words.lower()))


def _weekday_number(word: str) -> int | None:
    word = word.lower().replace("’", "'").replace("ʼ", "'")
    return next((number for stem, number in _WEEKDAY_STEMS if word.startswith(stem)), None)


def weekday_date(today: datetime.date, weekday: int, *, next_week: bool) -> datetime.date:
    """The day a weekday names from `today`: in the next calendar week (Monday to Sunday)
    for "next Friday", "до следующего вторника"; else the first such day after today."""
    if next_week:
        monday = today + datetime.timedelta(days=7 - today.weekday())
        return monday + datetime.timedelta(days=weekday)
    return today + datetime.timedelta(days=(weekday - today.weekday()) % 7 or 7)


def _dates_with_weekdays(text: str, *, today: datetime.date, language: str) -> list[DateFinding]:
    """The calendar readers' dates, a weekday term read by `weekday_date` where one is
    written (the readers count "next Friday" as the first Friday ahead)."""
    findings = deadlines_find(text, today=today, language=language)
    for match in _WEEKDAY_TERM.finditer(text):
        weekday = _weekday_number(match.group("day") or match.group("day2"))
        if weekday is None:
            continue
        value = weekday_date(
            today, weekday, next_week=bool(match.group("next") or match.group("next2"))
        )
        findings = [f for f in findings if f.end <= match.start() or f.start >= match.end()]
        findings.append(DateFinding(value, match.start(), match.end(), match.group(0)))
    return sorted(findings, key=lambda f: f.start)


_OFFSET_UNITS = (("недел", 7), ("тижд", 7), ("тижн", 7), ("week", 7), ("месяц", 30),
                 ("місяц", 30), ("month", 30), ("дн", 1), ("ден", 1), ("day", 1))  # fmt: skip
_OFFSET_NUMBER = r"(?:(?P<number>\d{1,3}|[a-zа-яёіїєґ'’]+)\s+)?"
_OFFSET_UNIT = r"(?P<unit>недел\w*|тиж\w*|месяц\w*|місяц\w*|дн\w*|день|weeks?|months?|days?)"
# "a week before the release", "two days ahead of", "за неделю до", "за тиждень до".
_OFFSET_BEFORE = re.compile(
    r"\b" + _OFFSET_NUMBER + _OFFSET_UNIT + r"\s+(?:before|prior\s+to|ahead\s+of)\b"
    r"|\bза\s+"
    + _OFFSET_NUMBER.replace("number", "number2")
    + _OFFSET_UNIT.replace("unit", "unit2")
    + r"\s+до\b",
    re.IGNORECASE,
)


def _offset_days(match: re.Match[str]) -> int | None:
    unit = (match.group("unit") or match.group("unit2") or "").lower()
    per = next((days for stem, days in _OFFSET_UNITS if unit.startswith(stem)), None)
    said = match.group("number") or match.group("number2")
    number = 1 if not said or said.lower() in ("a", "an") else parse_number(said)
    if per is None or not isinstance(number, int) or not 0 < number <= 52:
        return None
    return number * per


def _offsets_applied(text: str, findings: list[DateFinding]) -> list[DateFinding]:
    """A term set before a date ("трейлер має вийти за тиждень до релізу" after "Реліз гри 12
    лютого") replaces that date by the earlier one: the nearest date of the same sentence,
    the one after the phrase first."""
    for match in _OFFSET_BEFORE.finditer(text):
        days = _offset_days(match)
        if days is None:
            continue
        sentence_start = max((m.end() for m in _SENTENCE.finditer(text, 0, match.start())),
                             default=0)  # fmt: skip
        sentence_end = next((m.start() for m in _SENTENCE.finditer(text, match.end())), len(text))
        after = [f for f in findings if match.end() <= f.start < sentence_end]
        before = [f for f in findings if sentence_start <= f.start and f.end <= match.start()]
        anchor = after[0] if after else (before[-1] if before else None)
        if anchor is None:
            continue
        start, end = min(anchor.start, match.start()), max(anchor.end, match.end())
        value = anchor.value - datetime.timedelta(days=days)
        findings = [f for f in findings if f is not anchor]
        findings.append(DateFinding(value, start, end, text[start:end]))
    return sorted(findings, key=lambda f: f.start)


_SENTENCE = re.compile(r"[.!?\n]")
# The client's own absence: a date after it is when they are back, not when the work is due.
_ABSENCE = re.compile(
    r"\btravel+ing\b|\b(?:i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be|i\s+will\s+be)"
    r"\s+(?:away|abroad|off|out|offline|on\s+(?:holiday|vacation|leave)|back)\b"
    r"|\bout\s+of\s+(?:the\s+)?office\b|\bon\s+(?:holiday|vacation|annual\s+leave|leave)\b"
    r"|\b(?:unavailable|not\s+available|can'?t\s+be\s+reached|won'?t\s+be\s+(?:around"
    r"|available|reachable|in))\b"
    r"|\bотпуск\w*|\bкомандировк\w*|\bв\s+отъезде\b|\bуезжа\w*|\bуеду\b|\bуехал\w*"
    r"|\b(?:меня|нас)\s+не\s+будет\b|\bне\s+(?:буду|будем)\s+на\s+связи\b|\bнедоступ\w*"
    r"|\bна\s+больничном\b|\bвне\s+офиса\b"
    r"|\bвідпуст\w*|\bвідрядженн\w*|\bвід['’ʼ]?їзд\w*|\b(?:мене|нас)\s+не\s+буде\b"
    r"|\bне\s+(?:буду|будемо)\s+на\s+зв['’ʼ]?язку\b|\bнедоступн\w*|\bна\s+лікарняному\b"
    r"|\bпоза\s+офісом\b|\bпоїхал?\w*|\bїду\b",
    re.IGNORECASE,
)
# Where an absence's clause begins: a date after a comma or a dash is a new statement.
_PART = re.compile(r"[.!?;\n,—–(]|\s-\s|\b(?:and|but|а|но|але|і|и)\s")


def _absence(text: str, start: int) -> bool:
    """Whether the date at `start` is when the client is away until: an absence said in its
    part of the sentence, before it."""
    part_start = max((m.end() for m in _PART.finditer(text, 0, start)), default=0)
    return bool(_ABSENCE.search(text, part_start, start))


# A date or a period is a term when it has a number or a preposition of time before it.
_TERM_CUE = re.compile(
    r"\b(?:к|ко|до|по|через|на|не\s+позже|не\s+пізніше|протягом|в\s+течение|by|before|until"
    r"|till|within|in|next|this|on|наступн\w*|следующ\w*|эт\w+|ц\w+)\b",
    re.IGNORECASE,
)


def _past(value: datetime.date, today: datetime.date) -> bool:
    """Whether a date moved to next year was written as one of the last four months."""
    try:
        year_before = value.replace(year=value.year - 1)
    except ValueError:  # 29 February
        return False
    return value.year > today.year and today - datetime.timedelta(days=120) <= year_before < today
