"""Money in a client's message, read for the briefing: llmkit's amounts plus the slang and
word forms it misses ("лям", "два с половиной миллиона", "тысяч 450", "twenty-five grand"),
and whether each amount is the budget, a price or just a number mentioned."""

from __future__ import annotations

import re
from dataclasses import dataclass

from llmkit.extract import find_money
from llmkit.extract.numbers import parse_number

# What a client does with the video's money, whoever says it ("можем выделить", "готова дать",
# "на відос даєм", "we can put", "we're ready to spend", "we can do $25k"): a verb family,
# each verb in its forms, after a word of ability or readiness.
_GIVING_VERBS = (
    r"(?:выдел|потрат|вложи|влож|заплат|дать|дадим|отдать|инвестир|потян|"
    r"виділ|витрат|вклас|дати|дамо|потягн|"
    r"allocat|spend|put\b|give|pay\b|invest|commit|stretch|do\b|go\s+(?:to|up\s+to))\w*"
)
# Cues that an amount is the budget: in the clause before it.
BUDGET_CUE = re.compile(
    r"бю[дж]+ет|бюжет|"
    rf"(?:можем|могу|можемо|можу|готов\w*|готові|can|could|ready\s+to|able\s+to|happy\s+to)"
    rf"\s+(?:\w+\s+)?{_GIVING_VERBS}|"
    # giving said in the present ("на відос даєм", "даём 200к"), and agreeing to an amount
    r"\b(?:даём|даем|даю|дам|дадим|даємо|даєм|дамо)\b|"
    r"\bagreed\b|\bokay(?:e)?d\b|\bok['’]?d\b|green-?lit|одобрил\w*|одобрен\w*|схвалил\w*|"
    r"выделили|выделить|заложил\w*|заложен\w*|заклад\w+|располагаем|рассчитываем\s+на"
    r"|на\s+(?:производств\w*\s+|создани\w*\s+)?(?:всё|все|ролик|проект|видео|съ[её]мк)|"
    r"готовы\s+на|готові\s+на|"
    r"виділили|виділити|можемо\s+(?:витратити|виділити|заплатити)|маємо|закладаємо|"
    r"розраховуємо\s+на|на\s+(?:ролик|проєкт|відео|все)|"
    r"budget|we\s+can\s+spend|can\s+spend|to\s+spend|we\s+have|we['’]ve\s+got|set\s+aside|"
    r"afford|allocated|willing\s+to\s+(?:spend|pay)|up\s+to|денег|деньг\w*|грош\w*|money|"
    r"put\s+(?:aside|by)|earmarked|ring-?fenced|approved|signed\s+off|sanctioned|"
    r"for\s+(?:the|this|our)\s+(?:film|video|vid|project|shoot|production|trailer|ad)\b|"
    r"утвердил\w*|согласовал\w*|затвердил\w*|погодил\w*|"
    r"на\s+(?:трейлер|клип|фильм|рекламн\w+\s+ролик|тизер|відеоролик|кліп|фільм|видос|відос|"
    r"продакшн|продакшен)",
    re.IGNORECASE,
)
# A ceiling said after the amount is the budget's ("$6k tops", "120к максимум", "70 тисяч,
# більше не потягнемо", "это прям потолок").
BUDGET_CEILING_AFTER = re.compile(
    r"^\W{0,3}(?:\w+\W+){0,2}?(?:tops|max(?:imum)?|at\s+(?:the\s+)?most|and\s+no\s+more|"
    r"максимум|макс|не\s+больше|не\s+более|больше\s+(?:\w+\s+)?не|потолок|"
    r"не\s+більше|більше\s+(?:\w+\s+)?не|стеля|щонайбільше)\b",
    re.IGNORECASE,
)
# Cues that an amount is a price of something (the client's product, a delivery, ...).
PRICE_BEFORE = re.compile(
    r"(?:стоит|стоят|стоить|стоимость|цена|ценой|по\s+цене|продаём|продаем|обходится|"
    r"коштує|коштують|коштуватиме|коштувати|ціна|вартість|продаємо|стоїть|"
    r"costs?|priced?|price\s+is|sells?\s+for|retails?|"
    # what a thing sells for: "комод іде за 12 тищ", "идёт за 5 тысяч", "goes for $40"
    r"(?:ид[её]т|іде|йде|уходит|продаєт?ься|продаётся|продается)\s+(?:\w+\s+)?за|"
    r"(?:goes|go|went)\s+for|"
    r"\bот|\bвід|\bfrom|заказ\s+от|замовлення\s+від|на\s+полке|на\s+полиці|"
    r"on\s+the\s+shelf|в\s+рознице|у\s+роздрібі)\W*(?:\w+\W+){0,2}$",
    re.IGNORECASE,
)
# "от 300 тысяч", "from $5k": a range's lower end, a price unless the budget's cue precedes it.
_RANGE_LEAD = re.compile(r"^(?:от|від|from|заказ|замовлення)\b", re.IGNORECASE)
# A price per unit said after the amount: per person, night, hour, piece ("за два часа",
# "с человека", "$32 a head", "per person", "€90 a night", "/мес").
_PER_UNIT = (
    r"(?:час\w*|годин\w*|ноч\w*|ніч\w*|сутк\w*|доб\w*|день|дня|дней|дні|днів|недел\w*|тижд\w*|"
    r"месяц\w*|місяц\w*|мес|міс|год|года|рік|року|человек\w*|чел|персон\w*|людин\w*|особ\w*|"
    r"гост\w*|бутылк\w*|штук\w*|шт|головк\w*|упаковк\w*|пачк\w*|банк\w*|букет\w*|пляшк\w*|"
    r"урок\w*|заняти\w*|заняття|сеанс\w*|билет\w*|квит\w*|кило\w*|кг|порци\w*|порці\w*|"
    r"компани\w*|компані\w*|нос|носа)\b"
)
PRICE_AFTER = re.compile(
    rf"^\W{{0,3}}(?:(?:за|с|з|на|в|у)\s+(?:\w+\s+){{0,2}}?{_PER_UNIT}|"
    r"per\s+\w+|an?\s+(?:month|year|week|bottle|piece|night|day|head|person|pop|hour|ticket|"
    r"guest|seat|box|kilo|pound|lesson|class|session)\b|each|apiece|"
    r"/\s*(?:мес|міс|mo|month|night|ніч|ночь|час|год|hr|h|person|чел)\b)",
    re.IGNORECASE,
)
_CURRENCY_WORDS = (
    ("RUB", re.compile(r"руб|₽|\brub\b|roubl|rubl", re.IGNORECASE)),
    ("USD", re.compile(r"доллар|долар|\$|\busd\b|dollar|бакс|\bus\s+dollars?", re.IGNORECASE)),
    ("EUR", re.compile(r"евро|євро|€|\beur\b|euro", re.IGNORECASE)),
    ("UAH", re.compile(r"гривн|гривен|гривень|грн|₴|\buah\b|hryvn", re.IGNORECASE)),
)
# Slang that names roubles without saying so, the Cyrillic "к" glued to digits ("750к") too.
# Slang for the local money's thousands and millions: roubles in Russian, hryvnias in
# Ukrainian ("сорок кусків", "200 тищ", "пів ляма").
_LOCAL_SLANG = re.compile(r"лям|лимон|тыщ|тищ|косар|штук|кус|(?<=\d)\s?к\b", re.IGNORECASE)
_LOCAL_CURRENCY = {"ru": "RUB", "uk": "UAH"}

