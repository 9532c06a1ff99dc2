"""Which language the client writes in, and the prompt block that makes the model answer in it.

`detect_language` looks at one message (the client's last) and returns an ISO 639-1 code:
"ru", "uk", "en", "de", "fr", "es" or "zh". It is deterministic and cheap (no model, no
dictionary files): orthographic markers and small lists of function words decide, the
script decides when they are silent, and the caller's `default` (the project's stored
language) wins whenever the message says too little.

Decisions worth knowing (each one is why a project does not flip-flop between languages):

* A message with fewer than two words (``"ok"``, ``"да"``, ``"так"``, ``"500000"``, an
  emoji) keeps `default`. Single words are mostly yes/no/numbers that every bilingual
  client types in whatever layout is on; "так" is "yes" in Ukrainian and "so" in Russian,
  "да" is Russian but is what many Ukrainian clients type too. The exception is a single
  word that carries a letter only one supported language has (і/ї/є/ґ or an apostrophe
  before я/ю/є/ї for Ukrainian, ы/э/ъ/ё for Russian, ä/ö/ß/ü for German, ñ and á/í/ó/ú for
  Spanish, è/ê/à/â/ç/œ/ù/û/î/ô/ë for French) or two or more Chinese characters: "Привіт"
  is Ukrainian whatever the project said before.
* Ukrainian against Russian: the letters above first, then function words ("що", "як",
  "це", "та", "потрібно" against "что", "как", "нужно", "и", "с"). Switching between the
  two is conservative: when `default` is "ru" or "uk", only a marker letter of the other
  language can switch to it. Function words alone cannot: the two languages share most
  of their short words in near-identical spellings ("с" in "ролик 15 с" is seconds, not
  Russian's "with"), and bilingual clients mix them. So "ролик 15 с, два ролики по 6 с
  та фото" stays Ukrainian in a Ukrainian project, "Коли буде готово?" stays Russian in a
  Russian one, and "Що ви пропонуєте?" (є) switches either to Ukrainian. With any other
  `default` the function words do decide. Cyrillic text with neither keeps `default`
  when that is "ru" or "uk", else becomes "ru" (the larger share of this platform's
  clients).
* Latin text: German, French and Spanish by their letters and function words; with no
  evidence for any of them it keeps `default` when that is a Latin-script language,
  else it is English.
* Mixed text ("Нужен ролик для Instagram Reels и TikTok") is decided by function words and
  letters, not by counting Latin brand names.
* E-mail addresses, links and @handles are cut out before anything is counted: they carry
  no language ("dmitry.orlov@avtomir.ru" is four Latin "words" that would switch a Russian
  project to English), so a message that is only an address keeps `default`. Digits and
  phone numbers never count as words.
"""

from __future__ import annotations

import re
from collections import Counter

from llmkit.extract.contacts import find_emails, find_urls

LANGUAGES: dict[str, str] = {
    "ru": "Russian",
    "uk": "Ukrainian",
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "zh": "Chinese",
}
"""Every code `detect_language` can return, with its English name (for prompts and admin)."""

_LANGUAGE_ORDER = list(LANGUAGES)
_CYRILLIC_LANGS = ("ru", "uk")
_LATIN_LANGS = ("en", "de", "fr", "es")

# Only the start and the end of a long message are read: a pasted document does not make
# the language more certain, and the cost must stay flat.
_MAX_SCAN = 4000

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019\u02bc][^\W\d_]+)*")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[a-zà-ÿœß]", re.IGNORECASE)
# What is left of "@" after the e-mail addresses are gone: a handle ("@avtomir_ru").
_HANDLE = re.compile(r"@[\w.\-]+")

# Letters that only one of the supported languages uses.
_MARKERS: dict[str, re.Pattern[str]] = {
    # The apostrophe form is Ukrainian's hard sign: п'ять, м'ясо, об'єкт.
    "uk": re.compile(r"[іїєґ]|[бпвмфрк]['\u2019\u02bc][яюєї]"),
    "ru": re.compile(r"[ыэъё]"),
    "de": re.compile(r"[äöüß]"),
    "es": re.compile(r"[ñáíóú]"),
    "fr": re.compile(r"[èêëàâçœùûîô]"),
}


# Function words: frequent, short, and (mostly) owned by one language. A word listed for
# two languages counts for both, so "was" (English and German) or "de" (French and
# Spanish) never decides alone. Words that already carry a marker letter are omitted:
# the marker counts for them.
def _wordset(words: str) -> frozenset[str]:
    """Space-separated words, folded (ё→е) as the text is, so one spelling per word."""
    return frozenset(words.replace("ё", "е").split())


