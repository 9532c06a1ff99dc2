"""The words and the tokenizer that the number and amount parsers read: number words,
magnitudes ("тыс", "млн", "k") and currencies in Russian, Ukrainian and English, and
`tokenize`, which reads digit literals by the separator rules in `numbers`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from llmkit.extract._common import APOSTROPHES, HSPACE_CHARS, fold

# --- vocabulary ------------------------------------------------------------------------

UNIT, TEEN, TEN, HUNDREDS = "unit", "teen", "ten", "hundreds"


def _forms(table: dict[int, str], cls_of) -> dict[str, tuple[int, str]]:
    result: dict[str, tuple[int, str]] = {}
    for value, forms in table.items():
        for form in forms.split():
            result[form] = (value, cls_of(value))
    return result


def _cls(value: int) -> str:
    if value < 10:
        return UNIT
    if value < 20:
        return TEEN
    if value < 100:
        return TEN
    return HUNDREDS


# Nominative/accusative and the oblique forms that follow prepositions ("до двух недель").
# "семью" is left out on purpose: it is also "family" in the accusative.
_RU = {
    0: "ноль нуль",
    1: "один одна одно одну одного одной одному одним",
    2: "два две двух двум двумя",
    3: "три трех трем тремя",
    4: "четыре четырех четырем четырьмя",
    5: "пять пяти пятью",
    6: "шесть шести шестью",
    7: "семь семи",
    8: "восемь восьми восемью",
    9: "девять девяти девятью",
    10: "десять десяти",
    11: "одиннадцать одиннадцати",
    12: "двенадцать двенадцати",
    13: "тринадцать тринадцати",
    14: "четырнадцать четырнадцати",
    15: "пятнадцать пятнадцати",
    16: "шестнадцать шестнадцати",
    17: "семнадцать семнадцати",
    18: "восемнадцать восемнадцати",
    19: "девятнадцать девятнадцати",
    20: "двадцать двадцати",
    30: "тридцать тридцати",
    40: "сорок сорока",
    50: "пятьдесят пятидесяти",
    60: "шестьдесят шестидесяти",
    70: "семьдесят семидесяти",
    80: "восемьдесят восьмидесяти",
    90: "девяносто девяноста",
    100: "сто ста",
    200: "двести двухсот",
    300: "триста трехсот",
    400: "четыреста четырехсот",
    500: "пятьсот пятисот",
    600: "шестьсот шестисот",
    700: "семьсот семисот",
    800: "восемьсот восьмисот",
    900: "девятьсот девятисот",
}
_UK = {
    0: "нуль нуля",
    1: "один одна одне одну одного одної одним",
    2: "два дві двох двом",
    3: "три трьох трьом",
    4: "чотири чотирьох",
    5: "п'ять п'яти п'ятьох",
    6: "шість шести шістьох",
    7: "сім семи сімох",
    8: "вісім восьми вісьмох",
    9: "дев'ять дев'яти",
    10: "десять десяти",
    11: "одинадцять одинадцяти",
    12: "дванадцять дванадцяти",
    13: "тринадцять тринадцяти",
    14: "чотирнадцять чотирнадцяти",
    15: "п'ятнадцять п'ятнадцяти",
    16: "шістнадцять шістнадцяти",
    17: "сімнадцять сімнадцяти",
    18: "вісімнадцять вісімнадцяти",
    19: "дев'ятнадцять дев'ятнадцяти",
    20: "двадцять двадцяти",
    30: "тридцять тридцяти",
    40: "сорок сорока",
    50: "п'ятдесят п'ятдесяти",
    60: "шістдесят шістдесяти",
    70: "сімдесят сімдесяти",
    80: "вісімдесят вісімдесяти",
    90: "дев'яносто",
    100: "сто ста",
    200: "двісті двохсот",
    300: "триста трьохсот",
    400: "чотириста чотирьохсот",
    500: "п'ятсот п'ятисот",
    600: "шістсот шестисот",
    700: "сімсот семисот",
    800: "вісімсот восьмисот",
    900: "дев'ятсот дев'ятисот",
}
_EN = {
    0: "zero",
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
    13: "thirteen",
    14: "fourteen",
    15: "fifteen",
    16: "sixteen",
    17: "seventeen",
    18: "eighteen",
    19: "nineteen",
    20: "twenty",
    30: "thirty",
    40: "forty",
    50: "fifty",
    60: "sixty",
    70: "seventy",
    80: "eighty",
    90: "ninety",
}
NUMBER_WORDS: dict[str, tuple[int, str]] = {
    **_forms(_RU, _cls),
    **_forms(_UK, _cls),
    **_forms(_EN, _cls),
}
EN_HUNDRED = {"hundred", "hundreds"}
ONE_AND_HALF = {"полтора", "полторы", "полутора", "півтора", "півтори"}
# "полторы сотни тысяч", "дві сотні тисяч": hundreds counted as a noun, before a magnitude.
HUNDRED_NOUNS = {"сотня", "сотни", "сотню", "сотен", "сотні", "сотень"}
HALF_WORDS = {"пол", "полу", "пів", "half"}
ARTICLES = {"a", "an"}

# kind: "full" words may stand alone ("миллион рублей" = 1 000 000); "abbr" need a number
# before them; "letter" ones ("500k", "2.5m") must be glued to digits.
_MAGNITUDE_FORMS = {
    (1000, "full"): "тысяча тысячи тысячу тысяч тысячах тысячами тысячей тысяче тыща тыщи тыщу "
    "тисяча тисячі тисячу тисяч тисячах тисячами thousand thousands "
    "тища тищі тищу",  # "тищі": how Ukrainian (surzhyk) speakers write "тисячі"
    (1000, "abbr"): "тыс тыщ тис тищ",
    (1000, "letter"): "k к",
    (10**6, "full"): "миллион миллиона миллионов миллионы миллиону миллионах миллионами "
    "миллионом лям ляма лямов лямы лямах мільйон мільйона мільйонів мільйони мільйону "
    "мільйонах million millions",
    (10**6, "abbr"): "млн mln mil mio",
    (10**6, "letter"): "m",
    (10**9, "full"): "миллиард миллиарда миллиардов миллиарды миллиардах мільярд мільярда "
    "мільярдів мільярди billion billions",
    (10**9, "abbr"): "млрд bn bln mlrd",
    (10**9, "letter"): "b",
}
MAGNITUDES: dict[str, tuple[int, str]] = {
    form: key for key, forms in _MAGNITUDE_FORMS.items() for form in forms.split()
}
# Abbreviations that may carry a dot ("тыс.", "руб.") which then belongs to the amount.
DOTTED = {"тыс", "тис", "млн", "млрд", "руб", "р", "долл", "дол", "грн", "т"}

CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "₽": "RUB", "₴": "UAH"}
_CURRENCY_FORMS = {
    "RUB": "руб рубль рубля рублей рублю рублям рублями рублях рублів рублем р rub rur "
    "rubles roubles ruble rouble",
    "USD": "usd доллар доллара долларов долларах долларам долларами долл дол долар долара "
    "доларів доларах доларами dollar dollars бакс бакса баксов баксів bucks buck",
    "EUR": "eur евро euro euros євро",
    "UAH": "uah грн гривна гривны гривен гривень гривня гривні гривнях гривнами hryvnia "
    "hryvnias hryvnya",
}
CURRENCY_WORDS: dict[str, str] = {
    form: code for code, forms in _CURRENCY_FORMS.items() for form in forms.split()
}
# ISO codes may also come before the number: "USD 2500".
PREFIX_CODES = {"usd": "USD", "eur": "EUR", "rub": "RUB", "rur": "RUB", "uah": "UAH"}
PERCENT_PREFIXES = ("процент", "відсот", "percent")


# --- tokens ------------------------------------------------------------------------------

_SEP = re.escape(HSPACE_CHARS.replace("\t", "")) + ",."
_NUM = (
    r"(?<![\w.,])(?:"
    rf"(?P<g>\d{{1,3}}(?P<sep>[{_SEP}])\d{{3}}(?:(?P=sep)\d{{3}})*)(?:(?!(?P=sep))(?P<dec>[.,])(?P<frac>\d+))?"
    r"|(?P<simple>\d+(?:[.,]\d+)?)"
    r")(?![.,]?\d)"
)
_TOKEN_RE = re.compile(
    rf"(?P<num>{_NUM})|(?P<other>\d+)"
    rf"|(?P<word>[^\W\d_]+(?:[{APOSTROPHES}][^\W\d_]+)*)|(?P<ws>\s+)|(?P<sym>.)",
    re.S,
)
# A literal longer than this is an identifier or a digit soup, not an amount.
_MAX_DIGITS = 18


@dataclass(slots=True)
class Tok:
    kind: str  # "num" | "word" | "sym" | "other" (digits that are not a readable number)
    text: str
    norm: str
    start: int
    end: int
    gap: int  # whitespace characters before the token
    newline_before: bool
    num: Decimal | None = None
    # The decimal reading of "2,500" (2.5), used when a magnitude word follows it.
    num_if_magnitude: Decimal | None = None


def _literal(match: re.Match[str]) -> tuple[Decimal, Decimal | None] | None:
    simple = match.group("simple")
    if simple is not None:
        whole, _, frac = simple.replace(",", ".").partition(".")
        if len(whole) > _MAX_DIGITS or len(frac) > _MAX_DIGITS:
            return None
        return Decimal(whole + ("." + frac if frac else "")), None
    groups, sep, frac = match.group("g"), match.group("sep"), match.group("frac")
    digits = groups.replace(sep, "")
    if len(digits) > _MAX_DIGITS or (frac and len(frac) > _MAX_DIGITS):
        return None
    if sep in ",." and groups.count(sep) == 1 and frac is None:
        as_decimal = Decimal(groups.replace(sep, "."))
        if groups.startswith("0"):
            return as_decimal, None
        return Decimal(digits), as_decimal
    return Decimal(digits + ("." + frac if frac else "")), None


def tokenize(text: str) -> list[Tok]:
    """Split text into number, word and symbol tokens, remembering the whitespace between."""
    tokens: list[Tok] = []
    gap = 0
    newline = False
    for match in _TOKEN_RE.finditer(text):
        kind = match.lastgroup or "sym"
        raw = match.group(0)
        if kind == "ws":
            gap = len(raw)
            newline = "\n" in raw or "\r" in raw
            continue
        tok = Tok(kind, raw, fold(raw), match.start(), match.end(), gap, newline)
        if kind == "num":
            values = _literal(match)
            if values is None:
                tok.kind = "other"
            else:
                tok.num, tok.num_if_magnitude = values
        tokens.append(tok)
        gap = 0
        newline = False
    return tokens