_WORD_NUMBER = r"[a-zа-яёіїєґ'’]+"
_MAGNITUDE = {
    "тыс": 1_000, "тысяч": 1_000, "тисяч": 1_000, "тис": 1_000, "тыщ": 1_000, "тищ": 1_000,
    "млн": 1_000_000, "миллион": 1_000_000, "мільйон": 1_000_000, "лям": 1_000_000,
    "лимон": 1_000_000, "grand": 1_000, "thousand": 1_000, "million": 1_000_000,
    "косар": 1_000, "штук": 1_000, "кус": 1_000, "k": 1_000, "к": 1_000,
}  # fmt: skip
_UNIT = (
    r"(?P<unit>лям(?:а|ов|ів)?|лимон(?:а|ов)?|grand|млн|миллион(?:а|ов)?|мільйон(?:а|ів|и)?|"
    r"million|thousand|тысяч(?:и|а)?|тисяч(?:і|а)?|тыс|тис|тыщ(?:и|а|у)?|тищ(?:і|а|у)?|"
    r"косар(?:ей|я|ь|и|ів)?|k|к)\b"
)
# A number and a half of a unit, in the three languages: "два с половиной миллиона",
# "три з половиною тищі", "fifteen and a half grand", "2 and a half k".
_HALF = re.compile(
    rf"(?P<number>\d+|{_WORD_NUMBER})\s+(?:(?:с|з)\s+половин(?:ой|ою)|and\s+a\s+half)\s+"
    rf"{_UNIT}",
    re.IGNORECASE,
)
_SLANG = re.compile(
    rf"(?P<number>\d+(?:[.,]\d+)?|{_WORD_NUMBER}(?:-{_WORD_NUMBER})?)?\s*"
    r"(?P<unit>лям(?:а|ов|ів)?|лимон(?:а|ов)?|grand|косар(?:ей|я|ь|и|ів)?|"
    r"кус(?:ок|ка|ков|ків|ки)|"
    # "5 штук баксов": thousands only when a currency follows ("3 штуки видео" are pieces)
    r"штук(?:и|а)?(?=\s+(?:бакс|доллар|долар|евро|євро|гривен|гривень|рубл|usd|eur)))\b",
    re.IGNORECASE,
)
# "лям двести", "миллион триста", "пів мільйона" aside: a million and the hundreds of
# thousands said after it, as people say 1 200 000 ("лям двести" is not 1 000 200).
_MILLION_AND = re.compile(
    r"(?P<millions>\d{1,2}|один|одна|два|две|дві|три|чотири|четыре)?\s*"
    r"(?P<unit>лям(?:а|ов)?|лимон(?:а|ов)?|миллион(?:а|ов)?|мільйон(?:а|ів|и)?|млн)\s+"
    r"(?P<rest>[1-9]\d{2}|сто|двести|двісті|триста|четыреста|чотириста|пятьсот|п['’]ятсот|"
    r"шестьсот|шістсот|семьсот|сімсот|восемьсот|вісімсот|девятьсот|дев['’]ятсот)\b"
    r"(?!\s*(?:тыс|тис|тыщ|k\b|к\b|000))",
    re.IGNORECASE,
)
_INVERTED = re.compile(r"\b(?P<unit>тысяч|тисяч|тыщ)\s+(?P<number>\d{2,3})\b", re.IGNORECASE)