_STOPWORDS: dict[str, frozenset[str]] = {
    "ru": _wordset(
        "и что как но или если когда где чтобы нужно нужен нужна нужны надо можно хочу хотим "
        "хотелось очень спасибо пожалуйста хорошо нет да он она они его ее их меня мне нам "
        "нас вас вам тебе тебя с со к ко от уже еще сейчас тоже также какой какая какое "
        "какие который которая которые сколько привет здравствуйте будет был была было "
        "только даже ли же бы без под над через после для сделать снять делаете можете "
        "есть ничего всего всё все так этот эта эти вот поэтому потому однако"
    ),
    "uk": _wordset(
        "що як але або чи та й якщо коли де щоб треба потрібно потрібен потрібна можна хочу "
        "хочемо дуже дякую добре ні так він вона вони його її їх мене мені нам нас вас вам "
        "тобі тебе з зі із від до вже ще зараз теж також який яка яке які скільки привіт "
        "вітаю буде був була було тільки лише навіть без під над через після для зробити "
        "зняти робите можете є нічого все усе це цей ця цю цього цієї ось бо отже проте однак"
    ),
    "en": _wordset(
        "the a an and or but if when where what which who how is are was were be been have "
        "has had do does did we you they it this that these those our your my me us i to "
        "of in on at for with from by about can could would should will need want please "
        "thanks thank hello hi yes no not just also so then than there here"
    ),
    "de": _wordset(
        "der die das den dem des und oder aber wenn wie was wer wo ist sind war waren sein "
        "haben hat hatte ich wir sie du ihr es ein eine einen einem einer nicht auch noch "
        "schon mit von zu für auf bei aus nach um können kann könnte möchten möchte wollen "
        "brauchen brauche bitte danke hallo ja nein sehr unser unsere uns mich mir dich dir "
        "ihnen ihre ihr"
    ),
    "fr": _wordset(
        "le la les un une des du de et ou mais si quand comme que qui quoi est sont était "
        "avoir avons avez nous vous ils elles je tu il elle ce cette ces notre nos votre vos "
        "pour avec dans sur par pas plus aussi bonjour merci oui non besoin voudrions "
        "voudrais pouvez peux faire très au aux où ça déjà été être"
    ),
    "es": _wordset(
        "el la los las un una unos unas del de y o pero si cuando como que quien es son era "
        "fue estar está están ser tener tenemos tiene nosotros usted ustedes yo tú él ella "
        "ellos este esta estos estas nuestro nuestra nuestros su sus para con en por sin no "
        "más también hola gracias sí necesitamos necesito queremos quiero puede pueden "
        "hacer muy al qué cómo dónde cuál cuándo cuánto cuánta está aquí"
    ),
}
_WORD_LANGS: dict[str, tuple[str, ...]] = {}
for _lang, _words in _STOPWORDS.items():
    for _w in _words:
        _WORD_LANGS[_w] = (*_WORD_LANGS.get(_w, ()), _lang)

_STOPWORD_WEIGHT = 2.0
_MARKER_WEIGHT = 3.0


def _script_of(word: str) -> str:
    if _CYRILLIC.match(word):
        return "cyrillic"
    if _LATIN.match(word):
        return "latin"
    return "other"


def _family(code: str) -> str:
    if code in _CYRILLIC_LANGS:
        return "cyrillic"
    if code in _LATIN_LANGS:
        return "latin"
    return "other"


def _fallback(script: str, default: str) -> str:
    """The answer when a script is clear but nothing inside it says which language."""
    if script == "cyrillic":
        return default if default in _CYRILLIC_LANGS else "ru"
    if script == "latin":
        return default if default in _LATIN_LANGS else "en"
    return default


def _single_word_marker(word: str, text: str) -> str | None:
    """The language a lone word must be in because of a letter only that language has."""
    found = [lang for lang, pattern in _MARKERS.items() if pattern.search(word)]
    if "¿" in text or "¡" in text:
        found.append("es")
    return found[0] if len(set(found)) == 1 else None


# Markup a client pasted (or an attacker typed) is not the language they write in.
_MARKUP = re.compile(r"</?[A-Za-z][^<>]{0,200}>|&[A-Za-z]+;|&#\d+;")


def _without_addresses(text: str) -> str:
    """`text` with its markup, e-mail addresses, links and @handles replaced by spaces."""
    if "<" in text or "&" in text:
        text = _MARKUP.sub(" ", text)
    spans = [(f.start, f.end) for f in (*find_emails(text), *find_urls(text))]
    if spans:
        parts, last = [], 0
        for start, end in sorted(spans):
            if start >= last:
                parts.append(text[last:start])
                last = end
        text = " ".join([*parts, text[last:]])
    return _HANDLE.sub(" ", text) if "@" in text else text


