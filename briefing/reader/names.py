"""Names in a client message: the client's own name and role, the company they come from
and the product the briefing is about, in the nominative."""

from __future__ import annotations

import re
from collections.abc import Iterable

from briefing.reader import nlp
from briefing.reader.chatter import declines, is_chatter, is_confirmation, is_greeting
from briefing.reader.findings import ANSWER, CORRECTION, Collector
from briefing.reader.places import place_named
from briefing.reader.statements import Sentence, sentence_at

# --- names ---------------------------------------------------------------------------------

# The Latin letters with diacritics of European names ("Paweł Zieliński", "Zoë Müller",
# "José Núñez", "Søren Ørsted") beside the plain Latin and the Cyrillic ones.
_LATIN_UP = "".join(ch for ch in map(chr, range(0xC0, 0x250)) if ch.isupper())
_LATIN_LOW = "".join(ch for ch in map(chr, range(0xC0, 0x250)) if ch.islower())
_UP = "A-ZА-ЯЁІЇЄҐ" + _LATIN_UP
_LOW = "a-zа-яёіїєґ'’" + _LATIN_LOW
# "Анна", "Римский-Корсаков", "MacLeod", "O'Sullivan"
_NAME_WORD = rf"[{_UP}](?:['’][{_UP}])?[{_LOW}]+(?:[{_UP}][{_LOW}]+)?(?:-[{_UP}][{_LOW}]+)?"
# The particles of Dutch, German, Spanish, Arabic… surnames: "Sanne de Vries", "Ludwig van
# der Berg", "María de la Cruz".
_PARTICLE = r"(?:de|van|der|den|von|da|di|du|del|della|dos|das|le|la|ten|ter|bin|ibn|al|el)"
_NAME = rf"{_NAME_WORD}(?:\s+(?:{_PARTICLE}\s+){{0,2}}{_NAME_WORD}){{0,2}}"
_INTRO = re.compile(
    r"(?i:(?<![\w])(?:меня\s+зовут|зовут\s+меня|мо[её]\s+имя|мене\s+звати|звати\s+мене|"
    r"мене\s+звуть|звуть\s+мене|моє\s+ім['’]я|my\s+name\s+is|зовут|звати|звуть|"
    r"(?:i\s+am|i['’]?m|this\s+is|it['’]s)|это|я|це)\s*[,:—–-]?\s+)"
    rf"(?P<name>{_NAME})"
)
# A signed name: after a closing ("С уважением,", "Kind regards,", "дякую.") on the next line
# or the same one ("З повагою, Наталія Решетняк"), on a line after a blank one or led by a
# dash ("— Геннадий Ломов"), alone or before a comma and the company or role ("Jordan Pike,
# Latchwell").
_SIGN_OFF = (
    r"(?:с\s+уважением|з\s+повагою|best\s+regards|kind\s+regards|warm\s+regards|regards|"
    r"best\s+wishes|best|cheers|thanks|thank\s+you|many\s+thanks|спасибо|дякую|всего\s+доброго|"
    r"всього\s+найкращого)"
)
_SIGNATURE = re.compile(
    rf"(?:(?i:{_SIGN_OFF})(?:[^\n\w]*\n\s*|,[ \t]*)|\n\s*\n\s*|\n[ \t]*[—–-]{{1,2}}[ \t]*)"
    rf"(?P<name>{_NAME})[ \t]*(?=\n|$|,)"
)
_HERE = re.compile(rf"(?P<name>{_NAME_WORD}\s+{_NAME_WORD})\s+here\b")
# A name that opens a sentence and is followed by a comma: "Игорь Петров, фитнес-клуб …"
_LEADING = re.compile(rf"^(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD}){{1,2}})\s*(?:,|—|–|-|$|\.)")
_CORRECTED_NAME = re.compile(
    rf"(?:(?i:вернее|точнее|точніше|i\s+meant|i\s+mean)|не\s+{_NAME_WORD},?\s+а)\s*[,:—–-]?\s*"
    rf"(?P<name>{_NAME})"
)
_NOT_NAMES = frozenset({
    "нужен", "нужна", "нужно", "хотим", "хочу", "здравствуйте", "привет", "добрый", "доброго",
    "пишу", "пишіть", "пишите", "лучше", "краще", "бюджет", "потрібен", "потрібно", "the", "a",
    "an", "we", "our", "hello", "hi", "hey", "good", "thanks", "sorry", "email", "call", "you",
    "your", "looking", "from", "компания", "компанія", "извините", "простите",
    "вибачте", "фамилия", "прізвище", "имя", "ім'я", "ім’я", "surname", "name", "почта",
    "пошта", "телефон", "phone", "mail", "e-mail", "мы", "ми", "я", "i", "наш", "наша",
})  # fmt: skip


def _cyrillic(text: str) -> bool:
    return bool(re.search(r"[а-яёіїєґ]", text, re.IGNORECASE))


def _person_like(name: str, language: str) -> bool:
    """A Cyrillic name must parse as a first name or a surname (pymorphy3), or be unknown to
    the dictionary; a Latin one passes (capitalisation is all there is)."""
    words = name.split()
    if not words or words[0].lower() in _NOT_NAMES or words[0].lower() in _FUNCTION_WORDS:
        return False  # "Sorry", "By Canada Day"
    if re.fullmatch(rf"{_ROLE_WORD}[\w’'-]*", words[0], re.IGNORECASE):
        return False  # "I'm Head of Communications", "Founder & CEO": a role, not a name
    if not _cyrillic(name):
        return True
    morph = nlp.morph("uk" if language == "uk" else "ru")
    for word in words[:2]:
        parses = morph.parse(word.split("-")[0])
        if any({"Name", "Surn", "Patr"} & set(p.tag.grammemes) for p in parses):
            return True
    # Ukrainian names the dictionary lacks ("Олена", "Ірина") parse as other words: accept
    # two capitalised words whose first is no common noun in the nominative plural or verb.
    first = morph.parse(words[0])[0]
    return len(words) >= 2 and first.tag.POS in ("NOUN", "ADJF", None)


def name_nominative(name: str, language: str) -> str:
    """ "Олегом Кравцовым" → "Олег Кравцов"; a name already in the nominative is kept as
    written. The first name sets the case and gender its surname is read in: "Олега
    Кравцова" → "Олег Кравцов", "Ларисы Кобзевой" → "Лариса Кобзева"."""
    if not _cyrillic(name):
        return name
    morph = nlp.morph("uk" if language == "uk" else "ru")
    given = [p for word in name.split() for p in morph.parse(word) if "Name" in p.tag.grammemes]
    if given and all(p.tag.case == "nomn" for p in given):
        # "Лариса Кобзева": a first name that reads only in the nominative puts the whole name
        # there; the dictionary knows the surname only as the masculine "Кобзев"
        return name
    readings = [
        # a plural ("Садыков" as the genitive plural of "Садык") is never one person's name
        [
            p
            for p in morph.parse(word)
            if {"Name", "Surn"} & set(p.tag.grammemes) and p.tag.number != "plur"
        ]
        for word in name.split()
    ]
    # the case and gender every word of the name can be read in ("Олександра Коваленка" is a
    # man's name in the genitive, not Oleksandra)
    known = [{(p.tag.case, p.tag.gender) for p in r} for r in readings if r]
    shared = set.intersection(*known) if known else set()
    words = []
    for word, parses in zip(name.split(), readings, strict=True):
        parses = [p for p in parses if (p.tag.case, p.tag.gender) in shared] or parses
        nominative = any(p.tag.case in (None, "nomn") for p in parses)
        if parses and not nominative:
            inflected = parses[0].inflect({"nomn"})
            if inflected:
                word = _capitalised(inflected.word, word)
        words.append(word)
    return " ".join(words)


def _capitalised(word: str, like: str) -> str:
    parts = word.split("-")
    return "-".join(p[:1].upper() + p[1:] for p in parts) if like[:1].isupper() else word


# --- clients who write without capitals ------------------------------------------------------
# "меня зовут дмитрий орлов", "піцерія називається тісто і вогонь": a message with no capital
# letter at all names people and things in lowercase; the readers below take the words a name
# can be made of, and write them capitalised.


def lowercase_message(text: str) -> bool:
    return bool(re.search(r"[a-zа-яёіїєґ]", text)) and not re.search(f"[{_UP}]", text)


_LOWER_WORD = re.compile(r"[a-zа-яёіїєґ'’-]+|\d+")
# Words that end a name written in lowercase: a new clause, a place, a purpose.
_LOWER_STOP = frozenset({
    "в", "во", "на", "для", "с", "со", "у", "з", "із", "зі", "из", "от", "від", "по", "к", "до",
    "за", "что", "чтобы", "щоб", "що", "который", "которая", "яка", "який", "но", "але", "а",
    "in", "on", "for", "with", "at", "to", "from", "by", "that", "which", "but", "and", "is",
    "are", "we", "it", "i", "our", "мы", "ми", "я", "он", "она", "оно", "они", "він", "вона",
    "воно", "вони", "наш", "наша", "наше", "наши", "наші", "это", "це", "тел", "телефон",
    # English has no dictionary here: the words that end a name written in lowercase
    "it's", "it’s", "its", "that's", "there's", "we're", "they're", "i'm", "you", "your", "my",
    "me", "us", "them", "this", "these", "those", "was", "were", "be", "been", "has", "have",
    "had", "will", "would", "can", "could", "made", "makes", "sells", "get", "got", "moved",
    "up", "out", "just", "really", "kind", "like", "um", "uh", "so", "also", "very", "not",
    "then", "now", "when", "where", "who", "what", "how",
})  # fmt: skip
MAX_LOWER_NAME_WORDS = 3


def _grammemes(word: str, language: str, parses: int = 2) -> set[str]:
    """pymorphy3's grammemes of the word's `parses` likeliest readings."""
    morph = nlp.morph("uk" if language == "uk" else "ru")
    return {g for p in morph.parse(word)[:parses] for g in p.tag.grammemes}


def _title(words: list[str]) -> str:
    return " ".join(w if w in ("і", "и", "й", "та", "&") else w[:1].upper() + w[1:] for w in words)


MAX_CLOSING_NAME_WORDS = 5
# A word that starts a clause of its own: "назвали его северный ветер, хотим ролик".
_CLAUSE_TAGS = frozenset({"VERB", "INFN", "NPRO", "PRED"})
# Readings that end a lowercase name: those, an adverb, a particle, a conjunction.
_NOT_NAME_TAGS = _CLAUSE_TAGS | {"ADVB", "Apro", "PRCL", "INTJ", "CONJ"}