@dataclass(frozen=True)
class Amount:
    value: int
    currency: str | None
    start: int
    end: int
    text: str
    role: str  # "budget", "price" or "mention"


def _unit_value(unit: str) -> int:
    unit = unit.lower()
    for stem, value in _MAGNITUDE.items():
        if unit.startswith(stem):
            return value
    return 1


def _number(text: str | None) -> float | None:
    if not text:
        return 1.0
    text = text.strip().lower()
    if text in ("пол", "пів", "half", "a"):
        return 0.5 if text != "a" else 1.0
    value = parse_number(text.replace(",", "."))
    if value is None:
        # "twenty-five" → parse_number knows "twenty five"
        value = parse_number(text.replace("-", " "))
    return value


def _slang_amounts(text: str) -> list[tuple[int, int, int, bool]]:
    """(value, start, end, wins) for the forms llmkit misses; `wins` when the form must
    replace any llmkit reading it overlaps ("тысяч 450" is 450 000, not 1 450)."""
    found = []
    for match in _HALF.finditer(text):
        number = _number(match.group("number"))
        if number is not None:
            value = round((number + 0.5) * _unit_value(match.group("unit")))
            found.append((value, match.start(), match.end(), True))
    for match in _SLANG.finditer(text):
        number_text = match.group("number")
        number = _number(number_text)
        start = match.start("number") if number_text else match.start("unit")
        if number is None:  # a word that is no number ("бюджет лям"): the unit stands alone
            number, start = 1.0, match.start("unit")
        value = round(number * _unit_value(match.group("unit")))
        if value > 0:
            found.append((value, start, match.end(), False))
    for match in _INVERTED.finditer(text):
        found.append((int(match.group("number")) * 1000, match.start(), match.end(), True))
    for match in _MILLION_AND.finditer(text):
        millions, rest = _number(match.group("millions")), _number(match.group("rest"))
        if millions is not None and rest is not None:
            value = round(millions * 1_000_000 + rest * 1_000)
            found.append((value, match.start(), match.end(), True))
    return found


