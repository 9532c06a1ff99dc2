"""Layer 3, syntax repair with json-repair, under a size cap and a time limit."""

from __future__ import annotations

import ast
import math
import re
import threading
from typing import Any

import json_repair

from llmkit.parse.extraction import continues_after
from llmkit.parse.fast import JsonRejected, loads_strict

MAX_REPAIR_CHARS = 200_000
# json-repair is pure Python and roughly linear; below this size it finishes in a few
# milliseconds, so it runs inline. Larger inputs run in a worker thread we stop waiting for.
INLINE_CHARS = 16_000
TIME_LIMIT_S = 2.0
MAX_BLOCK_COMMENTS = 16


# The two most common defects, trailing commas and comments, fixed by one string-aware
# regex pass (strings are matched first and kept as they are), then parsed by the C
# decoder: a fraction of json-repair's cost for the same result on these answers.
_QUICK_FIXES = re.compile(
    r'(?P<string>"(?:[^"\\\n]|\\.)*")|,(?=\s*[}\]])|//[^\n]*|/\*.*?\*/', re.DOTALL
)
# What the pass above could fix, looked for without minding strings: one C-speed search
# spares the string-aware pass on answers with neither defect.
_MAYBE_QUICK_FIX = re.compile(r",\s*[}\]]|/[/*]")
_JSON_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# A character outside strings that no JSON number or literal holds: a bare word.
_BARE = re.compile(r"[^\s\d{}\[\]:,+\-.eEtrufalsn]")


def _keep_strings(match: re.Match[str]) -> str:
    return match.group("string") or ""


def quick_repair(text: str) -> Any:
    """Trailing commas and comments removed, then strict parsing; None when that is not
    enough (quotes, truncation, unquoted keys are json-repair's work)."""
    if len(text) > INLINE_CHARS or text.count("/*") > MAX_BLOCK_COMMENTS:
        return None  # an unclosed "/*" scans to the end: keep the regex pass linear
    if ("'" in text and '"' not in text) or not _MAYBE_QUICK_FIX.search(text):
        return None  # nothing this pass could fix, or single-quoted JSON
    fixed = _QUICK_FIXES.sub(_keep_strings, text)
    if fixed == text or _BARE.search(_JSON_STRINGS.sub("", fixed)):
        return None  # nothing fixed, or a bare word left: not JSON, json-repair's work
    try:
        return loads_strict(fixed)
    except JsonRejected:
        return None


# Python-style dicts ({'a': 'x', 'ok': True}) are what small models write most after JSON.
# Literals outside strings are mapped to Python's, then the C parser reads the text.
_PY_LITERALS = re.compile(
    r"(?P<string>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")|\b(?:true|false|null)\b"
)
_TO_PYTHON = {"true": "True", "false": "False", "null": "None"}
_JSON_SCALARS = (str, int, float, bool, type(None))


def _python_literal(match: re.Match[str]) -> str:
    return match.group("string") or _TO_PYTHON[match.group()]


def _json_shaped(value: Any, depth: int = 0) -> bool:
    if isinstance(value, dict):
        return depth < 64 and all(
            isinstance(k, str) and _json_shaped(v, depth + 1) for k, v in value.items()
        )
    if isinstance(value, list):
        return depth < 64 and all(_json_shaped(item, depth + 1) for item in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, _JSON_SCALARS)


# What a Python dict of JSON values can be made of: quoted strings, numbers, the six
# literal words, brackets and punctuation. A text of anything else is declined by one
# C-speed match instead of a failed parse (possessive, so a miss never backtracks).
_PY_SHAPE = re.compile(
    r"(?:'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
    r"|[-+]?\d[\w.+-]*+|True|False|None|true|false|null|[\s{}\[\]:,]++)*+"
)


