"""Normalisation: one lower-case, accent-free (Latin only), single-spaced form that the
guard's rules are written against, so a rule needs one spelling per word.
"""

from __future__ import annotations

import re
import unicodedata

# Only the start and the end of a huge message are read: an instruction hides at either
# end of a paste, and the cost must not grow with the input.
_HEAD = 6000
_TAIL = 2000


def _build_translation() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for code in range(0x00C0, 0x0180):  # Latin-1 Supplement and Latin Extended-A
        char = chr(code)
        base = unicodedata.normalize("NFD", char)[0]
        if base != char and base.isascii() and base.isalpha():
            table[code] = base.lower()
    table.update({ord("ß"): "ss", ord("œ"): "oe", ord("æ"): "ae", ord("ø"): "o"})
    # Invisible characters that split a word without showing: zero-width spaces and
    # joiners, the soft hyphen, BOM, bidi controls.
    for code in (0x00AD, 0x180E, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF):
        table[code] = None
    for code in range(0x200B, 0x2010):
        table[code] = None
    for code in range(0x202A, 0x202F):
        table[code] = None
    # Control characters read as spaces (a newline stays a sentence break).
    for code in [*range(0x00, 0x20), *range(0x7F, 0xA0)]:
        table[code] = " "
    table[ord("\n")] = "\n"
    table.update(
        {
            ord("ё"): "е",
            ord("\u2019"): "'",
            ord("\u2018"): "'",
            ord("\u02bc"): "'",
            ord("`"): "'",
            ord("\u00b4"): "'",
            ord("«"): '"',
            ord("»"): '"',
            ord("\u201c"): '"',
            ord("\u201d"): '"',
            ord("\u201e"): '"',
            ord("\u2013"): "-",
            ord("\u2014"): "-",
            ord("\u2212"): "-",
            ord("\u00a0"): " ",
        }
    )
    return table


_TRANSLATION = _build_translation()
# Most messages contain none of the characters above; finding one is a single C-level
# scan, translating char by char is not.
_NEEDS_TRANSLATION = re.compile(
    "[" + "".join(re.escape(chr(code)) for code in _TRANSLATION if code != ord("\n")) + "]"
)
_WORD_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")


def _translate_match(match: re.Match[str]) -> str:
    return match.group().translate(_TRANSLATION)


def normalise(text: str) -> str:
    """The form the rules read: NFKC, case-folded, Latin accents dropped, ё→е, one kind of
    apostrophe, quote and dash, invisible characters removed, hyphens inside words as
    spaces ("montre-moi", "peux-tu"), runs of spaces collapsed (newlines kept)."""
    if len(text) > _HEAD + _TAIL:
        text = text[:_HEAD] + "\n" + text[-_TAIL:]
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    text = text.casefold()
    text = _NEEDS_TRANSLATION.sub(_translate_match, text)
    if "-" in text:
        text = _WORD_HYPHEN.sub(" ", text)
    return "\n".join(filter(None, (" ".join(line.split()) for line in text.split("\n"))))