def lowercase_name_at(
    text: str, position: int, language: str, *, closing: bool = False
) -> tuple[str, int, int] | None:
    """The name written in lowercase from `position`: up to three words before punctuation,
    a stop word, a verb, a pronoun or a word in an oblique case ("салон красоты" names no
    salon), capitalised; None when the first word cannot start a name. `closing`: after
    "called", a name that closes the message is taken whole, small words and all ("він
    називається смартфон без страху", "it's called the sunday seven colours experience")."""
    taken: list[re.Match[str]] = []
    # "called the burnside": the article is no part of the name
    article = re.match(r"\s*(?:the|a|an)\s+", text[position:])
    if article:
        position += article.end()
    tail = list(_LOWER_WORD.finditer(text, position))
    if (
        closing
        and 1 < len(tail) <= MAX_CLOSING_NAME_WORDS
        and not re.search(r"\w", _LOWER_WORD.sub("", text[position:]))
        and not re.search(r"[^\s\w]\s", text[position : tail[-1].end()])
        and not any(
            m.group() in _LOWER_STOP
            or (_cyrillic(m.group()) and _grammemes(m.group(), language) & _CLAUSE_TAGS)
            for m in tail
        )
    ):
        return _title([m.group() for m in tail]), tail[0].start(), tail[-1].end()
    for match in _LOWER_WORD.finditer(text, position):
        gap = text[taken[-1].end() if taken else position : match.start()]
        word = match.group()
        if gap.strip() or len(taken) == MAX_LOWER_NAME_WORDS:
            break  # punctuation ends the name
        conjunction = word in ("и", "і")
        if (word in _LOWER_STOP and not conjunction) or (conjunction and not taken):
            break
        if _cyrillic(word) and not conjunction:
            tags = _grammemes(word, language)
            agrees = bool(taken) and _agrees_with_adjective(taken[-1].group(), word, language)
            if not agrees and tags & _NOT_NAME_TAGS:
                break  # (a noun agreeing with the adjective before it stays: "срібний вік")
            likeliest = _grammemes(word, language, parses=1)
            if (
                likeliest & {"gent", "datv", "ablt", "loct"}
                and "Fixd" not in tags
                and not (taken and _agrees_with_adjective(taken[-1].group(), word, language))
            ):
                break
        taken.append(match)
    while taken and taken[-1].group() in ("и", "і"):
        taken.pop()
    while len(taken) > 1 and place_named(taken[-1].group(), language):
        taken.pop()  # "срібний вік чернівці": the town after the name
    if not taken:
        return None
    return _title([m.group() for m in taken]), taken[0].start(), taken[-1].end()


def _agrees_with_adjective(adjective: str, word: str, language: str) -> bool:
    """Whether `word` has a nominative noun reading that agrees with the nominative adjective
    before it: "кедровый пар" is a name, though "пар" reads first as the genitive of "пара"."""
    morph = nlp.morph("uk" if language == "uk" else "ru")
    adjectives = [
        p.tag for p in morph.parse(adjective)[:6] if p.tag.POS == "ADJF" and p.tag.case == "nomn"
    ]
    # (the Ukrainian dictionary writes no case on some nominatives and no number on singulars)
    return any(
        p.tag.POS == "NOUN"
        and p.tag.case in ("nomn", None)
        and any(
            (a.number or "sing") == (p.tag.number or "sing") and a.gender in (None, p.tag.gender)
            for a in adjectives
        )
        for p in morph.parse(word)[:6]
    )


# A lowercase intro: an explicit cue ("меня зовут", "my name is"), then a first name the
# dictionary knows (pymorphy3's Name) and perhaps a surname.
_INTRO_LOWER = re.compile(
    r"(?<![\w])(?:меня\s+зовут|мо[её]\s+имя|мене\s+зв[уа]ти|мене\s+звуть|мене\s+звать|"
    r"моє\s+ім['’]я|my\s+name\s+is|"
    r"i\s+am|i['’]m|this\s+is|це|это|я)\s+(?P<first>[a-zа-яёіїєґ'’-]+)(?:\s+(?P<last>[a-zа-яёіїєґ'’-]+))?"
)


_DASHED = re.compile(rf"[—–]\s*(?P<name>{_NAME_WORD}\s+{_NAME_WORD})\s*(?=,|\.|$)")
_LOWER_PAIR = re.compile(r"(?<![\w@.])([а-яёіїєґ'’-]{2,})\s+([а-яёіїєґ'’-]{2,})(?![\w@])")


def _lowercase_pair(text: str, language: str) -> tuple[str, int, int] | None:
    """A first name and a surname in lowercase, said when asked ("ярина бойко"): the
    dictionary knows the surname, or the first name and the word after it is no verb."""
    for match in _LOWER_PAIR.finditer(text):
        first, last = match.group(1), match.group(2)
        if first in _LOWER_STOP or last in _LOWER_STOP:
            continue
        tags_first, tags_last = _grammemes(first, language, 3), _grammemes(last, language, 3)
        if "Surn" in tags_last and ("Name" in tags_first or "NOUN" in tags_first):
            return _title([first, last]), match.start(1), match.end(2)
    return None


def _lowercase_intro(text: str, language: str) -> tuple[str, int, int] | None:
    """The first cue followed by a name ("это расшифровка голосового … меня зовут алексей
    третьяков": the first "это" introduces no one)."""
    for match in _INTRO_LOWER.finditer(text):
        found = _lowercase_intro_at(match, language)
        if found is not None:
            return found
    return None


def _lowercase_intro_at(match: re.Match[str], language: str) -> tuple[str, int, int] | None:
    first, last = match.group("first"), match.group("last")

    def tagged(word: str | None, wanted: set[str]) -> bool:
        return bool(word) and _cyrillic(word) and bool(wanted & _grammemes(word, language, 99))

    # The Ukrainian dictionary lacks some first names ("богдан"): a known surname after it
    # vouches for both.
    surname = bool(last) and tagged(last, {"Surn"})
    if not _cyrillic(first):
        # "my name is jake": only the explicit cue vouches for a Latin word, or a name said
        # with where the client is from ("i'm fiona mcbride from …", "this is marta reis,")
        explicit = match.group().lower().startswith("my")
        if first in _LOWER_STOP or not (explicit or _latin_name_then_from(match)):
            return None
        with_last = bool(last) and last not in _LOWER_STOP
        words = [first, last] if with_last else [first]
        return _title(words), match.start("first"), match.end("last" if with_last else "first")
    if first in _FUNCTION_WORDS or tagged(first, {"PREP", "CONJ", "PRCL", "NPRO"}):
        return None  # "это из гранта": a preposition, however a surname the next word is
    if not (tagged(first, {"Name"}) or surname):
        return None
    if last and _patronymic_of(first, last, language):
        # "галина петровна ремезова": the surname after the patronymic, which is dropped
        after = re.match(r"\s+([а-яёіїєґ'’-]{2,})", match.string[match.end() :])
        if after and after.group(1) not in _LOWER_STOP and tagged(after.group(1), {"Surn"}):
            start = match.end() + after.start(1)
            return (
                _title([first, after.group(1)]),
                match.start("first"),
                start + len(after.group(1)),
            )
        return _title([first]), match.start("first"), match.end("first")
    with_last = bool(last) and last not in _LOWER_STOP and (surname or not tagged(
        last, {"VERB", "INFN", "NPRO", "PREP", "CONJ", "ADVB", "PRCL"}
    ))  # fmt: skip
    words = [first, last] if with_last else [first]
    return _title(words), match.start("first"), match.end("last" if with_last else "first")


def _latin_name_then_from(match: re.Match[str]) -> bool:
    """ "i'm fiona mcbride from …": two words, neither a stop word nor looking like a verb or
    an adverb, then "from", "at", "here" or a comma."""
    first, last = match.group("first"), match.group("last")
    if not last or any(w in _LOWER_STOP or re.search(r"(?:ing|ed|ly)$", w) for w in (first, last)):
        return False
    rest = match.string[match.end() :]
    return bool(re.match(r"\s*(?:,|\bfrom\b|\bat\b|\bhere\b|\bof\b)", rest))


# --- companies and products ------------------------------------------------------------------