def python_literal(text: str) -> Any:
    """A Python-style dict read as a literal (never evaluated as code); None unless the
    result is made of JSON types only."""
    if "'" not in text or len(text) > INLINE_CHARS or not _PY_SHAPE.fullmatch(text):
        return None
    try:
        value = ast.literal_eval(_PY_LITERALS.sub(_python_literal, text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) and _json_shaped(value) else None


# Strings (the last may be left open: no closing quote) and brackets of a JSON text cut
# off mid-way, and any character outside strings that no JSON number or literal holds (a
# bare word: the text is not JSON, the close would fail). A string is one match read in C:
# the scan costs a step per string and bracket, whatever their length.
_STRINGS_AND_BRACKETS = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*(?P<closing>")?|[{}\[\]]|(?P<bare>[^\s\d{}\[\]:,+\-.eEtrufalsn])',
    re.DOTALL,
)
_CLOSERS = {"{": "}", "[": "]"}
# In a string left open, these may have been meant as structure (`{"key": "value}` is
# most likely a forgotten quote before the brace; after `, word:` json-repair may start a
# new member), so where the string ends is a guess.
_AMBIGUOUS_IN_OPEN_STRING = re.compile(r"[{}\[\]`]|,\s*[\w-]+\s*:")
# Whitespace at the cut, written or escaped, is not content (json-repair drops it too).
_TRAILING_SPACE = re.compile(r"(?:\s|\\[nrt])+\Z")


def close_truncated(text: str) -> Any:
    """Finish an answer the model stopped writing mid-way (max_tokens, a cut stream):
    close an open value string and every open bracket, drop a trailing comma, and drop a
    key cut before its value where json-repair drops it too (in an object not held by an
    array).

    None when that does not yield strict JSON, and whenever finishing it would guess at
    something written: a dangling colon, a half-written word, a value begun with nothing
    in it, a string left open that holds a bracket, brace, backtick or what could start a
    new member (json-repair decides those, keeping what it can).
    """
    if len(text) > INLINE_CHARS:
        return None
    stack: list[str] = []
    last_string = None
    for match in _STRINGS_AND_BRACKETS.finditer(text):
        char = text[match.start()]
        if match.lastgroup == "bare":
            return None
        if char == '"':
            last_string = match
        elif char in "{[":
            stack.append(char)
        elif not stack or _CLOSERS[stack.pop()] != char:
            return None
    if not stack:
        return None
    # A key is dropped as json-repair drops it: in an object that no array holds.
    key_droppable = stack[-1] == "{" and (len(stack) == 1 or stack[-2] == "{")
    if last_string is not None and last_string.group("closing") is None:
        before = text[: last_string.start()].rstrip()
        content = _TRAILING_SPACE.sub("", text[last_string.start() + 1 :])
        escapes = len(content) - len(content.rstrip("\\"))
        if escapes % 2 or _AMBIGUOUS_IN_OPEN_STRING.search(content):
            return None
        if before.endswith(":") or (stack[-1] == "[" and before[-1:] in ("[", ",")):
            if not content or content.endswith(","):
                return None  # nothing of the value written yet, or a comma json-repair reads
            kept = f'{text[: last_string.start()]}"{content}"'
        elif key_droppable and ":" not in content:
            kept = before  # half a key
        else:
            return None
    else:
        kept = text.rstrip()
        if (
            last_string is not None
            and last_string.end() == len(kept)
            and stack[-1] == "{"
            and text[: last_string.start()].rstrip().endswith(("{", ","))
        ):  # a whole key with no colon yet
            if not key_droppable:
                return None
            kept = text[: last_string.start()].rstrip()
    if kept.endswith(","):
        kept = kept[:-1].rstrip()
    if kept.endswith((":", ",", "{", "[")):
        return None  # a key with no value yet, or a value begun with nothing in it
    try:
        return loads_strict(kept + "".join(_CLOSERS[c] for c in reversed(stack)))
    except JsonRejected:
        return None


class RepairFailed(ValueError):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _repair(text: str) -> Any:
    # The pipeline only gets here after json.loads failed; do not let json-repair retry it.
    return json_repair.repair_json(text, return_objects=True, skip_json_loads=True)


def _single_quoted(text: str) -> bool:
    """Whether the first quote of `text` is a single one (a Python-style dict)."""
    single = text.find("'")
    return single != -1 and text.find('"', 0, single) == -1


def might_read_quickly(text: str) -> bool:
    """Whether a quick reading could answer for an object that does not read strictly:
    one cheap check for each (brackets left open, a trailing comma or a comment, a
    single quote first). False means only json-repair can read it."""
    return (
        text.count("{") > text.count("}")
        or text.count("[") > text.count("]")
        or _MAYBE_QUICK_FIX.search(text) is not None
        or _single_quoted(text)
    )


def repair(
    text: str,
    *,
    closed: bool = True,
    start: int = 0,
    span_end: int | None = None,
    quick: bool = True,
    max_chars: int = MAX_REPAIR_CHARS,
    time_limit_s: float = TIME_LIMIT_S,
) -> Any:
    """Repair trailing commas, single quotes, comments, unquoted keys and truncation.

    `text` is the whole answer and its object starts at `start`. `closed` says whether a
    balanced span starts there (ending at `span_end`, or the end of `text`): then the quick
    readings are tried on that span first, the fix for commas and comments and the
    Python-literal reading. Otherwise the object is cut off, and closing it is tried first.
    Each quick reading reads its input under a strict grammar (JSON, less comments and
    trailing commas, or Python literals; a cut answer less a trailing comma or half a key,
    as json-repair drops them) or declines: it answers only where json-repair would read
    the same or lose something. A
    span followed by a comma never answers alone (`{"a": 1}, "b": 2}` is one object).
    What they decline, json-repair reads, once, from the whole answer as it would alone;
    `quick=False` goes to it straight away (the caller knows no quick reading applies).
    Raises RepairFailed when the input is over the cap, runs past the time limit, or
    json-repair itself gives up.
    """
    if len(text) > max_chars:
        raise RepairFailed("too_large", f"{len(text)} characters, the repair cap is {max_chars}")
    fixed = None
    if quick and not closed:
        fixed = close_truncated(text[start:])
    elif quick and (span_end is None or not continues_after(text, span_end)):
        span = text[start:span_end]
        fixed = quick_repair(span)
        if fixed is None and _single_quoted(span):
            fixed = python_literal(span)
    if fixed is not None:
        return fixed
    if len(text) <= INLINE_CHARS:
        try:
            return _repair(text)
        except (ValueError, RecursionError, IndexError, TypeError) as error:
            raise RepairFailed("repair_failed", f"json-repair gave up: {error}") from None
    result: list[Any] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            result.append(_repair(text))
        except Exception as error:  # reported to the caller below, never lost
            failure.append(error)

    worker = threading.Thread(target=work, name="json-repair", daemon=True)
    worker.start()
    worker.join(time_limit_s)
    if worker.is_alive():
        raise RepairFailed("repair_timeout", f"repair ran past {time_limit_s} s")
    if failure:
        raise RepairFailed("repair_failed", f"json-repair gave up: {failure[0]}")
    return result[0]
