"""How the bytes of a mail body or header become text: the declared charset, checked, or a
guess between cp1251, koi8-r, utf-8 and cp1252 by Russian letter frequencies."""

from __future__ import annotations

import codecs
import contextlib
import math
import re
import unicodedata
from dataclasses import dataclass

# Letter frequencies of Russian prose (%), the yardstick that tells cp1251 from koi8-r: read
# through the wrong table, the same bytes turn into rare letters with the case flipped.
_RUSSIAN_LETTER_PERCENT = {
    "о": 10.97, "е": 8.45, "а": 8.01, "и": 7.35, "н": 6.70, "т": 6.26, "с": 5.47,
    "р": 4.73, "в": 4.54, "л": 4.40, "к": 3.49, "м": 3.21, "д": 2.98, "п": 2.81,
    "у": 2.62, "я": 2.01, "ы": 1.90, "ь": 1.74, "г": 1.70, "з": 1.65, "б": 1.59,
    "ч": 1.44, "й": 1.21, "х": 0.97, "ж": 0.94, "ш": 0.73, "ю": 0.64, "ц": 0.48,
    "щ": 0.36, "э": 0.32, "ф": 0.26, "ъ": 0.04, "ё": 0.04,
}  # fmt: skip
_CYRILLIC_LOG_FREQUENCY = {
    letter: math.log(percent / 100) for letter, percent in _RUSSIAN_LETTER_PERCENT.items()
}
_RARE_CYRILLIC = math.log(0.0002)
_CAPS_PENALTY = 0.5

# Declared charsets that are often wrong and that the heuristic may overrule. Anything else
# (utf-16, gb2312, iso-2022-jp, ...) is trusted whenever it decodes without errors.
_GUESSABLE_CODECS = frozenset(
    {
        "utf-8", "ascii", "iso8859-1", "cp1252", "iso8859-15",
        "cp1251", "koi8-r", "koi8-u", "iso8859-5", "cp866", "mac-cyrillic",
    }
)  # fmt: skip
# On a tie the earlier one wins; cp1252 is there so that undeclared French or German mail
# is not read as Cyrillic.
_DETECTED_CODECS = ("cp1251", "koi8-r", "utf-8", "cp1252")
_SCORE_SAMPLE_BYTES = 32_768  # enough to tell the tables apart; keeps 5 MB bodies fast
_LETTER_RUN_OR_CHAR = re.compile(r"[^\W\d_]+|.", re.DOTALL)


@dataclass
class GuessBudget:
    """How many more bytes one mail may score while guessing charsets. Scoring costs a few
    microseconds a byte; without a budget a mail of a thousand small parts (or part names)
    pays that for every one. Once spent, the mail's last guess (or the declared charset, or
    cp1251) is taken without scoring."""

    bytes_left: int
    last_guess: str | None = None


def _codec_name(charset: str | None) -> str | None:
    """Python's canonical name for a declared charset, None when missing or unknown."""
    if not charset:
        return None
    try:
        info = codecs.lookup(charset.strip().strip("\"'"))
    except (LookupError, ValueError, TypeError):
        return None
    if not getattr(info, "_is_text_encoding", True):  # base64, zlib, rot13 ...
        return None
    return info.name


def _word_score(word: str) -> float:
    """How plausible a run of letters is as prose; only its non-ASCII letters count, since
    ASCII reads the same through every candidate table."""
    ascii_letters = sum(1 for char in word if char.isascii())
    cyrillic = sum(1 for char in word if "\u0400" <= char <= "\u04ff")
    other = len(word) - ascii_letters - cyrillic
    score = 0.0
    previous_lower = previous_upper = False
    for char in word:
        if not char.isascii():
            if "\u0400" <= char <= "\u04ff":
                score += _CYRILLIC_LOG_FREQUENCY.get(char.lower(), _RARE_CYRILLIC)
                if ascii_letters or other:
                    score -= 4.0  # Latin and Cyrillic inside one word: a wrong table
            elif "\u00c0" <= char <= "\u024f":
                # An accent inside a mostly-ASCII word is French or German; a word made of
                # accented letters only ("Ïðèâåò") is Cyrillic read as Latin-1.
                score += -3.5 if ascii_letters >= len(word) - ascii_letters else -7.0
                if cyrillic:
                    score -= 4.0
            else:
                score -= 5.0
            if char.isupper() and previous_lower:
                score -= 5.0  # "оПХБЕР": case flipping inside a word
            elif char.isupper() and previous_upper:
                score -= _CAPS_PENALTY  # prose is mostly lower case; a misread is often not
        previous_lower, previous_upper = char.islower(), char.isupper()
    return score