# The name a client has given up: "старое «Амурский Лёд»", "the old name 'Tejo Works'".
_OLD_NAME = re.compile(
    r"(?<![\w])(?:старое|старая|старый|старого|прежнее|бывшее|колишн\w*|стара|старе|"
    r"стару|old|former|previous)\s+(?:(?:название|назва|назву|name|brand|бренд)\s*)?[:—–-]?\s*$",
    re.IGNORECASE,
)
_CALLED_JUST_BEFORE = re.compile(
    r"(?:называ\w+|назива\w+|called|named|под\s+названием|під\s+назвою)\s*$", re.IGNORECASE
)
_OLD_NAME_AFTER = re.compile(
    r"\s*[—–-]?\s*(?:это\s+|це\s+|is\s+|was\s+)?(?:the\s+|our\s+|наше\s+|наша\s+)?"
    r"(?:старое|прежнее|бывшее|колишн\w*|стара|старе|old|former|previous)\s+"
    r"(?:название|назва|name|brand|бренд)",
    re.IGNORECASE,
)
_QUOTED = re.compile(
    r"[«\"“„]([^«»\"“”„]{1,80})[»\"”“]"
    # single quotes around a capitalised name, never an apostrophe: 'Rinse & Return', ‘Pant’
    r"|(?<![\w'‘’])['‘](?=[A-ZА-ЯЁІЇЄҐ])([^'‘’\n]{1,60}?[\w!?.)])['’](?![\w'’])"
)
# Nouns that say what the quoted name after them is: Russian and Ukrainian stems (any ending),
# short abbreviations and English words whole.
_ORG_NOUNS = re.compile(
    r"^(?:(?:ооо|оао|зао|ао|ип|тов|фоп|пп|llc|ltd|inc|gmbh)$|компани|компані|фирм|фірм|студи|"
    r"студі|агентств|агенці|фитнес|фітнес|клуб|школ|онлайн-школ|кофейн|кав['’]ярн|сет[ьи]$|"
    r"мереж|автосалон|салон|клиник|клінік|стоматолог|пекарн|ресторан|кафе|отел|готел|гурт|"
    r"групп|сыроварн|сироварн|служб|магазин|застройщик|девелопер|центр|бюро|завод|фабрик|"
    r"театр|музей|фонд|лаборатор|издательств|видавництв|бренд|команд|мастерск|майстерн|"
    r"эко-отел|еко-готел|заклад|барбершоп|парикмахерск|перукарн|пиццери|піцери|кондитерск|"
    r"ателье|ательє|аптек|банк|піцері|автосервис|автосервіс|шиномонтаж|автомойк|автомийк|химчистк|"
    r"хімчистк|питомник|розплідник|гостиниц|хостел|обжарщик|обсмажувальн|пивовар|винодельн|ферм|"
    r"пасік|пасек|пасеч|организаци|організаці|объединени|об['’]єднанн|ассоциаци|асоціаці|союз|"
    r"кооператив|холдинг|корпораци|корпораці|сообществ|спільнот|курорт|сидрери|сидрері|"
    r"лавк|крамниц|комплекс|стойбищ|стійбищ|антикаф|виноробн|парк(?:а|у|е|ом|і|и|ов|ів)?$|"
    r"(?:company|studio|agency|school|restaurant|bakery|hotel|firm|brand|band|team|shop|"
    r"store|clinic|chain|trust|charity|roastery|roasters|brewery|bar|cafe|salon|barbershop|"
    r"farm|winery|gym|organi[sz]ation|association|union|cooperative|community|bookshop|"
    r"bookstore|resort|fund|foundation|nonprofit|charity|workshop|truck|distillery|lodge|"
    r"centre|center)$)",
    re.IGNORECASE,
)
_PRODUCT_NOUNS = re.compile(
    r"^(?:морс|сок|сік|сыр\w{0,3}$|сир\w{0,3}$|продукт|приложени|застосун|додат|песн|пісн|"
    r"сингл|трек|альбом|подкаст|добрив|курс|кампани|кампані|датчик|модел|товар|линейк|"
    r"лінійк|коллекци|колекці|напит|напо|пив[оау]?$|вин[оау]$|сериал|серіал|шоу|игр[аыу]$|"
    r"платформ|книг|журнал|квартал|жк$|новинк|табор|табір|лагер|фестивал|тур$|экскурси|"
    r"екскурсі|марафон|сидр\w{0,2}$|"
    r"(?:apps?|application|song|single|track|album|podcast|campaign|sensor|product|drink|beer|"
    r"wine|series|show|game|book|platform|course|blend|collection|range|edition|flavou?r|"
    r"model|coffee|tea|beer|festival|camp|tour|marathon)$)",
    re.IGNORECASE,
)
# Someone else's name: a reference, a competitor, a style ("как у «Сбера»", "like Nike's").
_REFERENCE_CUE = re.compile(
    r"(?:как\s+(?:у|в|снимает|снимают|сделал\w*)|як\s+(?:у|в)|нравит\w*|подобается|"
    r"подобно|в\s+стиле|у\s+стилі|референс\w*|reference\w*|like|similar\s+to|style\s+of|"
    r"конкурент\w*|competitor\w*|смотрели|дивились|watched|saw)\b[^.!?]{0,30}$",
    re.IGNORECASE,
)
_FROM_PREPOSITION = re.compile(r"(?:^|\s)(?:из|от|з|із|від|у|для)\s*$", re.IGNORECASE)
# Any preposition puts the name after it in an oblique case: "CMO в «Тактилике»", "на
# «Северном Ветре»", "для «Зерна»".
_CASE_PREPOSITION = re.compile(
    r"(?:^|\s)(?:из|от|з|із|зі|від|у|для|в|во|на|при|о|об|про|с|со|к|ко|до|после|після|"
    r"перед|за|под|під|над|по)\s*$",
    re.IGNORECASE,
)
_IS_OUR_PRODUCT = re.compile(
    r"^\W*(?:это|це|is|—|-)?\s*(?:наш|наша|наше|наші|наши|our)\s+(?:нов\w+\s+)?(\w+)",
    re.IGNORECASE,
)
_LEGAL_LATIN = re.compile(
    r"(?P<name>(?:[A-Z][\w&'’.-]*\s+){0,3}[A-Z][\w&'’.-]*),?\s+(?P<form>LLC|Ltd|Inc|GmbH|LLP|PLC|"
    r"Corp|AG|SA|Co\.?|Lda|Ltda|SRL|Srl|BV|Oy|ApS|SAS|SARL|Pty)(?![\w])"
)
_ORG_LATIN = (
    r"(?P<org>(?:[A-Z][\w&'’.-]*|&)(?:\s+(?:[A-Z][\w&'’.-]*|&|of|and|the(?=\s+[A-Z]))){0,4})"
)
# A Cyrillic or Latin name in capitals right after its organisation noun ("в компании
# Ортолайн", "сидрерии Горный Сад", "майстерня Стара Шафа"): up to three words.
_ORG_CAPITALISED = re.compile(
    r"[ \t]+(?P<org>[A-ZА-ЯЁІЇЄҐ][\w&'’-]*(?:[ \t]+(?:[A-ZА-ЯЁІЇЄҐ][\w&'’-]*|&)){0,2}"
    r"(?:[ \t]+[A-ZА-ЯЁІЇЄҐ][\w'’-]*)?)"
)
_EN_COMPANY = re.compile(
    r"(?:\bfrom|\bat|\bfounder\s+of|\bowner\s+of|\bI\s+own|(?P<we>\b[Ww]e\s+are|\b[Ww]e['’]re)"
    r"(?:\s+now)?|\bwith|(?P<cue>\bon\s+behalf\s+of|\brepresenting|"
    # "I work in the communications office at the …"
    r"\bwork(?:ing)?\s+(?:in\s+(?:[\w'’-]+\s+){0,4}?)?(?:for|at)))\s+"
    rf"(?:the\s+(?:band|company|studio|team)\s+|(?P<the>the\s+))?{_ORG_LATIN}"
)
# The work a client does for a company, said instead of a role: "I look after marketing for",
# "i do marketing and bookings for", "I handle PR at", "керую маркетингом у", "отвечаю за
# соцсети в", "веду інстаграм у": the name after it is where the client works.
_WORK_VERB = (
    r"(?:look\s+after|take\s+care\s+of|handle|do|run|lead|manage|head|oversee|"
    r"керую|руковожу|отвечаю\s+за|відповідаю\s+за|занимаюсь|займаюся|веду|работаю|працюю)"
)
_WORK_FOR = re.compile(
    rf"(?<![\w'’-]){_WORK_VERB}\s+(?:[\w'’&-]+\s+){{0,4}}?(?:for|at|в|во|у|на)\s*$", re.I
)
_WORK_FOR_LATIN = re.compile(
    rf"\b[Ii]\s+{_WORK_VERB}\s+(?:[\w'’&-]+\s+){{0,4}}?(?:for|at)\s+(?:the\s+)?"
)
# "ресторан Kava&Vyno", "studio is Pixel Lantern Games", "company's Wick & Wild": a Latin
# name right after a word that says it is an organisation (_ORG_NOUNS)
_AFTER_ORG_NOUN = re.compile(
    # "a distillery, Derwent Heads, in Hobart": a name set off by commas
    rf"(?:['’]s|\s+is|\s*[:—–-]|\s+in\s+[A-Z][\w-]+,|,(?=\s+(?!I\b)[^,.!?]+,))?\s+{_ORG_LATIN}"
)
_CALLED = re.compile(
    r"(?P<noun>\w+),?\s+(?P<now>(?:теперь|тепер|now|уже|вже)\s+)?(?:is\s+|are\s+)?"
    r"(?:called|named|называется|называются|називається|branded\s+as|(?:we\s+)?call\s+it|"
    r"(?:назвали|назвал|назвала|называем|називаємо|назвём|назвемо)"
    r"(?:\s+(?:его|её|ее|их|його|її))?|"
    r"под\s+названием|під\s+назвою|под\s+брендом|під\s+брендом)\s+"
    r"(?P<name>[«\"“]?[^\s«\"“][^,.!?»\"”]{0,60})",
    re.IGNORECASE,
)


# A name as written after "called": the quoted part, else the capitalised words (and numbers)
# that open it ("Fizzleaf in April and…" → "Fizzleaf", "Summit 2 tent" → "Summit 2").
# (Not _NAME_WORD above, a person's: a product's name may hold digits, "&", "+".)
_TITLE_WORD = r"(?:[A-ZА-ЯЁІЇЄҐ][\w&'’+-]*|\d+[\w-]*)"
# The small words a name holds between its capitalised ones ("Cage & Kelp", "Kilt in a Box",
# "Taste of Lviv", "Rock n' Roll"), never before a month or a weekday ("Fizzleaf in April").
_CALENDAR_NAMES = (
    r"January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
)
_TITLE_JOINER = (
    rf"(?:&|\+|of|n['’]|in\s+(?:a|the)|on\s+(?:a|the)|и|і|та)\s+(?!(?:{_CALENDAR_NAMES})\b)"
)
_TITLE_NAME = rf"{_TITLE_WORD}(?:\s+(?:{_TITLE_JOINER})?{_TITLE_WORD}){{0,3}}"
_TITLE_WORDS = re.compile(_TITLE_NAME)
_NOUN_THEN_NAME = re.compile(
    rf"(?P<noun>[^\W\d_]+)\s+(?P<name>[A-ZА-ЯЁІЇЄҐ][\w&'’+-]*(?:\s+{_TITLE_WORD}){{0,2}})"
)


# Names of platforms and channels, which a client publishes on and never makes.
_PLATFORMS = frozenset({
    "youtube", "instagram", "insta", "tiktok", "telegram", "whatsapp", "viber", "facebook",
    "meta", "vk", "vkontakte", "linkedin", "twitter", "x", "threads", "pinterest", "snapchat",
    "google", "yandex", "rutube", "dzen", "ozon", "wildberries", "amazon", "airbnb", "netflix",
    "spotify", "apple", "android", "ios", "reels", "shorts", "stories", "smart", "tv", "ok",
})  # fmt: skip
# A thing the client calls its own, then names: "про наш нож Шеф 210", "our sauce Ghost 7".
_OURS_NAMED = re.compile(
    r"(?<![\w-])(?:наш\w{0,3}|мо[йяюеї]\w{0,2}|мі[йї]|our|my)\s+"
    r"(?:[a-zа-яёіїєґ'’-]+\s+){0,2}?(?P<noun>[a-zа-яёіїєґ'’-]{3,})\s+"
    rf"(?P<name>[A-ZА-ЯЁІЇЄҐ][\w&'’+-]*(?:\s+{_TITLE_WORD}){{0,2}})"
)
# A Latin name after a Cyrillic noun: "карту для подростков CashBack Teen", "про кераміку
# Shine 9H", "стажувальну програму Junior Camp 2027".
_LATIN_AFTER_NOUN = re.compile(
    r"(?<![\w-])(?P<noun>[а-яёіїєґ'’-]{3,})\s+"
    r"(?P<name>[A-Z][A-Za-z0-9&'’+-]*(?:\s+(?:[A-Z][A-Za-z0-9&'’+-]*|\d[A-Za-z0-9-]*)){0,3})"
    r"(?![\w@-]|\.\w)"
)
# A sentence that opens by naming the thing: "sauce is Ghost 7", "the app is NovaPay" (never a
# field of the brief or a person: "goal is Awareness", "my name is Rosa").
_THING_IS = re.compile(
    r"^(?:[Tt]he\s+|[Oo]ur\s+|[Mm]y\s+)?(?P<noun>[A-Za-z][a-z-]{2,})\s+(?:is|'s)\s+(?:called\s+)?"
    rf"(?P<name>[A-Z][\w&'’+-]*(?:\s+{_TITLE_WORD}){{0,2}})"
)
_NOT_THINGS = frozenset({
    "name", "company", "goal", "aim", "budget", "deadline", "audience", "target", "format",
    "idea", "concept", "contact", "number", "phone", "email", "city", "location", "town",
    "boss", "manager", "director", "owner", "ceo", "founder", "wife", "husband", "partner",
    "date", "launch", "platform", "channel", "tone", "style", "reference", "client", "agency",
    "this", "that", "it", "here", "there", "today", "tomorrow", "what", "who", "which", "one",
    "everything", "shoot", "shooting", "premiere", "release", "event", "opening",
})  # fmt: skip
_CALENDAR_WORD = re.compile(rf"(?:{_CALENDAR_NAMES}|Q[1-4])\b")


def _read_named_thing(c: Collector) -> None:
    """The product named after a noun the client calls its own, a Latin name after a
    Cyrillic noun, or a sentence opening "<thing> is <Name>"; never a platform, a person or
    a place."""
    candidates = [(m, m.group("noun")) for m in _OURS_NAMED.finditer(c.text)]
    if _cyrillic(c.text):
        candidates += [(m, m.group("noun")) for m in _LATIN_AFTER_NOUN.finditer(c.text)]
    for sentence in c.sentences:
        match = _THING_IS.match(c.text, _sentence_opening(c, sentence), sentence.end)
        if match and match.group("noun").lower() not in _NOT_THINGS:
            candidates.append((match, match.group("noun")))
    morph = nlp.morph("uk" if c.language == "uk" else "ru")
    for match, noun in candidates:
        start, end = match.span("name")
        name = match.group("name")
        if (
            c.overlaps(start, end)
            or name.split()[0].lower() in _PLATFORMS
            or _CALENDAR_WORD.match(name)
            or _ORG_NOUNS.match(noun)
            or place_named(name, c.language)
        ):
            continue
        if _cyrillic(noun) and not any(p.tag.POS == "NOUN" for p in morph.parse(noun.lower())[:2]):
            continue  # "для YouTube", "сидим в Telegram": no noun before the name
        if _cyrillic(name) and any(
            {"Name", "Surn", "Patr", "Geox"} & set(p.tag.grammemes)
            for p in morph.parse(name.split()[0])[:2]
        ):
            continue  # "наш директор Иван Петров", "наш офис Казань"
        c.add("productName", name, start, end, 0.7)
        c.taken.append((start, end))
        return


