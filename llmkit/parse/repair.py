"""Layer 3, syntax repair with json-repair, under a size cap and a time limit."""

from __future__ import annotations

import ast
import math
import re
import threading
from typing import Any

import json_repair

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


def _keep_strings(match: re.Match[str]) -> str:
    return match.group("string") or ""


def quick_repair(text: str) -> Any:
    """Trailing commas and comments removed, then strict parsing; None when that is not
    enough (quotes, truncation, unquoted keys are json-repair's work)."""
    if len(text) > INLINE_CHARS or text.count("/*") > MAX_BLOCK_COMMENTS:
        return None  # an unclosed "/*" scans to the end: keep the regex pass linear
    if ("," not in text and "/" not in text) or ("'" in text and '"' not in text):
        return None  # nothing this pass could fix, or single-quoted JSON
    fixed = _QUICK_FIXES.sub(_keep_strings, text)
    if fixed == text:
        return None
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


def python_literal(text: str) -> Any:
    """A Python-style dict read as a literal (never evaluated as code); None unless the
    result is made of JSON types only."""
    if "'" not in text or len(text) > INLINE_CHARS:
        return None
    try:
        value = ast.literal_eval(_PY_LITERALS.sub(_python_literal, text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) and _json_shaped(value) else None


# Tokens of a JSON text cut off mid-way: complete strings, a string left open at the end,
# punctuation, bare words (numbers, literals), whitespace.
_TOKENS = re.compile(
    r'(?P<string>"(?:[^"\\]|\\.)*")|(?P<open_string>"(?:[^"\\]|\\.)*\\?\Z)'
    r'|[{}\[\]:,]|[^\s{}\[\]:,"]+|\s+',
    re.DOTALL,
)
_ATOM = re.compile(r"true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_CLOSERS = {"{": "}", "[": "]"}


def close_truncated(text: str) -> Any:
    """Finish an answer the model stopped writing mid-way (max_tokens, a cut stream):
    close an open string, drop a dangling key, colon, comma or half-written word, and
    close every open bracket. None when that does not yield strict JSON."""
    if len(text) > INLINE_CHARS:
        return None
    tokens: list[tuple[str, str]] = []
    stack: list[str] = []
    for match in _TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        if first in "{[":
            stack.append(first)
            tokens.append(("open", token))
        elif first in "}]":
            if not stack or _CLOSERS[stack.pop()] != first:
                return None
            tokens.append(("close", token))
        elif first in ":,":
            tokens.append((first, token))
        elif first == '"':
            if match.lastgroup == "open_string":
                # An open string: keep what was written of a value, drop half a key.
                token = token.removesuffix("\\") + '"'
                if stack and stack[-1] == "{" and tokens and tokens[-1][0] in ("open", ","):
                    continue
            tokens.append(("string", token))
        elif not first.isspace():
            tokens.append(("atom", token))
    if not stack:
        return None
    while tokens:
        kind = tokens[-1][0]
        dangling_key = (
            kind == "string" and stack[-1] == "{" and tokens[-2][0] in ("open", ",")
            if len(tokens) > 1
            else False
        )
        half_word = kind == "atom" and not _ATOM.fullmatch(tokens[-1][1])
        if kind in (",", ":") or dangling_key or half_word:
            tokens.pop()
        else:
            break
    closed = "".join(token for _, token in tokens) + "".join(_CLOSERS[c] for c in reversed(stack))
    try:
        return loads_strict(closed)
    except JsonRejected:
        return None


class RepairFailed(ValueError):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _repair(text: str) -> Any:
    # The pipeline only gets here after json.loads failed; do not let json-repair retry it.
    return json_repair.repair_json(text, return_objects=True, skip_json_loads=True)


def repair(
    text: str,
    *,
    closed: bool = True,
    max_chars: int = MAX_REPAIR_CHARS,
    time_limit_s: float = TIME_LIMIT_S,
) -> Any:
    """Repair trailing commas, single quotes, comments, unquoted keys and truncation.

    `closed` says whether `text` is a balanced span (then the quick fix for commas and
    comments, and the Python-literal reading, are tried first) or a truncated tail (then
    closing it is tried first); what those cannot fix goes to json-repair. Raises
    RepairFailed when the input is over the cap, runs past the time limit, or json-repair
    itself gives up.
    """
    if len(text) > max_chars:
        raise RepairFailed("too_large", f"{len(text)} characters, the repair cap is {max_chars}")
    if closed:
        fixed = quick_repair(text)
        if fixed is None:
            fixed = python_literal(text)
    else:
        fixed = close_truncated(text)
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
