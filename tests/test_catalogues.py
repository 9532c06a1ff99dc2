"""The back office's catalogues (locale/): every text translated in Russian and Ukrainian,
with the same placeholders as the English, and the committed .mo compiled from the .po."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest

LOCALE = Path(__file__).resolve().parents[1] / "locale"
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}")


def _entries(po: Path) -> list[tuple[str, list[str]]]:
    """(msgid, its msgstr forms) of every entry but the header, strings joined."""
    entries, msgid, forms, current = [], None, [], None

    def close() -> None:
        if msgid:  # the header's msgid is ""
            entries.append((msgid, forms))

    for line in po.read_text(encoding="utf-8").splitlines():
        if line.startswith("msgid "):
            close()
            msgid, forms, current = _string(line), [], "id"
        elif line.startswith("msgid_plural "):
            current = "plural"
        elif line.startswith("msgstr"):
            forms.append(_string(line))
            current = "str"
        elif line.startswith('"'):
            if current == "id":
                msgid += _string(line)
            elif current == "str":
                forms[-1] += _string(line)
    close()
    return entries


def _string(line: str) -> str:
    return line[line.index('"') + 1 : line.rindex('"')]


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_every_text_is_translated_with_its_placeholders(language):
    entries = _entries(LOCALE / language / "LC_MESSAGES" / "django.po")
    assert len(entries) > 500  # the catalogue was read at all
    assert [msgid for msgid, forms in entries if not all(forms)] == []
    assert [
        msgid
        for msgid, forms in entries
        if any(sorted(PLACEHOLDER.findall(form)) != sorted(PLACEHOLDER.findall(msgid))
               for form in forms[:1])
    ] == []  # fmt: skip


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_the_committed_mo_holds_every_translation(language):
    folder = LOCALE / language / "LC_MESSAGES"
    with (folder / "django.mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    for msgid, forms in _entries(folder / "django.po"):
        if len(forms) == 1 and "\\" not in msgid:
            assert compiled.gettext(msgid) == forms[0], msgid