# The thing a client launches or names in apposition: "We're launching the Hallam Chef 8",
# "our robot mower, the Maaier X2", "Our big fundraiser, the Whisker Ball, is on …".
_LAUNCHED = re.compile(
    r"(?:\b(?:launch(?:ing|es)?|introduc(?:ing|es?)|releas(?:ing|es?)|unveil(?:ing|s)?)\s+"
    r"(?:the\s+|our\s+)?(?:new\s+)?|\b(?:[Oo]ur|[Mm]y|an?\s+new)\s+(?:[a-z'’-]+\s+){0,3}[a-z-]+,\s+(?:the\s+)?)"
    rf"(?P<name>(?=[A-Z]){_TITLE_NAME})"
)
# The same in Russian and Ukrainian: "Запускаем новый сидр Айва Брют", "випускаємо лінійку
# Друге Дихання" (a few lowercase words, none a preposition, then the capitalised name).
_LAUNCHED_CYRILLIC = re.compile(
    r"\b(?:запуска\w+|выпуска\w+|випуска\w+|выводим|виводимо|представля\w+)\s+"
    r"(?:(?!(?:в|во|на|с|со|у|по|к|ко|до|для|из|з|із|від|от|за|при|про)\s)[а-яёіїєґ'’-]+\s+){0,3}"
    r"(?P<name>[А-ЯЁІЇЄҐA-Z][\w'’-]*(?:\s+[А-ЯЁІЇЄҐA-Z][\w'’-]*){0,2})"
)
# A verb of bringing something new out: the thing named after it is the product.
_LAUNCH_VERB = re.compile(
    r"\b(?:launch(?:ing|es)?|introduc(?:ing|es?)|releas(?:ing|es?)|unveil(?:ing|s)?|"
    r"opening|rolling\s+out|запуска\w*|выпуска\w*|випуска\w*|открыва\w*|"
    r"відкрива\w*|выводим|виводимо)\b",
    re.IGNORECASE,
)
# "меня называют Дима", "I'm called Jake": a person, not a product; "мы называемся …",
# "we're called …": the company.
_WHO_CALLED = r"(?:\w+\s+)?(?:is\s+)?(?:called|named|называ\w*|назива\w*)\s*$"
_PERSON_CALLED = re.compile(rf"(?:\bменя|\bмене|\bme|\bI['’]?m|\bI\s+am)\s+{_WHO_CALLED}", re.I)
_WE_CALLED = re.compile(rf"(?:\bмы|\bми|\bwe['’]?re|\bwe\s+are)\s+{_WHO_CALLED}", re.I)


def _name_cut(written: str) -> str:
    quoted = re.match(r"\s*[«\"“]([^«»\"“”]+)", written)
    if quoted:  # up to the closing quote, which the match stops before
        return quoted.group(1).strip()
    # "called the Summit 2": the article is no part of it; "called The Boathouse" it is
    opening = _TITLE_WORDS.match(re.sub(r"^(?:the|a|an)\s+", "", written.strip()))
    return opening.group().strip() if opening else ""


_RENAMED = re.compile(
    r"(?:теперь|тепер|now)\s+(?:называется|называются|називається|(?:is\s+)?called)\s*$",
    re.IGNORECASE,
)


def _words_before(text: str, position: int, count: int = 3) -> list[str]:
    return re.findall(r"[\w'’-]+", text[max(0, position - 60) : position])[-count:]


def _clause_words_before(c: Collector, position: int) -> list[str]:
    """The words of the sentence before `position`, up to the last quoted name before it."""
    sentence = sentence_at(c.sentences, position)
    start = sentence.start if sentence else max(0, position - 80)
    head = c.text[start:position]
    closed = max(head.rfind("»"), head.rfind("”"))
    return re.findall(r"[\w'’-]+", head[closed + 1 :])


def _verbs_dropped(name: str, start: int, language: str) -> tuple[str, int]:
    """A name without the verb a formal letter opens with ("Обращается Павел Кожевников",
    "Пише Дмитро Савицький"), and where it now starts."""
    words = name.split()
    while len(words) > 1 and _cyrillic(words[0]) and _grammemes(words[0], language, 1) & {
        "VERB", "INFN", "PRTS", "GRND"
    }:  # fmt: skip
        start += name.index(words[1], len(words[0]))
        name = name[name.index(words[1], len(words[0])) :]
        words = name.split()
    return name, start


def _works_for_before(c: Collector, position: int) -> bool:
    """Whether the clause before `position` says the work the client does for a company
    ("Я керую маркетингом у «…»", "I do the socials at …")."""
    sentence = sentence_at(c.sentences, position)
    start = sentence.start if sentence else max(0, position - 80)
    return bool(_WORK_FOR.search(c.text[start:position].rstrip(' «"“')))


def _role_before(words: list[str]) -> bool:
    """A role word among the last words of the clause: the quoted name after it is where the
    client works."""
    return any(_ROLE_ALONE.fullmatch(word) for word in words[-MAX_ROLE_REACH:])


MAX_ROLE_REACH = 6


def _thing_before(words: list[str], language: str) -> bool:
    """Whether the nearest noun among the (up to three) Cyrillic words before a quoted name
    is a common noun for a thing (pymorphy3: inanimate, not a name, a place or an
    organisation), adjectives skipped: "краске", "котёл новый"."""
    morph = nlp.morph("uk" if language == "uk" else "ru")
    for word in reversed(words):
        if not _cyrillic(word):
            return False
        tag = morph.parse(word)[0].tag
        if tag.POS in ("ADJF", "ADJS", "PRTF"):
            continue
        if tag.POS != "NOUN":
            return False
        grammemes = set(tag.grammemes)
        return "inan" in grammemes and not grammemes & {"Name", "Surn", "Patr", "Geox", "Orgn"}
    return False


def _noun_kind(words: Iterable[str]) -> str | None:
    """ "company" or "product" by the nearest org or product noun among `words`."""
    for word in reversed(list(words)):
        if _ORG_NOUNS.match(word):
            return "company"
        if _PRODUCT_NOUNS.match(word):
            return "product"
    return None


def quoted_nominative(name: str, language: str, *, oblique: bool) -> str:
    """A quoted name after "из" / "для" / "від" in the nominative: «Зерна» → «Зерно»,
    «Альпийского Рассвета» → «Альпийский Рассвет». Kept as written otherwise."""
    if not oblique or not _cyrillic(name):
        return name
    morph = nlp.morph("uk" if language == "uk" else "ru")
    if _opens_in_nominative(name.split(), morph):
        return name  # "в «Альфа Групп»", «Мир детства»: a name in the nominative stays as it is
    agreed = _agreeing_nominative(name.split(), morph)
    if agreed:
        return " ".join(agreed)
    chosen = []
    kept = set()  # "у «Кубик і Кава»": words the dictionary reads first in the nominative
    for word in name.split():
        readings = morph.parse(word)
        if readings and readings[0].is_known and readings[0].tag.case == "nomn":
            kept.add(len(chosen))
            chosen.append((word, None))
            continue
        parses = [
            p for p in readings
            if p.tag.case in ("gent", "datv", "ablt", "loct") and p.normal_form != word.lower()
        ]  # fmt: skip
        chosen.append((word, _likeliest_lemma(parses)))
    # an adjective takes the gender of the noun after it: «Северного Ветра» → «Северный Ветер»
    genders = [
        ("plur" if str(p.tag.number) == "plur" else str(p.tag.gender or "") or None)
        if p is not None and p.tag.POS == "NOUN"
        else None
        for _, p in chosen
    ]
    words = []
    for index, (word, parse) in enumerate(chosen):
        if index and chosen[index - 1][1] is not None and chosen[index - 1][1].tag.POS == "NOUN":
            # the words after the head noun qualify it in their own case: «Глубине Байкала»
            # → «Глубина Байкала»
            words.extend(w for w, _ in chosen[index:])
            break
        if index in kept:
            pass
        elif parse is not None and word[:1].isupper():
            wanted = {"nomn"}
            if parse.tag.POS in ("ADJF", "PRTF"):
                gender = next((g for g in genders[index + 1 :] if g), None)
                if gender == "plur":
                    wanted |= {"plur"}
                elif gender:
                    wanted |= {gender, "sing"}
                    adjectives = [
                        p for p in morph.parse(word)
                        if p.tag.POS == parse.tag.POS and p.tag.case == parse.tag.case
                        and str(p.tag.gender or "") == gender
                    ]  # fmt: skip
                    parse = (adjectives or [parse])[0]
            inflected = parse.inflect(wanted) or parse.inflect({"nomn"})
            if inflected:
                word = _capitalised(inflected.word, word)
        elif word[:1].isupper() and len(word) > 3 and word[-1:] in "аяу":
            # unknown to the dictionary ("Кодлаба"): a masculine genitive ending
            word = word[:-1]
        words.append(word)
    return " ".join(words)


_OBLIQUE_CASES = ("gent", "datv", "ablt", "loct")
_ADJECTIVES = ("ADJF", "PRTF")


def _opens_in_nominative(words: list[str], morph) -> bool:
    """Whether the dictionary's likeliest reading of the first word is a nominative."""
    first = morph.parse(words[0])
    return bool(first) and first[0].is_known and first[0].tag.case == "nomn"


def _agreeing_nominative(words: list[str], morph) -> list[str] | None:
    """Adjectives and the noun they agree with, read in one oblique case and put in the
    nominative together, number and gender taken from the noun: «Уральских подъёмниках» →
    «Уральские подъёмники», «Південному Насінні» → «Південне Насіння», «Белгородских
    молочных ферм» → «Белгородские молочные фермы». Words after the noun qualify it in their
    own case and are kept. None when no case reads the words so (an unknown word, a name
    already in the nominative)."""
    if _opens_in_nominative(words, morph):
        return None  # «Мир детства» after "в" is a name in the nominative
    best: tuple[tuple[int, bool, float], list[str]] | None = None
    for case in _OBLIQUE_CASES:
        for head, word in enumerate(words):
            for noun in morph.parse(word):
                if noun.tag.POS != "NOUN" or noun.tag.case != case or not noun.is_known:
                    continue
                number = str(noun.tag.number or "sing")
                agreement = {number} if number == "plur" else {str(noun.tag.gender), "sing"}
                adjectives = []
                for before in words[:head]:
                    fitting = [
                        p for p in morph.parse(before)
                        if p.is_known and p.tag.POS in _ADJECTIVES and p.tag.case == case
                        and agreement <= set(p.tag.grammemes) | {"sing"}
                    ]  # fmt: skip
                    if not fitting:
                        break
                    adjectives.append(max(fitting, key=lambda p: p.score))
                else:
                    # the Ukrainian dictionary writes no number on a singular: ask only for
                    # what is there
                    inflected = [
                        p.inflect({"nomn"} | {g for g in agreement if g in p.tag.grammemes})
                        for p in adjectives
                    ]
                    inflected.append(
                        noun.inflect({"nomn"} | ({number} if noun.tag.number else set()))
                    )
                    if not all(inflected):
                        continue
                    # the longest run of agreeing words wins, then a common noun over a
                    # person's name ("Полі" is the field, not Paul), then the likelier reading
                    common = not {"Name", "Surn", "Patr"} & set(noun.tag.grammemes)
                    rank = (head, common, sum(p.score for p in adjectives) + noun.score)
                    written = [
                        _capitalised(p.word, w) for p, w in zip(inflected, words, strict=False)
                    ]
                    if best is None or rank > best[0]:
                        best = (rank, written + words[head + 1 :])
    return best[1] if best else None


