"""Quantities as people write them in Russian, Ukrainian and English: digits with any
grouping, decimal commas, number words, magnitude words ("тыс", "млн", "k") and currencies.

`parse_number` reads a whole string as one quantity (schema coercion). The amount parser
below and the tokenizer in `tokens` are shared with `money.find_money`, which scans free text.

Separator rules (documented, because "2,500" is ambiguous):
- spaces (also no-break, narrow no-break and thin spaces) between groups of three digits
  are thousands separators: "1 000 000";
- with both "," and "." the last one is the decimal mark: "1,234.5", "1.234,5";
- one "," or "." followed by exactly three digits is a thousands separator ("2,500" → 2500)
  unless a magnitude word follows ("2,500 млн" → 2.5 million) or the number starts with 0;
- any other single "," or "." is a decimal mark: "1,5" → 1.5, "2.25" → 2.25.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, localcontext

from llmkit.extract.tokens import (
    ARTICLES,
    CURRENCY_SYMBOLS,
    CURRENCY_WORDS,
    DOTTED,
    EN_HUNDRED,
    HALF_WORDS,
    HUNDRED_NOUNS,
    HUNDREDS,
    MAGNITUDES,
    NUMBER_WORDS,
    ONE_AND_HALF,
    PERCENT_PREFIXES,
    PREFIX_CODES,
    TEEN,
    TEN,
    UNIT,
    Tok,
    tokenize,
)

# --- quantities --------------------------------------------------------------------------

_NEXT_WORD_OK: dict[str | None, set[str]] = {
    None: {UNIT, TEEN, TEN, HUNDREDS},
    HUNDREDS: {UNIT, TEEN, TEN},
    TEN: {UNIT},
    UNIT: set(),
    TEEN: set(),
}


@dataclass(slots=True)
class Quantity:
    """One reading of a quantity starting at some token (the parser keeps every prefix)."""

    value: Decimal
    base: Decimal  # the number the last magnitude multiplied ("500" in "500 тыс")
    magnitude: int  # that magnitude, 1 when none applies
    next: int  # index of the first token after the quantity
    has_number: bool  # digits or number words, not only a bare "миллион"
    letter_magnitude: bool  # "4k", "5m": a single glued letter did the scaling
    scaled: bool  # some magnitude applies ("тысяча двести" is scaled, its tail is not)
    # A last group without a magnitude after one that had it: "тысяча двести", "5 млн 3".
    tail_after_magnitude: bool
    tail_is_literal: bool  # that group is digits ("5 млн 3"), not words


def _joined(tokens: list[Tok], k: int) -> bool:
    """Token k continues the quantity: on the same line."""
    return not tokens[k].newline_before


def _magnitude_at(tokens: list[Tok], k: int) -> tuple[int, str, int] | None:
    """(multiplier, kind, next index) for a magnitude word at k, its dot included."""
    tok = tokens[k]
    if tok.kind != "word" or tok.norm not in MAGNITUDES:
        return None
    multiplier, kind = MAGNITUDES[tok.norm]
    nxt = k + 1
    if (
        tok.norm in DOTTED
        and nxt < len(tokens)
        and tokens[nxt].text == "."
        and tokens[nxt].gap == 0
    ):
        nxt += 1
    return multiplier, kind, nxt


def _half_magnitude_at(tokens: list[Tok], k: int) -> tuple[int, int] | None:
    """ "полмиллиона", "пів мільйона", "пол-ляма", "half a million" → (multiplier, next)."""
    tok = tokens[k]
    if tok.kind != "word":
        return None
    for prefix in ("пол", "пів"):
        rest = tok.norm[len(prefix) :]
        if tok.norm.startswith(prefix) and rest in MAGNITUDES and MAGNITUDES[rest][1] != "letter":
            return MAGNITUDES[rest][0], k + 1
    if tok.norm not in HALF_WORDS:
        return None
    j = k + 1
    if j < len(tokens) and tokens[j].text in "-\u2010" and tokens[j].gap == 0:
        j += 1
    if j < len(tokens) and tokens[j].norm in ARTICLES and _joined(tokens, j):
        j += 1
    if j < len(tokens) and _joined(tokens, j):
        magnitude = _magnitude_at(tokens, j)
        if magnitude is not None and magnitude[1] != "letter":
            return magnitude[0], magnitude[2]
    return None


def _joins_words(tokens: list[Tok], k: int, state: str | None) -> bool:
    """A glued hyphen between words ("twenty-five", "пол-миллиона") or an English "and"
    ("two hundred and fifty") continues the quantity instead of ending it."""
    tok, before, after = tokens[k], tokens[k - 1], tokens[k + 1]
    if tok.text in "-\u2010" and tok.gap == 0 and after.gap == 0:
        return before.kind == "word" and after.kind == "word"
    return tok.norm == "and" and state in (HUNDREDS, "magnitude") and after.norm in NUMBER_WORDS


def parse_quantity(tokens: list[Tok], i: int) -> list[Quantity]:
    """Every valid reading of a quantity that starts at token i, shortest first.

    Classic number-word composition extended to digits: groups of (number, magnitude)
    with strictly falling magnitudes ("1 млн 200 тыс", "two million five hundred
    thousand"), an optional last group without one ("тысяча двести").
    """
    readings: list[Quantity] = []
    n = len(tokens)
    with localcontext() as ctx:
        ctx.prec = 60
        total = Decimal(0)
        current: Decimal | None = None
        pending: Tok | None = None  # a digit literal that a magnitude may still scale
        closed = False  # after digits or "полтора" only a magnitude may follow
        state: str | None = None
        last_magnitude: int | None = None
        base, magnitude = Decimal(0), 1
        has_number = letter = False
        elements = 0
        k = i
        while k < n:
            tok = tokens[k]
            if elements and not _joined(tokens, k):
                break
            if elements and k + 1 < n and _joins_words(tokens, k, state):
                k += 1
                continue
            step = k + 1
            if tok.kind == "num":
                if current is not None or closed:
                    break
                current, pending, closed = tok.num, tok, True
                has_number = True
            elif tok.kind != "word":
                break
            elif tok.norm in MAGNITUDES:
                multiplier, kind, step = _magnitude_at(tokens, k) or (1, "", k + 1)
                if last_magnitude is not None and multiplier >= last_magnitude:
                    break
                if kind == "letter" and (pending is None or tok.gap != 0 or current is None):
                    break
                if current is None:
                    if elements or kind != "full":
                        break
                    current = Decimal(1)
                if pending is not None and pending.num_if_magnitude is not None:
                    current = pending.num_if_magnitude
                total += current * multiplier
                base, magnitude, last_magnitude = current, multiplier, multiplier
                letter = kind == "letter"
                current, pending, closed, state = None, None, False, "magnitude"
            elif elements == 0 and (half := _half_magnitude_at(tokens, k)) is not None:
                multiplier, step = half
                total = Decimal("0.5") * multiplier
                base, magnitude, last_magnitude = Decimal("0.5"), multiplier, multiplier
                has_number, state = True, "magnitude"
            elif tok.norm in ONE_AND_HALF:
                if current is not None or closed:
                    break
                current, closed, has_number = Decimal("1.5"), True, True
            elif tok.norm in ARTICLES:
                # "a million", "a hundred": only as the first word, before a magnitude.
                if elements or k + 1 >= n or not _joined(tokens, k + 1):
                    break
                following = tokens[k + 1].norm
                if following not in EN_HUNDRED and MAGNITUDES.get(following, (0, ""))[1] != "full":
                    break
                current, state, has_number = Decimal(1), UNIT, True
            elif tok.norm in HUNDRED_NOUNS:
                if current is None or current >= 10 or state == "magnitude":
                    break
                current *= 100
            elif tok.norm in EN_HUNDRED:
                if closed or current is None or state not in (UNIT, TEEN):
                    break
                current *= 100
                state = HUNDREDS
            elif tok.norm in NUMBER_WORDS:
                value, cls = NUMBER_WORDS[tok.norm]
                allowed = _NEXT_WORD_OK.get(None if state == "magnitude" else state, set())
                if closed or cls not in allowed:
                    break
                current = (current or Decimal(0)) + value
                state, has_number = cls, True
            else:
                break
            elements += 1
            k = step
            if tok.norm in ARTICLES:
                continue  # "a" alone is not a quantity yet
            readings.append(
                Quantity(
                    value=total + (current or 0),
                    base=current if current is not None else base,
                    magnitude=1 if current is not None else magnitude,
                    next=k,
                    has_number=has_number,
                    letter_magnitude=letter and current is None,
                    scaled=last_magnitude is not None,
                    tail_after_magnitude=current is not None and last_magnitude is not None,
                    tail_is_literal=pending is not None,
                )
            )
    return readings


# --- amounts (quantity + currency) -------------------------------------------------------


@dataclass(slots=True)
class Amount:
    value: Decimal
    base: Decimal
    magnitude: int
    currency: str | None
    first: int  # token index
    next: int  # token index after the amount
    start: int  # character offsets of the evidence
    end: int
    scaled: bool  # a magnitude word applies: a money cue on its own
    has_number: bool
    letter_magnitude: bool


def _prefix_currency(tokens: list[Tok], k: int) -> tuple[str, int] | None:
    tok = tokens[k]
    if tok.kind == "sym" and tok.text in CURRENCY_SYMBOLS:
        return CURRENCY_SYMBOLS[tok.text], k + 1
    if tok.kind == "word" and tok.norm in PREFIX_CODES:
        return PREFIX_CODES[tok.norm], k + 1
    glued_dollar = k + 1 < len(tokens) and tokens[k + 1].text == "$" and tokens[k + 1].gap == 0
    if tok.norm == "us" and glued_dollar:
        return "USD", k + 2
    return None


def suffix_currency(tokens: list[Tok], k: int) -> tuple[str, int, int] | None:
    """(currency, next index, extra multiplier) for a currency written after an amount."""
    n = len(tokens)
    if k >= n or not _joined(tokens, k):
        return None
    tok = tokens[k]

    def dotted(j: int) -> int:
        if j < n and tokens[j].text == "." and tokens[j].gap == 0:
            return j + 1
        return j

    if tok.kind == "sym" and tok.text in CURRENCY_SYMBOLS:
        return CURRENCY_SYMBOLS[tok.text], k + 1, 1
    if tok.kind != "word":
        return None
    if tok.norm in ("тр", "тыр"):  # "тысяч рублей", colloquial
        return "RUB", dotted(k + 1), 1000
    if tok.norm == "т" and k + 2 < n and tokens[k + 1].text == ".":
        # "т.р." / "т. р.": thousands of roubles.
        after = tokens[k + 2]
        if tokens[k + 1].gap == 0 and after.norm == "р" and after.gap <= 1:
            return "RUB", dotted(k + 3), 1000
        return None
    if tok.norm == "us" and k + 1 < n and tokens[k + 1].text == "$" and tokens[k + 1].gap == 0:
        return "USD", k + 2, 1
    dollars_after = k + 1 < n and tokens[k + 1].norm in ("dollar", "dollars")
    if tok.norm in ("us", "american", "usa") and dollars_after:
        return "USD", k + 2, 1  # "6 500 us dollars", "ten thousand american dollars"
    code = CURRENCY_WORDS.get(tok.norm)
    if code is None:
        return None
    if tok.norm == "р":
        # A lone "р" is a rouble only glued to the number or with its dot ("500р", "500 р.").
        following_dot = k + 1 < n and tokens[k + 1].text == "." and tokens[k + 1].gap == 0
        if tok.gap != 0 and not following_dot:
            return None
    return code, dotted(k + 1) if tok.norm in DOTTED else k + 1, 1


def _tail_accepted(tokens: list[Tok], reading: Quantity, *, whole: bool) -> bool:
    """Whether a magnitude-less last group belongs to an amount that has no currency after it.

    "5 млн 3 ролика": the 3 counts videos, so a digit tail needs a currency. A word tail
    ("тысяча двести") is kept when the whole string is the number, and in free text unless
    a word follows it ("два миллиона два ролика").
    """
    if not reading.tail_after_magnitude:
        return True
    if reading.tail_is_literal:
        return False
    if whole:
        return True
    after = reading.next
    return after >= len(tokens) or not _joined(tokens, after) or tokens[after].kind != "word"


def parse_amount(tokens: list[Tok], i: int, *, whole: bool = False) -> Amount | None:
    """The longest amount (optional currency before, a quantity, optional currency after)
    that starts at token i, or None. `whole`: the tokens are one answer, not free text."""
    n = len(tokens)
    prefix_code: str | None = None
    k = i
    prefix = _prefix_currency(tokens, k)
    if prefix is not None:
        prefix_code, k = prefix
        if k >= n or not _joined(tokens, k):
            return None
    readings = parse_quantity(tokens, k)
    for reading in reversed(readings):
        value = reading.value
        after = reading.next
        currency = prefix_code
        suffix = suffix_currency(tokens, after)
        if suffix is not None and (currency is None or currency == suffix[0]):
            code, after, extra = suffix
            if extra != 1:
                if reading.magnitude != 1 or reading.tail_after_magnitude:
                    suffix = None  # "5 тыс т.р." makes no sense: leave the suffix out
                    after = reading.next
                else:
                    value *= extra
            if suffix is not None:
                currency = code
        else:
            suffix = None
        if suffix is None and not _tail_accepted(tokens, reading, whole=whole):
            continue
        last = tokens[after - 1]
        end = last.end
        if last.text == "." and after - 2 >= i:
            # An abbreviation's dot at the end may be the full stop: keep it out of the evidence.
            end = tokens[after - 2].end
        magnitude = reading.magnitude
        base = reading.base
        if suffix is not None and suffix[2] != 1:
            magnitude, base = suffix[2], reading.value
        return Amount(
            value=value,
            base=base,
            magnitude=magnitude,
            currency=currency,
            first=i,
            next=after,
            start=tokens[i].start,
            end=end,
            scaled=reading.scaled or magnitude != 1,
            has_number=reading.has_number,
            letter_magnitude=reading.letter_magnitude,
        )
    return None


def is_percent(tokens: list[Tok], k: int) -> bool:
    if k >= len(tokens) or not _joined(tokens, k):
        return False
    tok = tokens[k]
    return tok.text == "%" or (tok.kind == "word" and tok.norm.startswith(PERCENT_PREFIXES))


def to_python(value: Decimal) -> int | float:
    """int when integral (1.5 млн → 1500000), float otherwise."""
    if value == value.to_integral_value():
        return int(value)
    return float(value)


# --- parse_number ------------------------------------------------------------------------

_QUALIFIERS_BEFORE = (
    "около|примерно|приблизительно|ориентировочно|порядка|где-то|где то|в районе|в пределах|"
    "в рамках|не более чем|не более|не больше|не менее|не меньше|до|от|максимум|минимум|всего|"
    "близько|приблизно|орієнтовно|десь|не більше|не менше|від|мінімум|"
    "about|around|approximately|approx|roughly|circa|up to|at least|at most|under|below|"
    "over|above|more than|less than|max|min"
)
_LEAD = re.compile(
    rf"^(?:(?:{_QUALIFIERS_BEFORE})(?![^\W\d_])\.?|[~≈±<>≤≥=:—–]|\+/-)\s*", re.IGNORECASE
)
_QUALIFIERS_AFTER = (
    "примерно|приблизительно|ориентировочно|максимум|минимум|или около того|около того|"
    "или больше|или меньше|и больше|и выше|приблизно|або більше|максимум|мінімум|"
    "or so|or more|or less|max|min|approx|roughly|tops"
)
_TRAIL = re.compile(
    rf"(?:\s+(?:{_QUALIFIERS_AFTER})|\s*\+|\s*[.!?,;:)\]]|\s*\+/-\s*\d*%?)$", re.IGNORECASE
)
_DIGITS_ONLY = re.compile(r"[0-9]+")
_MINUS = re.compile(r"^[-\u2212](?=\s*\d)")
# parse_number reads answers to one question, not documents: long text is not a quantity.
_MAX_PARSE_CHARS = 200


def parse_number(text: str) -> int | float | None:
    """Read the WHOLE string as one quantity, or None if it is not one.

    "около 500 тыс" → 500000, "1,5 млн" → 1500000, "полмиллиона" → 500000, "$2,500" →
    2500, "2.5k" → 2500, "500 тыс. руб." → 500000, "два миллиона" → 2000000, "12%" → 12.
    Qualifiers ("около", "до", "up to", "max", "+") are dropped; ranges ("от 100 до 200
    тыс", "100-200") and anything with other words left over give None. The currency is
    ignored (use `find_money` to keep it). int when integral, else float.
    """
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    if _DIGITS_ONLY.fullmatch(stripped):
        try:
            return int(stripped)
        except ValueError:  # beyond Python's int/str conversion limit
            return None
    if not stripped or len(stripped) > _MAX_PARSE_CHARS:
        return None
    previous = None
    while previous != stripped:
        previous = stripped
        stripped = _LEAD.sub("", stripped)
        stripped = _TRAIL.sub("", stripped).strip()
    negative = False
    if _MINUS.match(stripped):
        negative = True
        stripped = stripped[1:].lstrip()
    tokens = tokenize(stripped)
    if not tokens:
        return None
    amount = parse_amount(tokens, 0, whole=True)
    if amount is None:
        return None
    k = amount.next
    if is_percent(tokens, k):
        k += 1
    if k != len(tokens):
        return None
    value = to_python(amount.value)
    return -value if negative else value


__all__ = ["parse_number"]