# A number with no currency or magnitude ("240 000", "180000"): money only where it is
# plainly the sum: with its tax ("240 000 с НДС", "12 000 + VAT") or right after a budget's
# cue ("На ролик можем 240 000.", "budget is 15000"), ending its clause.
_BARE_NUMBER = re.compile(
    r"(?<![\d.,+/:\-])(?P<number>\d{1,3}(?:[ \u00a0\u202f]\d{3})+|\d{4,7})(?![\d.,:/\-]?\d)"
)
_TAX_AFTER = re.compile(
    r"^\s*(?:\(?\s*(?:с|з|без|вкл\.?|включая|including|incl\.?|ex\.?|excl\.?|plus|\+)\s*"
    r"(?:НДС|ПДВ|VAT|tax\w*|налог\w*|податк\w*)|(?:before|after)\s+tax)",
    re.IGNORECASE,
)
_CLAUSE_END_AFTER = re.compile(r"^\s*(?:$|[.,;!?)—–]|\s(?:и|і|и|та|and|but|но|але|а)\b)")
# How near before a bare number the budget's cue stands, in words ("бюджет у нас 180000").
MAX_WORDS_CUE_TO_BARE = 2


def _bare_amounts(text: str) -> list[tuple[int, int, int]]:
    found = []
    for match in _BARE_NUMBER.finditer(text):
        value = int(re.sub(r"\D", "", match.group("number")))
        after = text[match.end() : match.end() + 30]
        if _TAX_AFTER.match(after):
            found.append((value, match.start(), match.end()))
            continue
        if 1900 <= value <= 2100 and match.group().isdigit():
            continue  # a year
        clause = re.split(r"[.!?;\n]", text[: match.start()])[-1]
        cues = list(BUDGET_CUE.finditer(clause))
        if (
            value >= 1000
            and cues
            and _words(clause[cues[-1].end() :]) <= MAX_WORDS_CUE_TO_BARE
            and _CLAUSE_END_AFTER.match(after)
        ):
            found.append((value, match.start(), match.end()))
    return found


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def currency_named(text: str) -> list[str]:
    """Currency codes named in the text, in order of first mention."""
    hits = []
    for code, pattern in _CURRENCY_WORDS:
        match = pattern.search(text)
        if match:
            hits.append((match.start(), code))
    return [code for _, code in sorted(hits)]


def amounts_find(text: str, *, language: str) -> list[tuple[int, str | None, int, int]]:
    """Every amount: (value, currency, start, end), llmkit's where it reads the whole amount,
    the reader's own where llmkit misses it or reads only part of it."""
    money = [(m.value, m.currency, m.start, m.end) for m in find_money(text) if m.value > 0]
    for value, start, end, wins in _slang_amounts(text):
        overlapping = [m for m in money if m[2] < end and start < m[3]]
        if any(m[2] <= start and end <= m[3] for m in overlapping) and not wins:
            continue  # llmkit read it whole
        money = [m for m in money if m not in overlapping]
        money.append((value, None, start, end))
    for value, start, end in _bare_amounts(text):
        if not any(m[2] < end and start < m[3] for m in money):
            money.append((value, None, start, end))
    money.sort(key=lambda m: m[2])
    result = []
    for value, currency, start, end in money:
        if currency is None:
            tail = text[end : end + 30]
            named = currency_named(tail[: max(tail.find("."), 0) or 30])
            if named:
                currency = named[0]
            elif language in _LOCAL_CURRENCY and _LOCAL_SLANG.search(text[start:end]):
                currency = _LOCAL_CURRENCY[language]
        result.append((value, currency, start, end))
    return result


# Money that is someone's but not the video's: a grant for a whole programme, salaries, what
# was spent or paid before, turnover, sales. Nearer the amount than a budget cue, it wins.
# ... and what was bought, sold, raised or handed to someone else: "снегоход купили за 1,1
# млн", "партію брали за 18 тищ", "блогерам отдали 300 тысяч", "продали на 2,3 млн", "a
# photographer charged us $2,000", "$140k in bookings", "подняли seed на 40 млн".
_NOT_THE_VIDEOS = re.compile(
    r"грант\w*|субсиди\w*|зарплат\w*|оклад\w*|выручк\w*|виторг\w*|оборот\w*|потратил\w*|"
    r"потратили|витратил\w*|заплатил\w*|заплатили|сплатил\w*|отримали|получили|"
    r"\b(?:купил\w*|куплен\w*|покупал\w*|купували|купив\w*|придбал\w*|брали|брал|брала|взяли|"
    r"отдали|отдал|віддали|віддав|обош[её]л\w*|обошл\w*|обійш\w*|продали|продал|продаж\w*|"
    r"продав\w*|подняли|привлекли|залучили|інвестиц\w*|инвестиц\w*|раунд\w*)\b|"
    r"grant|salar\w+|wages?|revenue|turnover|spent|paid|raised|\b(?:bought|purchased|"
    r"charged|sold|sales|bookings|seed|invested)\b",
    re.IGNORECASE,
)
# "290 р. Это не бюджет", "€3.80, not the budget": an amount the client says is no budget.
_NOT_BUDGET_AFTER = re.compile(
    r"^[^\w]{0,4}(?:\w+\W+){0,2}?(?:это\s+|це\s+|this\s+is\s+|that['’]?s\s+|it['’]?s\s+)?"
    r"(?:не|not)\s+(?:the\s+|our\s+|a\s+)?(?:бюджет|budget)",
    re.IGNORECASE,
)
# The least a production budget is: "€3.80" for a coffee or "290 р." for a box never is one.
MIN_BUDGET = {"RUB": 1000, "UAH": 1000}
MIN_BUDGET_OTHER = 100


