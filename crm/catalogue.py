"""A lead type's catalogue as the readers use it: why people write (intents) and what they
ask for (products), with the words that name each in Russian, Ukrainian and English, and
the matcher that finds those words in a message by their lemmas (pymorphy3's Russian and
Ukrainian dictionaries when installed, the word itself otherwise)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

LANGUAGES = ("ru", "uk", "en")
DEFAULT_TYPE = "studio"


@dataclass(frozen=True)
class Term:
    """One intent or product: its code (the card's value), label, description (for the
    model) and words (for the rules agent)."""

    code: str
    label: str
    description: str = ""
    words: tuple[str, ...] = ()
    fallback: bool = False
    product_only: bool = False
    reads_product: bool = True
    # Off for messages that sell to the business (spam, a supplier's pitch): their prices,
    # promotion deadlines and "call us" are no client's budget, term or call-back.
    is_request: bool = True


@dataclass(frozen=True)
class Catalogue:
    code: str
    name: str
    business: str
    intents: tuple[Term, ...]
    products: tuple[Term, ...]

    @property
    def fallback(self) -> Term:
        """The intent read when nothing else is: the one marked, else the last."""
        return next((i for i in self.intents if i.fallback), self.intents[-1])

    @property
    def intent_codes(self) -> list[str]:
        return [intent.code for intent in self.intents]

    @property
    def product_codes(self) -> list[str]:
        return [product.code for product in self.products]

    def intent_label(self, code: str) -> str:
        """An intent's label as a person reads it (`shown_label`); an unknown code as is."""
        return next((shown_label(i.label) for i in self.intents if i.code == code), code)

    def product_label(self, code: str) -> str:
        return next((shown_label(p.label) for p in self.products if p.code == code), code)

    def intent_choices(self) -> list[tuple[str, str]]:
        """(code, label as a person reads it) of every intent, for selects."""
        return [(i.code, shown_label(i.label)) for i in self.intents]

    def product_choices(self) -> list[tuple[str, str]]:
        return [(p.code, shown_label(p.label)) for p in self.products]

    def read(self, text: str) -> tuple[str, str | None]:
        """(intent code, product code or None) of a message, by the catalogue's words
        (`crm.candidates.catalogue_reading`, which keeps every candidate and why one won)."""
        from crm.candidates import catalogue_reading  # it builds on this module's matcher

        reading = catalogue_reading(self, text)
        return str(reading.intent.code), reading.product.code

    def found(self, text: str) -> Found:
        """Every intent and product whose words are in a text, with where."""
        return _matcher(self).found(text)

    def intent(self, code: str) -> Term | None:
        return next((i for i in self.intents if i.code == code), None)

    def names_anything(self, text: str) -> bool:
        """Whether any intent's or product's words are in the text (a sentence that says
        what is wanted)."""
        found = _matcher(self).found(text)
        return bool(found.intents or found.products)


def catalogue_from_data(data: Mapping[str, Any]) -> Catalogue:
    """A catalogue from the seed's shape (code, name, business, intents, products; each
    term with its words under "ru", "uk", "en")."""

    def term(item: Mapping[str, Any]) -> Term:
        words = tuple(w for language in LANGUAGES for w in item.get(language, ()))
        return Term(
            code=item["code"],
            label=item["label"],
            description=item.get("description", ""),
            words=words,
            fallback=item.get("fallback", False),
            product_only=item.get("product_only", False),
            reads_product=item.get("reads_product", True),
            is_request=item.get("is_request", True),
        )

    return Catalogue(
        code=data["code"],
        name=data["name"],
        business=data["business"],
        intents=tuple(term(i) for i in data["intents"]),
        products=tuple(term(p) for p in data["products"]),
    )


@functools.cache
def builtin_catalogue(code: str = DEFAULT_TYPE) -> Catalogue | None:
    """The catalogue the platform ships under `code`, or None."""
    from crm.catalogue_seed import SEEDED

    return catalogue_from_data(SEEDED[code]) if code in SEEDED else None


@functools.cache
def _shipped_labels() -> frozenset[str]:
    from crm.catalogue_seed import SEEDED

    terms = (
        term["label"] for data in SEEDED.values() for term in (*data["intents"], *data["products"])
    )
    return frozenset((*terms, *(data["name"] for data in SEEDED.values())))


def shown_label(label: str) -> str:
    """A term's label (or a lead type's name) in the active language. A label the platform
    ships (English in the database and in the model's prompt) is translated by the
    catalogues; a label an administrator wrote is their own word and is shown as written."""
    return gettext(label) if label in _shipped_labels() else label


def words_split(text: str) -> list[str]:
    """An administrator's words, one a line (commas also separate), blank lines dropped."""
    return [w.strip() for w in re.split(r"[\n,;]+", text) if w.strip()]


# --- lemmas ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