def _likeliest_lemma(parses: list) -> object | None:
    """The first reading of the word whose readings together are the likeliest: an unknown
    "Тактилике" is "тактилика" in four readings of five, "Северном" an adjective, not the
    town "Северн"; a noun's among equals."""
    totals: dict[str, float] = {}
    for parse in parses:
        totals[parse.normal_form] = totals.get(parse.normal_form, 0.0) + parse.score
    if not totals:
        return None
    nouns = {p.normal_form for p in parses if p.tag.POS == "NOUN"}
    best = max(totals, key=lambda lemma: (round(totals[lemma], 3), lemma in nouns))
    return next(p for p in parses if p.normal_form == best)


_GREETING_LEAD = re.compile(
    r"^\W*(?:(?:добрый|доброго|добрий)\s+\w+|добрый|здравствуйте|привет|вітаю|привіт|hello|hi|"
    r"hey)?\W*",
    re.IGNORECASE,
)
# A lowercase first name and surname opening a sentence, then a comma: an introduction line.
_LOWER_LEADING = re.compile(r"(?P<name>[а-яёіїєґ'’-]{2,}\s+[а-яёіїєґ'’-]{2,})\s*,")


# "jaswinder kaur, Spoke & Satchel, bristol": a name, then a capitalised company, then maybe
# the city.
_INTRODUCTION_LINE = re.compile(
    r"(?P<name>[^\W\d_][\w'’-]+\s+[^\W\d_][\w'’-]+),\s*"
    r"(?P<org>[A-ZА-ЯЁІЇЄҐ][^,.!?\n«»\"]{1,40}?)\s*(?=,|$|\.)"
)


_FOR_BRAND = re.compile(r"(?:\bдля|\bfor\s+(?:the|our|a)?)\s*$", re.IGNORECASE)


def _read_introduction_line(c: Collector) -> None:
    """The company of an introduction line, when the words before it are a person's name
    (the dictionary's, or any two words when the bot asked who the client is)."""
    asked = bool({"clientName", "company"} & set(c.asked))
    for sentence in c.sentences:
        offset = _sentence_opening(c, sentence)
        match = _INTRODUCTION_LINE.match(c.text, offset, sentence.end)
        if match is None or c.overlaps(match.start("org"), match.end("org")):
            continue
        person = asked or _introduces_person(match.group("name"), c.language)
        org = match.group("org")
        if len(org.split()) == 1 and (
            not _cyrillic(org) or "Geox" in _grammemes(org, c.language, parses=3)
        ):
            continue  # "Анна Петрова, Москва", "Jane Doe, Leeds": a city, as often as not
        if person:
            c.add("company", org, match.start("org"), match.end("org"), 0.75)
            c.taken.append((match.start("org"), match.end("org")))
            return


def _sentence_opening(c: Collector, sentence: Sentence) -> int:
    """Where a sentence's words start after a greeting ("Добрый день, …", "hi, …")."""
    lead = _GREETING_LEAD.match(sentence.text)
    return sentence.start + (lead.end() if lead else 0)


def _after_introduction(c: Collector, position: int) -> bool:
    """Whether the sentence before `position` is only a person's name and a comma ("Игорь
    Петров, «Пульс»", "артём зуев, «Глубина Байкала»"): the name after it is where they work."""
    sentence = sentence_at(c.sentences, position)
    if sentence is None:
        return False
    head = c.text[_sentence_opening(c, sentence) : position].strip()
    return head.endswith(",") and _introduces_person(head[:-1].strip(), c.language)


def _introduces_person(words: str, language: str) -> bool:
    """Whether the words opening an introduction line are a person's name: capitalised and
    the dictionary's ("Игорь Петров"), or a lowercase first name and surname ("артём зуев")."""
    if _LEADING.fullmatch(words):
        return _person_like(words, language)
    return bool(_LOWER_PAIR.fullmatch(words)) and _lowercase_pair(words, language) is not None


def read_names(c: Collector) -> None:
    text = c.text
    candidates: list[tuple[str, int, int, float, str | None]] = []
    for match in _CORRECTED_NAME.finditer(text):
        name = match.group("name")
        if len(name.split()) >= 2 or _person_like(name, c.language):
            candidates.append((name, match.start("name"), match.end("name"), 0.9, CORRECTION))
    for match in _INTRO.finditer(text):
        name = match.group("name")
        if _person_like(name, c.language):
            candidates.append((name, match.start("name"), match.end("name"), 0.9, None))
    for match in _SIGNATURE.finditer(text):
        name = match.group("name")
        if len(name.split()) >= 2 and _person_like(name, c.language):
            candidates.append((name, match.start("name"), match.end("name"), 0.85, None))
    for match in _NAMED_ROLE.finditer(text):  # "Варвара Лыкова, управляющая"
        name = match.group("name")
        if len(name.split()) >= 2 and _person_like(name, c.language):
            candidates.append((name, match.start("name"), match.end("name"), 0.85, None))
    for match in _HERE.finditer(text):
        candidates.append((match.group("name"), match.start("name"), match.end("name"), 0.85, None))
    for sentence in c.sentences:
        offset = _sentence_opening(c, sentence)
        lower = _LOWER_LEADING.match(text[offset : sentence.end])
        found = lower and _lowercase_pair(lower.group("name"), c.language)
        if found:  # "добрый. артём зуев, «Глубина Байкала», иркутск"
            candidates.append((found[0], offset + found[1], offset + found[2], 0.8, None))
        match = _LEADING.match(text[offset : sentence.end])
        # "Rodeo Bootcamp. 3-day course…" to "what is the product called?" names the thing
        thing_asked = (
            bool(c.asked)
            and c.asked[0] in ("productName", "company")
            and sentence is c.sentences[0]
        )
        if match and not thing_asked and _person_like(match.group("name"), c.language):
            start = offset + match.start("name")
            confidence = 0.8 if "clientName" in c.asked else 0.7
            candidates.append((match.group("name"), start, start + len(match.group("name")),
                               confidence, None))  # fmt: skip
    if "clientName" in c.asked:  # "Sorry, should've introduced myself — Fiona MacLeod, I own…"
        for match in _DASHED.finditer(text):
            if _person_like(match.group("name"), c.language):
                candidates.append((match.group("name"), match.start("name"),
                                   match.end("name"), 0.8, None))  # fmt: skip
    # "я ольга смирнова, фонд «Тёплые руки»": a name in lowercase after a cue (the dictionary
    # vouches for it), whatever the rest of the message capitalises; asked for, without one
    found = _lowercase_intro(text, c.language) or (
        _lowercase_pair(text, c.language) if "clientName" in c.asked else None
    )
    if found is not None:
        candidates.append((found[0], found[1], found[2], 0.85, None))
    if not candidates and c.ner[0] and c.language == "ru" and _two_capitals(text):
        for span in nlp.russian_entities(text):
            if span.type == "PER" and (len(span.text.split()) >= 2 or "clientName" in c.asked):
                candidates.append((span.text, span.start, span.end, 0.75, None))
    surname = _surname_restated(c)
    if surname is not None:
        candidates.insert(0, surname)
    line = _lowercase_introduction_line(c)
    if line is not None:
        candidates.append((line[0], line[1], line[2], 0.8, None))
    restated = _name_restated(c, candidates)
    if restated is not None:
        candidates.insert(0, restated)
    for name, start, end, confidence, kind in candidates:
        name, start = _verbs_dropped(name, start, c.language)
        name, start, end = _fio_ordered(c.text, name, start, end, c.language)
        if not name or c.overlaps(start, end):
            continue
        if kind != CORRECTION and any(f.field == "clientName" for f in c.findings):
            continue
        c.add("clientName", name_nominative(name, c.language), start, end, confidence, kind)
        c.taken.append((start, end))
    guessable = not re.search(r"\d", text) and not any(s.correction for s in c.sentences)
    if (
        not any(f.field == "clientName" for f in c.findings)
        and "clientName" in c.asked
        and guessable
    ):
        # A reply with a number or a correction in it answers something else ("Wait, no — by
        # the 10th", "Котёл новый — «Байкал 24 Турбо»"), however its first words look.
        value = _direct_name(text, c.language)
        if value:
            start = max(text.find(value), 0)
            c.add("clientName", value, start, start + len(value), 0.6, ANSWER)


_FULL_NAME = re.compile(rf"(?<![\w'’-]){_NAME}")
# A client speaking of their surname: the full name they then write is theirs, as it stands
# ("last name nowicki btw, kasia nowicki", "виправлю прізвище: … Лариса Мороз-Кравець").
_SURNAME_CUE = re.compile(
    r"(?<![\w'’-])(?:фамили[яюи]|прізвище|surname|last\s+name|family\s+name)"
    r"(?:\s*(?:is|—|:)?\s*(?P<word>[^\W\d_][\w'’-]{2,}))?",
    re.IGNORECASE,
)


def _surname_restated(c: Collector) -> tuple[str, int, int, float, str | None] | None:
    """The last full name of a message that speaks of the client's surname: a capitalised
    one the dictionary takes for a person, or a lowercase first name before the surname the
    cue names."""
    cue = _SURNAME_CUE.search(c.text)
    if cue is None:
        return None
    last = None
    for match in _FULL_NAME.finditer(c.text, cue.end()):
        name = match.group()
        if (
            len(name.split()) == 2
            and name.split()[0].casefold() not in _OPENERS
            and _person_like(name, c.language)
        ):
            last = (name, match.start(), match.end())
    surname = (cue.group("word") or "").casefold()
    if last is None and surname and surname not in _LOWER_STOP:
        pair = re.search(
            rf"(?<![\w'’-])([^\W\d_][\w'’-]+)\s+({re.escape(surname)})(?![\w'’-])",
            c.text[cue.end() :],
            re.IGNORECASE,
        )
        first = pair.group(1).casefold() if pair else ""
        if pair and first not in _LOWER_STOP and first not in _NOT_NAMES:
            start = cue.end() + pair.start()
            last = (_title([first, surname]), start, cue.end() + pair.end())
    if last is None:
        return None
    return (last[0], last[1], last[2], 0.9, CORRECTION)


# "ciaran o'dwyer, nore ash hurleys": a lowercase introduction line, when both were asked.
_LOWER_INTRODUCTION = re.compile(
    r"(?P<name>[a-zа-яёіїєґ'’-]{2,}\s+[a-zа-яёіїєґ'’-]{2,})\s*[,.;—–]\s*"
    # "rosa fuentes. company is bad dog provisions", "олег рябов, компания — сухой лог"
    r"(?:(?:the\s+|our\s+|моя\s+|наша\s+)?(?:company|компания|компанія|фирма|фірма|brand|бренд)"
    r"(?:\s+is|\s*[:—–-]|\s+это|\s+це)?\s+|from\s+|at\s+|из\s+|з\s+|із\s+)?"
    r"(?P<org>[a-zа-яёіїєґ'’&-]{2,}(?:\s+[a-zа-яёіїєґ'’&-]+){0,3})\s*(?=[,.!?]|$)"
)


