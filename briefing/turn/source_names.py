"""Names only from sources: the works, clients, services and products an agent's message
presents (in quotes, or as capitalised names inside a sentence), each of which must appear
in a tool result, the client's words or what memory and the briefing already hold; matched
by pymorphy3 lemmas and a tolerant ending, so «Полярной Ягоде» is the «Полярная Ягода» a
tool returned."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

# Quoted spans: «…», “…”, „…“ and "…"; a long quote is a sentence, not a name.
_QUOTED = re.compile(r"«([^«»]{2,80})»|“([^“”]{2,80})”|„([^„“”]{2,80})[“”]|\"([^\"\n]{2,80})\"")
_URL = re.compile(r"https?://\S+", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
_CYRILLIC = re.compile(r"[а-яёіїєґ]", re.IGNORECASE)
_SENTENCE_END = set(".!?…:;\n•—–-(")
MAX_NAME_WORDS = 6
# Capitalised in English without being a name: a run of names breaks at them.
_CALENDAR_WORDS = frozenset({
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
})  # fmt: skip


@functools.lru_cache(maxsize=4096)
def _lemma(word: str, language: str) -> str:
    from briefing.reader.nlp import morph

    lowered = word.casefold()
    if not _CYRILLIC.search(lowered):
        return lowered
    return morph(language).parse(lowered)[0].normal_form


def _same_word(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Two words are one when their lemmas agree, or when they differ only in an ending
    (at most two letters after a shared stem of three or more): names pymorphy3 does not
    know are still inflected ("Автомира", "КассаПро" / "КассаПро's")."""
    if a[1] == b[1] or a[0] == b[0]:
        return True
    shorter = min(len(a[0]), len(b[0]))
    common = 0
    for x, y in zip(a[0], b[0], strict=False):
        if x != y:
            break
        common += 1
    return common >= max(3, shorter - 2)


def _keys(text: str, language: str) -> list[tuple[str, str]]:
    return [(w.casefold(), _lemma(w, language)) for w in _WORD.findall(text)]


def _is_single_name(word: str, language: str) -> bool:
    """A lone capitalised word inside a sentence is a name when it is Cyrillic (Russian and
    Ukrainian capitalise little else there) and pymorphy3 reads it as neither a pronoun (the
    polite «Вы») nor a place («в Москве»: where the work happens, not a work or a client).
    Latin words alone ("Instagram", "TV", "I") are left to the quoted and multi-word
    checks: English capitalises too much else."""
    if not _CYRILLIC.search(word) or word.isupper():
        return False
    from briefing.reader.nlp import morph

    tag = morph("uk" if language == "uk" else "ru").parse(word)[0].tag
    return not ({"NPRO", "Geox"} & set(str(tag).replace(" ", ",").split(",")))


def _capitalised_names(text: str, language: str) -> list[str]:
    """Runs of capitalised words inside sentences: the first word of a sentence is not a
    name by its capital; an abbreviation ("ТВ", "RUB") is not one either."""
    names: list[str] = []
    run: list[str] = []

    def close() -> None:
        if len(run) >= 2 or (len(run) == 1 and _is_single_name(run[0], language)):
            names.append(" ".join(run))
        run.clear()

    previous_end = 0
    for match in _WORD.finditer(text):
        word, gap = match.group(), text[previous_end : match.start()]
        previous_end = match.end()
        starts_sentence = not text[: match.start()].strip() or (
            gap.strip() and gap.strip()[-1] in _SENTENCE_END
        )
        capitalised = (
            word[0].isupper()
            and len(word) > 1
            and not (word.isupper() and len(word) <= 5)
            and word.casefold() not in _CALENDAR_WORDS
        )
        if run and (gap.strip() not in ("", "-") or not capitalised):
            close()
        if capitalised and not starts_sentence:
            run.append(word)
        elif capitalised and starts_sentence:
            close()
    close()
    return names


def presented_names(message: str, language: str) -> list[str]:
    """The names a message presents: its quoted spans of up to six words that start with a
    capital, then the capitalised names outside quotes (links left out), each once, in
    order."""
    message = _URL.sub(" . ", message)
    names = []
    for match in _QUOTED.finditer(message):
        quoted = next(g for g in match.groups() if g is not None).strip()
        words = _WORD.findall(quoted)
        # A title starts with a capital; «сторис» or «под ключ» are words in quotes.
        if 0 < len(words) <= MAX_NAME_WORDS and words[0][0].isupper():
            names.append(quoted)
    outside = _QUOTED.sub(" . ", message)
    names += _capitalised_names(outside, language)
    return list(dict.fromkeys(names))


def _found_in(name: Sequence[tuple[str, str]], source: Sequence[tuple[str, str]]) -> bool:
    width = len(name)
    return any(
        all(_same_word(name[i], source[start + i]) for i in range(width))
        for start in range(len(source) - width + 1)
    )


def unsourced_names(message: str, sources: Iterable[str], *, language: str) -> list[str]:
    """The names the message presents that no source holds (their words in order, each
    word matched by lemma or tolerant ending)."""
    names = presented_names(message, language)
    if not names:
        return []
    source_keys = [_keys(text, language) for text in sources if text]
    missing = []
    for name in names:
        keys = _keys(name, language)
        if keys and not any(_found_in(keys, source) for source in source_keys):
            missing.append(name)
    return missing