def _symbol_score(char: str) -> float:
    if char == "\ufffd":
        return -10.0
    if "\u2500" <= char <= "\u259f":  # box drawing: koi8-r's upper half read wrongly
        return -10.0
    category = unicodedata.category(char)
    if category[0] == "C":  # C1 controls, soft hyphens, unassigned
        return -8.0
    if category == "Zs":
        return -2.0
    if category[0] == "P":  # «», —, …, “” are normal in Russian prose
        return -3.0
    return -6.0  # box drawing, currency and other symbols


def _plausibility(text: str) -> float:
    """Higher is likelier to be human prose; sums, so longer misreadings cost more."""
    score = 0.0
    for match in _LETTER_RUN_OR_CHAR.finditer(text):
        token = match.group()
        if token.isascii():
            continue
        score += _word_score(token) if len(token) > 1 or token.isalpha() else _symbol_score(token)
    return score


def _keep_margin(text: str) -> float:
    """How much better another reading must score before it overrules the declared one."""
    non_ascii = sum(1 for char in text if not char.isascii())
    return 1.0 + 0.1 * non_ascii


def _fallback_note(declared: str | None, codec: str | None, used: str) -> str:
    if not declared:
        return f"no charset declared; bytes looked like {used}"
    if codec is None:
        return f"declared charset {declared!r} is unknown; bytes looked like {used}"
    if codec == used:
        return f"declared {declared} but some bytes were invalid and were replaced"
    return f"declared {declared} but bytes were {used}"


def _decode_unscored(
    data: bytes, declared: str | None, codec: str | None, budget: GuessBudget
) -> tuple[str, str | None]:
    """The declared charset (one senders get wrong), else the mail's last guess: no scoring."""
    used = codec if codec in _GUESSABLE_CODECS else budget.last_guess or _DETECTED_CODECS[0]
    try:
        text = data.decode(used)
    except UnicodeDecodeError:
        text = data.decode(used, "replace")
    else:
        if used == codec:
            return text, None
    note = _fallback_note(declared, codec, used)
    return text, f"{note} (the mail's charset guessing budget was spent: not scored)"


def _decode_text(
    data: bytes, declared: str | None, budget: GuessBudget | None = None
) -> tuple[str, str | None]:
    """Text from bytes and, when the declared charset was not simply used, a note saying why.

    The declared charset wins when it decodes cleanly and, for the single-byte tables
    senders often get wrong, when no other reading is clearly more plausible. Otherwise the
    likeliest of utf-8, cp1251, koi8-r (and cp1252, so that undeclared French stays French)
    is used: valid utf-8 with non-ASCII bytes is practically never an accident, and cp1251
    against koi8-r is settled by Russian letter frequencies and case (see `_plausibility`);
    from about five words on it read every sample tried right; one or two words can miss.
    The scoring spends `budget` (one per mail); with it spent the guess is not scored.
    """
    if not data:
        return "", None
    declared = declared.strip() if declared else None
    codec = _codec_name(declared)
    if codec is not None and codec not in _GUESSABLE_CODECS:
        try:
            return data.decode(codec), None
        except (ValueError, LookupError):
            pass  # falls through to detection, which says so in its note
    if data.isascii():
        if codec is None or codec in _GUESSABLE_CODECS:
            return data.decode("ascii"), None
        return data.decode("ascii"), _fallback_note(declared, codec, "ascii")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return text, None if codec == "utf-8" else _fallback_note(declared, codec, "utf-8")

    if budget is not None and budget.bytes_left <= 0:
        return _decode_unscored(data, declared, codec, budget)
    sample = data[:_SCORE_SAMPLE_BYTES]
    if budget is not None:
        sample = sample[: budget.bytes_left]
        budget.bytes_left -= len(sample)
    readings: dict[str, str] = {}
    for name in (codec, *_DETECTED_CODECS) if codec else _DETECTED_CODECS:
        with contextlib.suppress(ValueError, LookupError):  # idna & co. refuse "replace"
            readings.setdefault(name, sample.decode(name, "replace"))
    scores = {name: _plausibility(reading) for name, reading in readings.items()}
    best = max(readings, key=lambda name: scores[name])
    if codec in readings and scores[best] - scores[codec] <= _keep_margin(readings[codec]):
        best = codec
    if budget is not None:
        budget.last_guess = best
    try:
        return data.decode(best), None if best == codec else _fallback_note(declared, codec, best)
    except UnicodeDecodeError:
        return data.decode(best, "replace"), _fallback_note(declared, codec, best)