def _lowercase_introduction_line(c: Collector) -> tuple[str, int, int] | None:
    """A lowercase name and company opening a reply to "your name and company?"; the
    company is added here too, the name returned."""
    if not {"clientName", "company"} <= set(c.asked) or not lowercase_message(c.text):
        return None
    for sentence in c.sentences:
        offset = _sentence_opening(c, sentence)
        # the name may close its own sentence: "rosa fuentes. company is …"
        match = _LOWER_INTRODUCTION.match(c.text, offset)
        if match is None or c.overlaps(match.start(), match.end()):
            continue
        words = match.group("name").split()
        if any(w in _LOWER_STOP or w in _NOT_NAMES or w in _FUNCTION_WORDS for w in words):
            continue
        org = match.group("org")
        if not any(f.field == "company" for f in c.findings) and not place_named(org, c.language):
            c.add("company", _title(org.split()), match.start("org"), match.end("org"), 0.8)
            c.taken.append((match.start("org"), match.end("org")))
        return _title(words), match.start("name"), match.end("name")
    return None


def _name_restated(
    c: Collector, candidates: list[tuple[str, int, int, float, str | None]]
) -> tuple[str, int, int, float, str | None] | None:
    """In a message that corrects, the last full name sharing a word with a name read in it
    is the one that stands: "Звати мене Ганна Мельничук. Перепрошую — Мельник, Ганна
    Мельник", "typo: it's Ashworth-Lee — Tom Ashworth-Lee". None when there is none or it is
    the name already read first."""
    if not candidates or not any(s.correction for s in c.sentences):
        return None
    words = {word.casefold() for candidate in candidates for word in candidate[0].split()}
    last = None
    for match in _FULL_NAME.finditer(c.text):
        name, start = match.group(), match.start()
        while name.split() and name.split()[0].casefold() in _OPENERS:  # "I'm Daniel Okafor"
            opener = name.split()[0]
            start += name.index(opener) + len(opener) + 1
            name = name[name.index(opener) + len(opener) :].lstrip()
        if (
            len(name.split()) >= 2
            and words & {word.casefold() for word in name.split()}
            and _person_like(name, c.language)
        ):
            last = (name, start)
    if last is None or last[0] == candidates[0][0]:
        return None
    return (last[0], last[1], last[1] + len(last[0]), 0.9, CORRECTION)


# Words a capitalised run may open with that are no part of a name.
_OPENERS = frozenset({"i'm", "i’m", "im", "it's", "it’s", "this", "это", "це", "я"})


def _fio_ordered(text: str, name: str, start: int, end: int, language: str) -> tuple[str, int, int]:
    """A Russian or Ukrainian full name as a form writes it ("Воронова Елена Сергеевна",
    "Елена Сергеевна" after its surname) as a person says it: the first name, then the
    surname; the patronymic dropped. Other names as they are."""
    if not _cyrillic(name):
        return name, start, end
    words = name.split()
    if len(words) == 3 and _tagged(words[-1], "Patr", language):
        words = words[:-1]  # "Воронова Елена Сергеевна"
    elif len(words) == 3 and _patronymic_of(words[0], words[1], language):
        words = [words[0], words[2]]  # "Галина Петровна Ремезова"
    elif len(words) == 2 and _patronymic_of(words[0], words[1], language):
        # "Елена Сергеевна" after its surname; "Дарья Климович" is a surname (no agreement)
        before = re.search(rf"({_NAME_WORD})\s+$", text[max(0, start - 40) : start])
        if before and _tagged(before.group(1), "Surn", language):
            words = [before.group(1), words[0]]
            start -= len(before.group(0))
    if (
        len(words) == 2
        and _tagged(words[1], "Name", language)
        and _tagged(words[0], "Surn", language)
        and not _tagged(words[0], "Name", language)
    ):
        words = [words[1], words[0]]  # "Воронова Елена" → "Елена Воронова"
    return " ".join(words), start, end


def _patronymic_of(first: str, word: str, language: str) -> bool:
    """Whether `word` reads as a patronymic of the gender of the first name `first`."""
    morph = nlp.morph("uk" if language == "uk" else "ru")
    genders = {p.tag.gender for p in morph.parse(first)[:3] if "Name" in p.tag.grammemes}
    return any("Patr" in p.tag.grammemes and p.tag.gender in genders for p in morph.parse(word)[:3])


def _tagged(word: str, grammeme: str, language: str) -> bool:
    """Whether a singular reading of `word` carries `grammeme` ("Иванов" is no plural name)."""
    morph = nlp.morph("uk" if language == "uk" else "ru")
    return any(
        grammeme in p.tag.grammemes and p.tag.number != "plur" for p in morph.parse(word)[:3]
    )


def _two_capitals(text: str) -> bool:
    """Two capitalised words in a row, not at a sentence's start: a full name, perhaps."""
    return bool(re.search(rf"[^.!?\s]\s+{_NAME_WORD}\s+{_NAME_WORD}", text))


_ROLE_WORD = (
    r"(?:[\w’']+-)?(?:маркетолог|директор|руковод|керівни|основател|засновни|співзасновни|"
    r"сооснователь|владел|власни|продюсер|менеджер|главврач|головлікар|бренд-менеджер|"
    r"управляющ|керуюч|координатор|head|founder|co-founder|owner|director|manager|producer|"
    r"marketer|lead|ceo|cmo|cto|coo|associate|officer|coordinator|executive|specialist|"
    r"consultant|president|смм|smm|лід|лид|хед|тимлид|тімлід|hr|эйчар|ейчар|пиарщи|піарни)"
)
# "Варвара Лыкова, управляющая", "Юлія Гринчук, власниця", "Jordan Pike, head of ops": a
# full name followed by its role
_ROLE_ALONE = re.compile(rf"{_ROLE_WORD}[\w’'-]*", re.IGNORECASE)
_NAMED_ROLE = re.compile(
    rf"(?<![\w'’-])(?P<name>{_NAME}),[ \t]*(?:(?:the|a|an)\s+)?(?:[\w’'-]+\s+)?"
    rf"(?i:{_ROLE_WORD})"
)
# "…, директор по маркетингу компании …", "I'm the owner", "head of marketing at …",
# "я маркетолог": a role word right after the name (or after "я" / "I'm"), with the words
# that qualify it ("по маркетингу", "of marketing", "отдела рекламы").
_ROLE = re.compile(
    r"(?:,\s*|\s[—–-]\s*|(?<![\w])(?:я|i['’]m|i\s+am)\s+)(?:(?:the|a|an)\s+)?"
    rf"(?P<role>(?:(?!(?:я|i|the|a|an)\s)[\w’'-]+\s+)?{_ROLE_WORD}[\w’'-]*)",
    re.IGNORECASE,
)
_ROLE_TAIL = re.compile(r"\s+(?P<word>[a-zа-яёіїєґ’'-]+)")
_ROLE_STOP = frozenset({
    "at", "in", "for", "from", "and", "в", "из", "у", "з", "і", "и", "та", "й", "на",
})  # fmt: skip
MAX_ROLE_TAIL = 3


def read_role(c: Collector) -> None:
    name = next((f for f in c.findings if f.field == "clientName"), None)
    if name is None:
        return
    match = _ROLE.search(c.text, name.end, min(len(c.text), name.end + 80))
    if match is None or c.overlaps(match.start("role"), match.end("role")):
        return
    end = match.end("role")
    for _ in range(MAX_ROLE_TAIL):  # "по маркетингу", "of marketing", "отдела рекламы"
        tail = _ROLE_TAIL.match(c.text, end)
        if tail is None or tail.group("word") in _ROLE_STOP or _ORG_NOUNS.match(tail.group("word")):
            break
        end = tail.end()
    role = c.text[match.start("role") : end]
    # "founder of Fitloop LLC": the preposition before a name stays out
    role = re.sub(r"\s+(?:of|по|з|із|with|for)$", "", role, flags=re.IGNORECASE)
    c.add("role", role, match.start("role"), match.start("role") + len(role), 0.75)


def _has_inner_capital(text: str) -> bool:
    """A capitalised word that does not open a sentence: worth running the NER."""
    return bool(re.search(rf"[^.!?\s]\s+[{_UP}][{_LOW}]", text))


def _direct_name(text: str, language: str) -> str | None:
    from briefing.stages.readers import read_name

    value = read_name(text, language)
    if not value:
        return None
    value = re.split(r",|\s+(?:из|от|з|із|від|from|at)\s+|\s[—–-]\s", value)[0].strip(" .")
    if not value or len(value.split()) > 4 or is_confirmation(value) or is_greeting(value):
        return None
    first = value.split()[0].lower()
    if "@" in value or re.search(r"\d", value) or first in _NOT_NAMES or first in _FUNCTION_WORDS:
        return None  # "почта olga@…", "Sorry", "прізвище", "By Canada Day": no name
    if _cyrillic(value) and not _person_like(value, language) and _dictionary_word(value, language):
        return None  # "Цель — привести зрителей": a word the dictionary knows, and no name
    return value


# Words a name never starts with: prepositions, conjunctions, particles ("By Canada Day",
# "До весны", "Для сайту").
_FUNCTION_WORDS = frozenset({
    "by", "to", "for", "in", "on", "at", "until", "till", "before", "after", "about", "with",
    "around", "no", "not", "yes", "ok", "okay", "maybe", "probably", "sure", "please", "as",
    "and", "or", "but", "if", "so", "just", "also", "approximately", "к", "ко", "до",
    "по", "в", "во", "на", "для", "с", "со", "з", "із", "зі", "від", "от", "и", "і", "та", "а",
    "из", "о", "об", "про", "при", "без", "під", "под", "над", "за",
    "но", "але", "или", "або", "да", "так", "нет", "ні", "не", "ок", "около", "близько",
})  # fmt: skip


def _dictionary_word(value: str, language: str) -> bool:
    """Every reading pymorphy3 has of the first word is a known word (none of them a name)."""
    morph = nlp.morph("uk" if language == "uk" else "ru")
    return all(p.is_known for p in morph.parse(value.split()[0]))


_GREETING_WORD = re.compile(r"(?:hi|hello|hey|dear|morning|привет|привіт|вітаю)", re.I)


def _org_cut(org: str) -> str:
    """A Latin organisation name up to its sentence's end, without a dangling "and" / "of"."""
    org = re.split(r"[.,;!?](?:\s|$)", org)[0].strip(" .")
    return re.sub(r"\s+(?:and|of|&)$", "", org)


MAX_NOUN_MODIFIERS = 2


def _lowercase_name_after_noun(
    text: str, position: int, language: str
) -> tuple[str, int, int] | None:
    """The lowercase name after a noun, past up to two words in the genitive that say what
    kind of thing it is ("школи танців стихія" → "Стихія")."""
    for _ in range(MAX_NOUN_MODIFIERS + 1):
        found = lowercase_name_at(text, position, language)
        if found is not None:
            return found
        word = _LOWER_WORD.search(text, position)
        if word is None or text[position : word.start()].strip() or not _cyrillic(word.group()):
            return None
        if "gent" not in _grammemes(word.group(), language, parses=1):
            return None
        position = word.end()
    return None


def _plural_only(word: str, language: str) -> bool:
    """Whether every likely reading of `word` is a plural ("ресторани"; "компании" may be
    one company's genitive)."""
    morph = nlp.morph("uk" if language == "uk" else "ru")
    return all(p.tag.number == "plur" for p in morph.parse(word)[:3])