def detect_language(text: str, *, default: str = "en") -> str:
    """The ISO 639-1 code of the language `text` is written in, or `default` if unclear.

    Never raises: anything that is not a non-empty string is "unclear".
    """
    if not isinstance(text, str) or not text:
        return default
    if len(text) > _MAX_SCAN:
        text = text[: _MAX_SCAN // 2] + " " + text[-_MAX_SCAN // 2 :]
    text = _without_addresses(text)
    lowered = text.lower().replace("ё", "е").replace("Ё", "е")
    # ё was folded for the word lists; remember it as the Russian marker it is.
    has_yo = "ё" in text or "Ё" in text

    han = len(_HAN.findall(lowered))
    kana = bool(_KANA.search(lowered))
    words = [w for w in _WORD.findall(lowered) if not _HAN.match(w) and not _KANA.match(w)]
    long_words = [w for w in words if len(w) >= 2]

    if han >= 2 and not kana and not long_words:
        return "zh"
    if len(long_words) < 2:
        if han >= 2 and not kana:
            return "zh"
        if len(long_words) == 1:
            marker = _single_word_marker(long_words[0], lowered)
            if marker is None and has_yo:
                marker = "ru"
            if marker is not None:
                return marker
        return default

    scores: Counter[str] = Counter()
    scripts: Counter[str] = Counter()
    marked: set[str] = {"ru"} if has_yo else set()
    for word in words:
        scripts[_script_of(word)] += 1
        for lang in _WORD_LANGS.get(word, ()):
            scores[lang] += _STOPWORD_WEIGHT
        for lang, pattern in _MARKERS.items():
            if pattern.search(word):
                scores[lang] += _MARKER_WEIGHT
                marked.add(lang)
    if has_yo:
        scores["ru"] += _MARKER_WEIGHT
    if default in _CYRILLIC_LANGS:
        # Only the other language's own letters switch between Russian and Ukrainian.
        other = "uk" if default == "ru" else "ru"
        if other not in marked:
            scores.pop(other, None)
    if "¿" in lowered or "¡" in lowered:
        scores["es"] += _MARKER_WEIGHT
    if han and not kana:
        # A Chinese character carries about as much as a word; brand names in Latin
        # letters inside Chinese text then do not outvote it.
        scores["zh"] += han * _STOPWORD_WEIGHT

    if not scores:
        script = max(("cyrillic", "latin"), key=lambda s: scripts[s])
        if scripts[script] == 0:
            return default
        return _fallback(script, default)

    best = max(scores.values())
    leaders = [lang for lang, score in scores.items() if score == best]
    if len(leaders) == 1:
        return leaders[0]
    if default in leaders:
        return default
    if set(leaders) <= set(_CYRILLIC_LANGS):
        return _fallback("cyrillic", default)
    # Any other tie ("de la" is French and Spanish; a Russian and an English word): the
    # script with more words, then the order of LANGUAGES (Russian, Ukrainian, English...).
    script = max(("cyrillic", "latin"), key=lambda s: scripts[s])
    in_script = [lang for lang in leaders if _family(lang) == script]
    return min(in_script or leaders, key=_LANGUAGE_ORDER.index)


def _canonical(code: str) -> str:
    """ "ru-RU", "RU" and "ru_ru" are all "ru"."""
    return re.split(r"[-_]", code.strip(), maxsplit=1)[0].lower() if isinstance(code, str) else ""


def language_name(code: str) -> str:
    """The English name of a supported language ("ru" → "Russian").

    Raises ValueError for a code outside LANGUAGES: a prompt that names the wrong language
    is worse than a failure the caller sees at once.
    """
    canonical = _canonical(code)
    if canonical not in LANGUAGES:
        raise ValueError(
            f"unsupported language code {code!r}; expected one of {', '.join(LANGUAGES)}"
        )
    return LANGUAGES[canonical]


def reply_language_block(code: str) -> str:
    """The last block of every prompt: it forces the language of the reply to the client.

    English, because the instructions above it are English too and small models follow
    an instruction best in the language of the rest of the prompt; it names the target
    language explicitly and says the JSON keys stay as they are, so a model does not
    "translate" the schema along with the message. Deterministic, so the prompt prefix
    before it stays cacheable.
    """
    name = language_name(code)
    return (
        f"Reply to the client in {name} only, whatever language the instructions above are "
        f"in. Keep JSON keys and enum values exactly as specified; only the text meant for "
        f"the client is in {name}."
    )