def budget_plausible(value: float, currency: str | None) -> bool:
    return value >= MIN_BUDGET.get(currency or "", MIN_BUDGET_OTHER)


# How far before an amount the money word it is said of may stand ("грант полтора миллиона",
# "last year I paid a lad €2,500").
MAX_WORDS_TO_AMOUNT = 4


def _said_of(between: str) -> bool:
    """Whether the words between a money word and an amount say the amount is that money:
    a few words and no label's colon or dash ("фінансує грант: 12 000 євро" is the budget
    the grant pays, "грант полтора миллиона" the grant)."""
    return not re.search(r"[:—–]", between) and len(between.split()) <= MAX_WORDS_TO_AMOUNT


# Cues that only open the subject of money ("по деньгам", "Money-wise", "по грошах").
_MONEY_TOPIC = re.compile(r"денег|деньг\w*|грош\w*|money", re.IGNORECASE)
# How near before an amount a budget cue overrides the price said after it ("бюджет 300
# тысяч в месяц"), in words.
MAX_WORDS_CUE_OVER_PRICE = 2


def amount_role(
    text: str,
    start: int,
    end: int,
    *,
    clause_start: int,
    others: tuple[tuple[int, int], ...] = (),
) -> str:
    """ "price" after a price cue nearer than any budget cue, or before "за бутылку" / "a
    night"; "budget" after a budget cue in the same clause (and no other money nearer it:
    "грант полтора миллиона"), or before one in its clause ("500k budget", "$6k tops");
    else "mention". A cue speaks of the first amount after it: with `others` (the spans of
    the message's other amounts) an amount that has another between it and the cue is not
    the cue's ("по деньгам: ... отдали 300 тысяч, чан 4 500 за два часа ... на видео 280
    тысяч")."""
    before = text[clause_start:start]
    between = [s - clause_start for s, e in others if clause_start <= s and e <= start]
    cues = [m for m in BUDGET_CUE.finditer(before) if not any(m.end() <= s for s in between)]
    last_cue = cues[-1].end() if cues else None
    price_after = PRICE_AFTER.search(text[end : end + 30])
    price_before = PRICE_BEFORE.search(before)
    # only a cue that names the budget keeps a per-unit amount after it the budget ("бюджет
    # 300 тысяч в месяц"); "по деньгам: тур 9 500 с человека" is a price
    naming = [m.end() for m in cues if not _MONEY_TOPIC.fullmatch(m.group())]
    if price_after and (not naming or _words(before[naming[-1] :]) > MAX_WORDS_CUE_OVER_PRICE):
        return "price"
    if price_before:
        # "бюджет от 300 тысяч" is still a budget; "про деньги: протез стоит 890к" a price
        lead = _RANGE_LEAD.match(price_before.group())
        cue_nearer = last_cue is not None and last_cue > price_before.start()
        if not (cue_nearer or (lead and cues)):
            return "price"
    if _NOT_BUDGET_AFTER.search(text[end : end + 40]):
        return "mention"
    others_money = [m.end() for m in _NOT_THE_VIDEOS.finditer(before)]
    if (
        others_money
        and (last_cue is None or others_money[-1] > last_cue)
        and _said_of(before[others_money[-1] :])
    ):
        return "mention"
    # a cue after the amount counts within its clause ("500k budget"), not across "but",
    # the end of the sentence or the next amount
    following = [s for s, _ in others if s >= end]
    window = text[end : min([end + 25, *following])]
    after = re.split(r"[,;—–]|[.!?](?=\s|$)|\s(?:but|а|но|але)\s", window, maxsplit=1)[0]
    if cues or BUDGET_CUE.search(after) or BUDGET_CEILING_AFTER.search(text[end : end + 40]):
        return "budget"
    return "mention"