@functools.cache
def _analysers() -> tuple[Any, ...]:
    """pymorphy3's Russian and Ukrainian analysers, or none when it is not installed (then
    words match as written, and stems with "*")."""
    try:
        import pymorphy3
    except ImportError:
        return ()
    analysers = []
    for language in ("ru", "uk"):
        try:
            analysers.append(pymorphy3.MorphAnalyzer(lang=language))
        except (ValueError, OSError, ImportError):  # that language's dictionary is missing
            continue
    return tuple(analysers)


@functools.lru_cache(maxsize=100_000)
def lemmas(word: str) -> frozenset[str]:
    """The forms a word can be matched by: itself (lower case, ё as е), its Russian and
    Ukrainian dictionary forms, and an English plural without its "s"."""
    word = word.lower().replace("ё", "е").replace("’", "'")
    forms = {word}
    if word.isascii():
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            forms.add(word[:-1])
        return frozenset(forms)
    for analyser in _analysers():
        for parse in analyser.parse(word)[:4]:
            forms.add(parse.normal_form.replace("ё", "е"))
    return frozenset(forms)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


# --- the matcher ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Part:
    form: str  # lower case; a stem's letters, or a word as written
    stem: bool  # "анимаци*": any word starting so
    exact: bool  # "ТО", "КП": capitals match only the same capitals


@dataclass(frozen=True)
class _Pattern:
    owner: tuple[str, str]  # ("intent" | "product", code)
    parts: tuple[_Part, ...]  # one for each word of the phrase


@dataclass(frozen=True)
class Mention:
    """Where a term's words are in a text: the characters, and the words as written."""

    start: int
    end: int
    words: str


@dataclass(frozen=True)
class Found:
    intents: frozenset[str]
    products: frozenset[str]
    # (kind, code) -> its mentions, in text order: the evidence each candidate was read from.
    evidence: Mapping[tuple[str, str], list[Mention]]


_PHRASE_WORD = re.compile(r"([^\W_]+(?:['’][^\W_]+)?)(\*?)")


class _Matcher:
    """Every word of a catalogue, indexed by the forms of its phrase's first word (a stem by
    its first two letters, a word in capitals as written)."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.by_form: dict[str, list[_Pattern]] = {}
        self.by_start: dict[str, list[_Pattern]] = {}  # stems, by their first two letters
        self.by_word: dict[str, list[_Pattern]] = {}  # words in capitals, as written
        for kind, terms in (("intent", catalogue.intents), ("product", catalogue.products)):
            for term in terms:
                for phrase in term.words:
                    parts = tuple(
                        _Part(
                            form=_plain(word),
                            stem=bool(star),
                            exact=len(word) > 1 and word.isupper(),
                        )
                        for word, star in _PHRASE_WORD.findall(phrase)
                    )
                    if not parts:
                        continue
                    pattern = _Pattern((kind, term.code), parts)
                    first = parts[0]
                    if first.exact:
                        self.by_word.setdefault(first.form.upper(), []).append(pattern)
                    elif first.stem:
                        self.by_start.setdefault(first.form[:2], []).append(pattern)
                    else:
                        for form in lemmas(first.form):
                            self.by_form.setdefault(form, []).append(pattern)

    def found(self, text: str) -> Found:
        spans = [(match.start(), match.end()) for match in _TOKEN.finditer(text)]
        words = [text[start:end] for start, end in spans]
        forms = [lemmas(word) for word in words]
        evidence: dict[tuple[str, str], list[Mention]] = {}
        for index, token_forms in enumerate(forms):
            candidates = [
                pattern
                for form in token_forms
                for pattern in (*self.by_form.get(form, ()), *self.by_start.get(form[:2], ()))
            ]
            candidates += self.by_word.get(words[index], ())
            matched: set[tuple[str, str]] = set()  # one piece of evidence per word
            for pattern in candidates:
                if pattern.owner not in matched and _matches(pattern, words, forms, index):
                    matched.add(pattern.owner)
                    start, end = spans[index][0], spans[index + len(pattern.parts) - 1][1]
                    mention = Mention(start, end, text[start:end])
                    evidence.setdefault(pattern.owner, []).append(mention)
        return Found(
            intents=frozenset(code for kind, code in evidence if kind == "intent"),
            products=frozenset(code for kind, code in evidence if kind == "product"),
            evidence=evidence,
        )


def _plain(word: str) -> str:
    return word.lower().replace("ё", "е").replace("’", "'")


def _matches(pattern: _Pattern, words: list[str], forms: list[frozenset[str]], start: int) -> bool:
    if start + len(pattern.parts) > len(forms):
        return False
    for offset, part in enumerate(pattern.parts):
        token_forms = forms[start + offset]
        if part.exact:
            if words[start + offset] != part.form.upper():
                return False
        elif part.stem:
            if not any(form.startswith(part.form) for form in token_forms):
                return False
        elif part.form not in token_forms and not (lemmas(part.form) & token_forms):
            return False
    return True


@functools.lru_cache(maxsize=8)
def _matcher(catalogue: Catalogue) -> _Matcher:
    return _Matcher(catalogue)