def _read_lowercase_product(c: Collector) -> None:
    """A voice message's product after its noun ("у нас новый продукт горная гречка это
    хлопья", "табір карпатський ритм в яремчі"): two words or more, so that a common noun
    ("продукт хлопья") is no name."""
    for token in re.finditer(r"[а-яёіїєґ'’-]+", c.text):
        if not _PRODUCT_NOUNS.match(token.group()):
            continue
        found = _lowercase_name_after_noun(c.text, token.end(), c.language)
        if found is None or len(found[0].split()) < 2 or c.overlaps(found[1], found[2]):
            continue
        if _PRODUCT_NOUNS.match(found[0].split()[0]) or _ORG_NOUNS.match(found[0].split()[0]):
            continue
        c.add("productName", found[0], found[1], found[2], 0.7)
        c.taken.append((found[1], found[2]))
        return


def read_companies_and_products(c: Collector) -> None:
    text = c.text
    _read_renamed(c)
    for match in _QUOTED.finditer(text):
        name = (match.group(1) or match.group(2)).strip()
        if len(re.sub(r"\W", "", name)) < 2 or c.overlaps(match.start(), match.end()):
            continue  # "через «ц»": a letter spelt out is no name
        if _OLD_NAME.search(text[max(0, match.start() - 30) : match.start()]) or (
            _OLD_NAME_AFTER.match(text, match.end())
        ):
            continue  # "старое «Амурский Лёд» нигде не пишите", "«Колорит-Урал» — прежнее
            # название": a name given up
        if _CALLED_JUST_BEFORE.search(text[max(0, match.start() - 30) : match.start()]):
            continue  # "Услуга называется «ДронАгро»": read with its noun below (_CALLED)
        before = _words_before(text, match.start())
        kind = _noun_kind(before)
        works_at = False
        after = _IS_OUR_PRODUCT.match(text[match.end() : match.end() + 40])
        if after and _PRODUCT_NOUNS.match(after.group(1)):
            kind = "product"
        oblique = bool(_FROM_PREPOSITION.search(text[max(0, match.start() - 30) : match.start()]))
        preposition_only = oblique and re.search(
            r"(?:из|від|з|із|от)\s*$", text[: match.start()], re.IGNORECASE
        )
        cued = bool(
            _WE_ARE.search(text[max(0, match.start() - 20) : match.start()])
            or _apposed_org_noun(text, match.end())
        )
        if kind is None and cued:
            kind = "company"  # "Мы — «Озёрный Край», парк отдыха": the client's organisation
        if kind is None and (preposition_only or _after_introduction(c, match.start())):
            kind = "company"  # "я из «Зерна»", "Игорь Петров, «Пульс»": where the client is from
        if kind == "company" and any(
            f.field == "company" and f.kind == CORRECTION for f in c.findings
        ):
            continue  # "ассоциация «Волга Тех» … переименовались, теперь «Волга Диджитал»"
        if kind == "company" and any(f.field == "company" for f in c.findings):
            # "сеть аптек «Здоровье», открываем лабораторию «Анализ Плюс»": the second
            # organisation is the new thing the briefing is about
            kind = "product"
        if kind is None and _noun_kind(_clause_words_before(c, match.start())) == "product":
            # "продукт у нас — протеиновые батончики «Номад Бар»": the noun further back
            kind = "product"
        if (
            kind is None
            and not any(f.field == "company" for f in c.findings)
            and (
                works_at := _role_before(_clause_words_before(c, match.start()))
                or _works_for_before(c, match.start())
            )
        ):
            # "Я CMO в «Бастион Софт»", "директор виноробні «Бессарабські Пагорби»",
            # "руководитель отдела маркетинга на хладокомбинате «Северный Пломбир»": where the
            # client works
            kind = "company"
        if kind is None and _thing_before(before, c.language):
            # "новой фасадной краске «ФасадПро Арктика»", "Котёл новый — «Байкал 24 Турбо»":
            # a quoted name after a noun for a thing names that thing, not the company
            kind = "product"
        if kind is None:
            if "productName" in c.asked:
                kind = "product"
            elif {"clientName", "company"} & set(c.asked) and not (
                any(f.field == "company" for f in c.findings)
                and _LAUNCH_VERB.search(" ".join(_clause_words_before(c, match.start())))
            ):
                # (a name opened after the company is the new thing: "открываем отделение —
                # «Экзоцентр»"; "ми з осені вже «Електроджміль»" is the company again)
                kind = "company"
            elif _REFERENCE_CUE.search(text[max(0, match.start() - 40) : match.start()]):
                continue  # "нравится, как снимает «Азбука вкуса»": someone else's work
            else:
                # A name the client gives a thing of theirs (фестиваль «Волга Саунд»,
                # новая услуга «Е-Лев», диван «Облако»): what the briefing is about. The
                # read-back shows it, and a surer reading replaces it.
                kind = "product"
        inflected = _CASE_PREPOSITION.search(text[max(0, match.start() - 30) : match.start()])
        # "основательница «Суздальской валяльни»": a role governs the genitive
        governed = _role_before(_words_before(text, match.start(), 1))
        value = quoted_nominative(name, c.language, oblique=bool(inflected) or governed)
        field_name = "company" if kind == "company" else "productName"
        if field_name == "productName" and "productName" in c.asked:
            continue  # a direct answer to the product question is read whole, below
        confidence = 0.85 if _noun_kind(before) or preposition_only or works_at or cued else 0.7
        renamed = _RENAMED.search(text[max(0, match.start() - 40) : match.start()])
        sentence = sentence_at(c.sentences, match.start())
        correcting = renamed or (sentence is not None and sentence.correction)
        if (
            field_name == "productName"
            and not correcting
            and any(f.field == "productName" and f.confidence >= confidence for f in c.findings)
        ):
            continue  # "… краске «ФасадПро Арктика» … к выставке «Стройэкспо»": the first
        c.add(field_name, value, match.start(1), match.end(1), confidence,
              CORRECTION if renamed else None)  # fmt: skip
        c.taken.append((match.start(), match.end()))
    for match in _CALLED.finditer(text):
        name = _name_cut(match.group("name"))
        start = text.find(name, match.start("name")) if name else -1
        if not name and lowercase_message(text):
            found = lowercase_name_at(text, match.start("name"), c.language, closing=True)
            if found is not None:
                name, start = found[0], found[1]
        if start < 0 or c.overlaps(start, start + len(name)):
            continue
        end = start + len(name)
        # The noun right before, else the nearest one of the clause ("a small outdoor gear
        # company called …", "our first tent, it's called the Summit 2").
        before = text[max(0, match.start() - 30) : match.start("name")]
        noun_kind = _noun_kind([match.group("noun")]) or _noun_kind(
            _clause_words_before(c, match.start("name"))[-4:]
        )
        if _WE_CALLED.search(before):
            noun_kind = "company"
        elif _LAUNCH_VERB.search(" ".join(_clause_words_before(c, match.start("name")))):
            # "we're launching a new oat bar called the Stack Bar", "открываем кафе под
            # названием …": what is launched is what the video is about, whatever its noun
            noun_kind = "product"
        # "продукт теперь называется «Лавка+»": a rename, i.e. a correction
        renamed = CORRECTION if match.group("now") else None
        if noun_kind == "company":
            if any(f.field == "company" for f in c.findings):
                continue
            c.add("company", name, start, end, 0.8, renamed)
        elif noun_kind == "product" or "productName" in c.asked:
            c.add("productName", name, start, end, 0.85, renamed)
        elif not _PERSON_CALLED.search(before):
            # Whatever else a client names ("the tent … called the Summit 2", "услугу
            # детейлинг называется …") is what the briefing is about; a person is not.
            c.add("productName", name, start, end, 0.75, renamed)
        else:
            continue
        c.taken.append((start, end))
    if not any(f.field == "productName" for f in c.findings):
        for match in [*_LAUNCHED.finditer(text), *_LAUNCHED_CYRILLIC.finditer(text)]:
            start, end = match.span("name")
            if not c.overlaps(start, end):
                c.add("productName", match.group("name"), start, end, 0.75)
                c.taken.append((start, end))
                break
    if not any(f.field == "productName" for f in c.findings):
        for match in _NOUN_THEN_NAME.finditer(text):  # "our app NovaPay", "морс Северный"
            if _PRODUCT_NOUNS.match(match.group("noun")) and not c.overlaps(
                match.start("name"), match.end("name")
            ):
                c.add("productName", match.group("name"), match.start("name"),
                      match.end("name"), 0.75)  # fmt: skip
                c.taken.append((match.start("name"), match.end("name")))
                break
    if not any(f.field == "productName" for f in c.findings):
        _read_named_thing(c)
    if not any(f.field == "productName" for f in c.findings) and lowercase_message(text):
        _read_lowercase_product(c)
    if not any(f.field == "company" for f in c.findings):
        for match in _LEGAL_LATIN.finditer(text):
            value = f"{match.group('name')} {match.group('form')}".strip()
            value = re.sub(r"^(?:From|At|Of)\s+", "", value)
            if not c.overlaps(match.start(), match.end()):
                c.add("company", value, match.start(), match.end(), 0.9)
                c.taken.append((match.start(), match.end()))
                break
    if not any(f.field == "company" for f in c.findings):
        _read_work_for(c)
    if not any(f.field == "company" for f in c.findings):
        _read_apposed_company(c)
    if not any(f.field == "company" for f in c.findings):
        lowercase = lowercase_message(text)
        for token in re.finditer(r"[\w-]+(?:['’][\w-]+)*", text):  # "кав'ярня", "company's"
            word = re.sub(r"['’]s$", "", token.group())
            after = token.start() + len(word)
            if _GREETING_WORD.fullmatch(" ".join(_words_before(text, token.start(), 1))):
                continue  # "Hi team — Priya Nair here": the studio is greeted, not named
            if lowercase and _ORG_NOUNS.match(word) and _cyrillic(word):
                # "владелец автосервис мотор профи в екатеринбурге", "школи танців стихія" (the
                # dictionary vouches for the words; an English "our shop then kids skating"
                # has none)
                found = _lowercase_name_after_noun(text, after, c.language)
                if (
                    found is not None
                    and not c.overlaps(found[1], found[2])
                    # "ресторани київ львів": restaurants in general, then places
                    and not _plural_only(word, c.language)
                    and not place_named(found[0], c.language)
                ):
                    c.add("company", found[0], found[1], found[2], 0.7)
                    c.taken.append((found[1], found[2]))
                    break
            in_address = text[token.start() - 1 : token.start()] in (".", "@", "/", "_")
            match = (
                _ORG_NOUNS.match(word)
                and not in_address  # "@kmit.bakery" names no bakery
                and (_AFTER_ORG_NOUN.match(text, after) or _ORG_CAPITALISED.match(text, after))
            )
            if not match:
                continue
            org = _org_cut(match.group("org"))
            if place_named(org, c.language):
                continue  # "a vertical farm in Jurong, Singapore": where it is, not its name
            if not c.overlaps(match.start("org"), match.end("org")):
                # "ролик для бренда Лесная Полка", "a video for the brand Nomad": what the
                # video is for, the product; "я из бренда …" is where the client works
                field = "productName" if _FOR_BRAND.search(text[: token.start()]) else "company"
                if field == "productName" and any(f.field == field for f in c.findings):
                    continue
                c.add(field, org, match.start("org"), match.end("org"), 0.75)
                c.taken.append((match.start("org"), match.end("org")))
                if field == "company":
                    break
    if not any(f.field == "company" for f in c.findings) and _cyrillic(text):
        # after the names said after an organisation word ("клуба бегущая волга")
        _read_organisation_phrase(c)
    if not any(f.field == "company" for f in c.findings):
        _read_introduction_line(c)
    if not any(f.field == "company" for f in c.findings):
        for match in _EN_COMPANY.finditer(text):
            if (
                match.group("the")
                and not match.group("we")
                and not match.group("cue")
                and not _role_before(_clause_words_before(c, match.start()))
            ):
                continue  # "at the Boston Public Library" is a place; "associate at the …" not
            org = _org_cut(match.group("org"))
            if place_named(org, c.language):
                continue  # "remote teams from Germany, Netherlands, US"
            if org and not c.overlaps(match.start("org"), match.end("org")):
                c.add("company", org, match.start("org"), match.end("org"), 0.75)
                c.taken.append((match.start("org"), match.end("org")))
                break
    if (
        not any(f.field == "company" for f in c.findings)
        and c.ner[1]
        and c.language == "ru"
        and _has_inner_capital(text)
        and not _QUOTED.search(text)
        and any(_ORG_NOUNS.match(word) for word in re.findall(r"[\w-]+", text))
    ):
        for span in nlp.russian_entities(text):
            if (
                span.type == "ORG"
                and not c.overlaps(span.start, span.end)
                and _noun_kind(_words_before(text, span.start)) == "company"
            ):
                c.add("company", span.text, span.start, span.end, 0.7)
                break


