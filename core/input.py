"""Checks every entry point applies to outside input before a service or the database sees
it: text without NUL characters or lone surrogates, JSON within a nesting depth and an
integer length, dates a datetime can hold in any time zone. Imports no Django, so the mail
parser uses it too; the limits are passed in (settings INPUT_JSON_MAX_DEPTH, _INT_DIGITS)."""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, date, datetime
from typing import Any

# A date outside these is a forgery or a broken clock; inside, every time zone conversion
# stays in datetime's range (year 1 to 9999), so no later reading of it can overflow.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(3000, 1, 1, tzinfo=UTC)

# A date a person means (a deadline, a period of the studio's calendar) lies between these;
# outside them it is a typo or a probe, and the day-by-day tools would walk centuries.
DATE_EARLIEST = date(1970, 1, 1)
DATE_LATEST = date(2100, 12, 31)
# An identifier another system gives us: printable text, no control characters.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# A surrogate can reach a parsed string only as an escape (or raw, in text that was never
# UTF-8): without either, the walk looking for lone ones is skipped.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


# No word, number, phone or e-mail part is this long. A longer run of letters or digits is
# noise or an attack: the readers' patterns cost time quadratic in a run's length (8,000
# digits took 5 s of CPU per message) and int() refuses more than 4,300 digits, so readers
# see such runs blanked (long_runs_blank), and the value in them is simply not read.
LONGEST_RUN = 64
_LONG_RUN = re.compile(rf"[^\W_]{{{LONGEST_RUN + 1},}}")


def long_runs_blank(text: str) -> str:
    """The text with every run of more than LONGEST_RUN letters or digits replaced by a
    space (linear time: each run is matched once)."""
    return _LONG_RUN.sub(" ", text)


_PLAIN_INT = re.compile(r"[0-9]{1,18}")


def plain_int(value: str) -> int | None:
    """A non-negative integer written in at most 18 ASCII digits (a query parameter, a form
    field), else None: "²" passes str.isdigit() but not int(), and int() refuses more than
    4,300 digits, both with an exception that would be a 500."""
    return int(value) if _PLAIN_INT.fullmatch(value) else None


class InputError(ValueError):
    """Input refused: why, and where (a path such as "sender" or "items.2.name"; "$" for
    the whole body)."""

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def text_problem(value: str) -> str:
    """Why a text cannot be stored, or "": no PostgreSQL text holds a NUL character, and a
    lone surrogate (half of a UTF-16 pair) is not Unicode that UTF-8 can encode."""
    if "\x00" in value:
        return "must not contain NUL characters"
    if _LONE_SURROGATE.search(value):
        return "must be valid Unicode (it holds a lone surrogate)"
    return ""


def id_problem(value: str) -> str:
    """Why a text cannot be an identifier, or "": a NUL or another control character would
    be dropped or shown differently somewhere, and two ids would become one."""
    return "must not contain control characters" if _CONTROL.search(value) else ""


def date_problem(value: date) -> str:
    """Why a date cannot be one a person means, or "": it must lie within 1970-2100."""
    if not DATE_EARLIEST <= value <= DATE_LATEST:
        return f"must lie between {DATE_EARLIEST.isoformat()} and {DATE_LATEST.isoformat()}"
    return ""


def text_clean(value: str) -> str:
    """The text with NUL characters dropped and lone surrogates replaced by U+FFFD: for
    input that cannot be refused (a mail) and free text where a NUL is dropped silently."""
    value = value.replace("\x00", "")
    if _LONE_SURROGATE.search(value):
        value = _LONE_SURROGATE.sub("\ufffd", value)
    return value


def datetime_problem(value: datetime) -> str:
    """Why a date cannot be taken as a message's time ("out of range", "before 1970"), or
    "": it must have a time zone and lie between EARLIEST and LATEST."""
    try:
        if value.utcoffset() is None:
            return "without a time zone"
        utc = value.astimezone(UTC)
    except (OverflowError, ValueError):  # 9999-12-31T23:59-14:00 is in year 10000 in UTC
        return "out of range"
    if utc < EARLIEST:
        return f"out of range (before {EARLIEST.year})"
    if utc >= LATEST:
        return f"out of range (in or after {LATEST.year})"
    return ""


def _printable(key: str) -> str:
    """A key as an error may quote it (the error is JSON too, and must encode)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _nesting(text: str, limit: int) -> int:
    """How deep the brackets nest outside strings, counting no further than limit + 1: a
    linear scan, where the parser itself would recurse once per level."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    depth = deepest = 0
    for bracket in brackets:
        depth += 1 if bracket in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                break
    return deepest


def _string_problem(value: Any) -> tuple[str, str] | None:
    """(path, why) of the first string or key holding a lone surrogate; walked without
    recursion (the depth is capped already, but the walk needs no stack either way)."""
    pending: list[tuple[str, Any]] = [("$", value)]
    while pending:
        path, item = pending.pop()
        prefix = "" if path == "$" else f"{path}."
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return path, "must be valid Unicode (it holds a lone surrogate)"
        elif isinstance(item, dict):
            for key, child in item.items():
                if _LONE_SURROGATE.search(key):
                    return f"{prefix}{_printable(key)}", "the key is not valid Unicode"
                pending.append((f"{prefix}{key}", child))
        elif isinstance(item, list):
            pending.extend((f"{prefix}{index}", child) for index, child in enumerate(item))
    return None


def json_parse(data: bytes | str, *, max_depth: int, max_int_digits: int) -> Any:
    """A JSON body parsed within limits, or InputError saying what is wrong and where.

    Refused besides bad syntax: nesting deeper than `max_depth` (the standard parser would
    recurse until RecursionError), an integer of more than `max_int_digits` digits (Python
    refuses over 4,300 with a ValueError of its own), NaN, Infinity and numbers beyond a
    float (no JSON column stores them), and lone surrogates in strings or keys."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("the body is not UTF-8") from None
    if _nesting(data, max_depth) > max_depth:
        raise InputError(f"the JSON nests deeper than {max_depth} levels")

    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > max_int_digits:
            raise InputError(f"an integer has more than {max_int_digits} digits")
        return int(digits)

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise InputError(f"the number {text[:40]} is out of range")
        return value

    def constant(name: str) -> None:
        raise InputError(f"the body is not JSON: {name} is not a JSON value")

    try:
        value = json.loads(data, parse_int=integer, parse_float=number, parse_constant=constant)
    except json.JSONDecodeError as error:
        raise InputError(f"the body is not JSON: {error.msg} at {error.pos}") from None
    except RecursionError:  # unreachable past the scan; kept so it can never be a 500
        raise InputError(f"the JSON nests deeper than {max_depth} levels") from None
    if _SURROGATE_ESCAPE.search(data) or _LONE_SURROGATE.search(data):
        found = _string_problem(value)
        if found:
            raise InputError(found[1], path=found[0])
    return value