# A rename said as such: "We renamed last spring — it's Lantern Row Tours now", "мы
# переименовались, теперь мы «Северный Лён»", "ми перейменувалися — тепер «Лан»".
_RENAME_CUE = re.compile(
    r"(?<![\w'’-])(?:renamed|rebranded|changed\s+(?:our|the|its)\s+name|переименова\w*|"
    r"перейменува\w*|сменили\s+название|змінили\s+назву|ребрендинг\w*)",
    re.IGNORECASE,
)
_RENAMED_TO = re.compile(
    r"(?:\b(?:it['’]?s|we['’]re|we\s+are|now)\s+(?:called\s+)?|(?<![\w])(?:теперь|тепер)\s+"
    r"(?:(?:мы|ми|это|це|называемся|називаємося)\s+)?(?:[—–-]\s*)?)(?P<name>[«\"“]?[A-ZА-ЯЁІЇЄҐ][^.!?\n]{0,60})"
)


def _read_renamed(c: Collector) -> None:
    """The new name after a rename cue: the company's (the product's when the message speaks
    of one), as a correction; a person it never is ("it's Lantern Row Tours now")."""
    if not _RENAME_CUE.search(c.text):
        return
    for match in _RENAMED_TO.finditer(c.text):
        name = _name_cut(match.group("name"))
        start = c.text.find(name, match.start("name")) if name else -1
        if start < 0 or c.overlaps(start, start + len(name)) or place_named(name, c.language):
            continue
        field = "company"
        if _noun_kind(re.findall(r"[\w'’-]+", c.text)) == "product":
            field = "productName"  # "we renamed the app — it's Flowly now"
        c.add(field, name, start, start + len(name), 0.85, CORRECTION)
        c.taken.append((start, start + len(name)))
        return


_FROM_AFTER_NAME = re.compile(r"\s*,?\s*(?:from|at|with)\s+(?:the\s+)?")


def _read_work_for(c: Collector) -> None:
    """The company after the work a client does for it ("I look after marketing for Saltpan
    Divers", "i do marketing and bookings for olare plains camp we're …")."""
    lowercase = lowercase_message(c.text)
    cues = list(_WORK_FOR_LATIN.finditer(c.text))
    intro = _lowercase_intro(c.text, c.language) if lowercase else None
    if intro is not None and not _cyrillic(intro[0]):
        # "this is thandiwe nkosi from kasi kitchen tours in cape town"
        cues += [m for m in [_FROM_AFTER_NAME.match(c.text, intro[2])] if m]
    for cue in cues:
        if lowercase:
            found = lowercase_name_at(c.text, cue.end(), c.language)
        else:
            org = _ORG_LATIN_AT.match(c.text, cue.end())
            found = org and (_org_cut(org.group("org")), org.start("org"), org.end("org"))
        if not found or not found[0] or c.overlaps(found[1], found[1] + len(found[0])):
            continue
        if place_named(found[0], c.language):
            continue  # "I run tours at Dubrovnik": a place
        c.add("company", found[0], found[1], found[1] + len(found[0]), 0.8)
        c.taken.append((found[1], found[1] + len(found[0])))
        return


_ORG_LATIN_AT = re.compile(_ORG_LATIN)
# The company named before the words that say what it is: "Saltpan Divers, we're a dive
# centre", "Canopy Stack, a vertical farm", "«Озёрный Край», парк отдыха", "«Лан» — студія".
_APPOSED = re.compile(
    r"\s*(?:,|\s[—–-])\s*(?P<det>(?:we['’]re|we\s+are|это|це)\s+)?(?P<article>(?:a|an|the|our)\s+)?"
    r"(?P<words>(?:[^\W\d_][\w'’-]*\s+){0,3}[^\W\d_][\w'’-]*)"
)
_APPOSED_LATIN = re.compile(rf"{_ORG_LATIN}(?=,\s)")
# "Мы — «Озёрный Край»", "Ми — «Кубик і Кава»", "We are «…»": the client's organisation.
_WE_ARE = re.compile(r"(?<![\w])(?:мы|ми|we\s+are|we['’]re)\s*(?:[—–-]|это|це)?\s*$", re.I)


def _apposed_org_noun(text: str, end: int, *, article: bool = False) -> bool:
    """Whether the words after `end` (a comma or a dash, then up to four words) hold an
    organisation word: the name before them is a company's. With `article`, only when they
    open with one ("Derwent Heads, a small distillery"; "Morag McKenzie, I run the
    distillery" is a person)."""
    match = _APPOSED.match(text, end)
    if article and match and not (match.group("article") or match.group("det")):
        return False
    words = match.group("words").split() if match else []
    for index, word in enumerate(words):
        if word.casefold() in _APPOSED_STOP or _ROLE_ALONE.fullmatch(word):
            return False  # "Jane Smith, the owner of Crumbs": a person and their role
        if _ORG_NOUNS.match(word):
            # "Jane Smith, a bakery owner": the role after the organisation's word
            return not (index + 1 < len(words) and _ROLE_ALONE.fullmatch(words[index + 1]))
        if _PRODUCT_NOUNS.match(word):
            return False
    return False


_APPOSED_STOP = frozenset({
    "of", "at", "from", "for", "in", "i", "в", "у", "з", "із", "из", "для", "на", "я",
})  # fmt: skip


# Adjectives, then the organisation word they agree with, then perhaps what it is of, said
# in an oblique case where the client works or writes from: "заступниця директора з наукової
# роботи Ніжинського краєзнавчого музею", "из курского областного центра занятости".
_ORGANISATION_PHRASE = re.compile(
    # a lookahead: every word is tried as the first, the phrases overlap
    r"(?<![\w'’-])(?=(?P<phrase>[а-яёіїєґА-ЯЁІЇЄҐ][а-яёіїєґ'’-]+(?:\s+[а-яёіїєґ'’-]+){1,4}))"
)
_FROM_OR_AT = re.compile(r"(?:^|\s)(?:из|от|з|із|від|в|во|у)\s*$", re.IGNORECASE)


def _read_organisation_phrase(c: Collector) -> None:
    """An organisation named by its adjectives and its organisation word in the genitive or
    the locative, after a role or a preposition of where the client is, put in the
    nominative: "Ніжинського краєзнавчого музею" → "Ніжинський краєзнавчий музей"."""
    morph = nlp.morph("uk" if c.language == "uk" else "ru")
    lowercase = lowercase_message(c.text)
    for match in _ORGANISATION_PHRASE.finditer(c.text):
        words = match.group("phrase").split()
        if not lowercase and not words[0][:1].isupper():
            continue
        head = next(
            (
                i for i, w in enumerate(words)
                if i and any(_ORG_NOUNS.match(p.normal_form) for p in morph.parse(w)[:2])
            ),
            None,
        )  # fmt: skip
        if head is None:
            continue
        before = c.text[max(0, match.start() - 30) : match.start()]
        clause = _clause_words_before(c, match.start())
        if not (_FROM_OR_AT.search(before) or _role_before(clause)):
            continue
        # the organisation word and what it is of ("центра занятости"): one genitive after it
        tail = words[head + 1 : head + 2]
        if tail and "gent" not in {str(p.tag.case) for p in morph.parse(tail[0])[:2]}:
            tail = []
        agreed = _agreeing_nominative(words[: head + 1], morph)
        if not agreed or agreed == words[: head + 1] or len(agreed) != head + 1:
            continue
        value = " ".join(agreed + tail)
        value = value[:1].upper() + value[1:]
        end = match.start() + len(" ".join(words[: head + 1 + len(tail)]))
        if c.overlaps(match.start(), end) or place_named(value, c.language):
            continue
        c.add("company", value, match.start(), end, 0.75)
        c.taken.append((match.start(), end))
        return


def _read_apposed_company(c: Collector) -> None:
    """A capitalised Latin name followed by what the company is ("Derwent Heads, a small
    distillery", "Saltpan Divers, we're a dive centre")."""
    for match in _APPOSED_LATIN.finditer(c.text):
        org = _org_cut(match.group("org"))
        start = match.start("org")
        if (
            not org
            or c.overlaps(start, start + len(org))
            or not _apposed_org_noun(c.text, match.end(), article=True)
            or place_named(org, c.language)
        ):
            continue
        c.add("company", org, start, start + len(org), 0.8)
        c.taken.append((start, start + len(org)))
        return


# A reply that opens with a subject pronoun is a sentence about something, never a name.
_CLAUSE_OPENING = r"(?:we|i|you|they|it|he|she|мы|я|вы|они|ми|ви|вони)(?:['’](?:d|re|ll|m|s|ve)|\s)"


def read_product_title(c: Collector) -> None:
    """A reply to the product question that opens with a name standing alone as a sentence
    ("Rodeo Bootcamp. 3-day course for beginners"), whatever the sentences after it say."""
    if "productName" not in c.asked or any(f.field == "productName" for f in c.findings):
        return
    first = c.sentences[0] if c.sentences else None
    if first is None or len(c.sentences) < 2 or first.question:
        return
    name = first.text.strip().rstrip(".!")
    # two words at least: "Sorry.", "Хорошо." open a reply as often as a name does
    if 2 <= len(name.split()) <= 4 and _TITLE_WORDS.fullmatch(name) and not is_chatter(name):
        start = c.text.find(name)
        c.add("productName", name, start, start + len(name), 0.65, ANSWER)


def read_product_answer(c: Collector) -> None:
    """A direct answer to the product question: the name, not the sentence around it."""
    if "productName" not in c.asked or any(f.field == "productName" for f in c.findings):
        return
    from briefing.stages.readers import read_text

    value = read_text(c.answer_text, c.language)
    if not value or is_confirmation(value) or is_greeting(value) or declines(value):
        return  # "The rest later" puts the name off
    value = value.rstrip(" .!")
    quoted = re.search(r"[,:—–-]\s*[«\"“]([^«»\"“”]+)[»\"”]", value)
    if quoted:  # "Сам клуб, «Пульс»": the name after the separator
        c.add("productName", quoted.group(1), quoted.start(1), quoted.end(1), 0.65, ANSWER)
        return
    if re.match(_CLAUSE_OPENING, value, re.IGNORECASE):
        return  # "We'd like a Yorkshire accent", "Мы хотим…": a sentence, not a name
    if len(value.split()) <= 6 and not re.search(r"[.!?]\s", value):
        start = max(c.text.find(value), 0)
        c.add("productName", value, start, start + len(value), 0.65, ANSWER)
