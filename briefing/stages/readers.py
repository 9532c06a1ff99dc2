"""The rules agent's answer readers: a client's direct answer to the stage's own question
turned into a field's value (text, name, contact, budget, currency, deadline, list,
references, yes/no), or None when the answer says nothing."""

from __future__ import annotations

import datetime
import re

from briefing.reader.contacts import SEPARATOR, contacts_find
from briefing.stages.fields import (
    ITEM_MAX,
    LIST_MAX,
    READ_TEXT_MAX,
)
from llmkit.extract import find_deadlines, find_money, find_urls
from llmkit.extract import parse_number as _parse_number
from llmkit.parse.coerce import NULL_LIKES

# "Nothing to say" answers: a field read from them stays empty.
_NOTHING = NULL_LIKES | {
    "нет",
    "no",
    "nope",
    "ні",
    "ничего",
    "нічого",
    "nothing",
    "пока нет",
    "поки ні",
    "not yet",
    "нет ничего",
    "нема",
    "немає",
}
# Whitespace but the no-break and thin spaces that hold a number's digit groups together.
_SPACE = re.compile(r"[^\S\u00a0\u202f\u2009]+")


def collapse(text: str) -> str:
    """One line: runs of whitespace (newlines included) become one space; no-break and thin
    spaces stay."""
    return _SPACE.sub(" ", text).strip()


# A short answer that only hesitates ("Хм, пока не знаю", "not sure yet") answers nothing:
# the agent asks again rather than writing the hesitation into the brief.
_HESITATION = re.compile(
    r"не\s+знаю|не\s+уверен|подумать|подумаю|затрудняюсь|не\s+впевнен|подумати|не\s+знаю"
    r"|don[’']?t\s+know|not\s+sure|no\s+idea|let\s+me\s+think|need\s+to\s+think",
    re.IGNORECASE,
)
MAX_HESITATION_WORDS = 6


def _is_nothing(text: str) -> bool:
    lowered = text.lower().replace("ё", "е").rstrip(".!…")
    if lowered in _NOTHING:
        return True
    return len(lowered.split()) <= MAX_HESITATION_WORDS and bool(_HESITATION.search(lowered))


# A polite "no" ("Референсов нет", "Референсов пока нет, спасибо", "Ні, дякую.", "Nothing
# to add, thanks!", "No references"): at most MAX_NOTHING_WORDS words, no link, a no-word
# among them and every other word from _NOTHING_FILLER (politeness, "to add", "yet", the
# things the client has none of). The filler list, not the length alone, is what keeps
# real answers that start with a "no": "No voice-over, just music", "Нет, озвучка не
# нужна" and "Нет ограничений по хронометражу, главное вертикально" each carry a word
# outside it and stay answers. Only the free-text and list readers use it: to a yes/no
# question "Нет, спасибо" is a clear no.
_NO_WORDS = frozenset({
    "нет", "ні", "no", "none", "nothing", "nope", "nah", "ничего", "нічого", "нема", "немає",
})  # fmt: skip
_NOTHING_FILLER = frozenset({
    "спасибо", "спс", "благодарю", "пожалуйста", "дякую", "будь", "ласка", "thanks", "thank",
    "you", "thx", "please", "пока", "поки", "еще", "ще", "yet", "вообще", "взагалі", "совсем",
    "зовсім", "особо", "особых", "особливо", "особливих", "really", "at", "all", "any",
    "anything", "more", "else", "other", "больше", "більше", "других", "інших", "и", "і", "та",
    "а", "to", "add", "добавить", "додати", "добавлю", "додам", "у", "нас", "меня", "мене",
    "we", "i", "have", "has", "there", "are", "is", "it", "that's", "it's", "that", "we're",
    "so", "ok", "ок", "окей", "okay", "good", "fine", "think", "думаю", "не", "нужно", "надо",
    "треба", "потрібно", "need", "needed", "don't", "dont", "do", "not", "from", "my", "side",
    "с", "моей", "стороны", "з", "мого", "боку", "референсов", "референсы", "референсів",
    "референси", "примеров", "примеры", "прикладів", "приклади", "ссылок", "посилань",
    "references", "reference", "refs", "examples", "links", "ограничений", "обмежень",
    "constraints", "restrictions", "limits", "limitations", "пожеланий", "побажань", "wishes",
    "preferences", "предпочтений", "вподобань", "комментариев", "коментарів", "comments",
    "замечаний", "зауважень", "notes", "вопросов", "питань", "questions", "идей", "ідей",
    "ideas", "дополнений", "доповнень", "additions",
})  # fmt: skip
MAX_NOTHING_WORDS = 6
_NOTHING_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ][^\W\d_]+)*|\d+")


def _is_polite_nothing(text: str) -> bool:
    words = _NOTHING_WORD.findall(text.lower().replace("ё", "е").replace("’", "'"))
    if not words or len(words) > MAX_NOTHING_WORDS or find_urls(text):
        return False
    return bool(_NO_WORDS.intersection(words)) and all(
        word in _NO_WORDS or word in _NOTHING_FILLER for word in words
    )


def _says_nothing(text: str) -> bool:
    """A free-text or list answer that gives no value: "не знаю", "нет", "Нет, спасибо"."""
    return _is_nothing(text) or _is_polite_nothing(text)


def read_text(text: str, language: str) -> str | None:
    """The answer itself, on one line and capped at READ_TEXT_MAX characters; None for an
    empty, "don't know" or "nothing" answer ("нет", "Нет, спасибо", "No references")."""
    if not isinstance(text, str):
        return None
    cleaned = collapse(text)
    if not cleaned or _says_nothing(cleaned):
        return None
    if len(cleaned) > READ_TEXT_MAX:
        cut = cleaned[:READ_TEXT_MAX]
        # Cut at the last word boundary, unless that throws away most of the text.
        space = cut.rfind(" ")
        cleaned = cut[:space] if space > READ_TEXT_MAX // 2 else cut
    return cleaned


_NAME_LEAD = re.compile(
    r"^(?:меня\s+зовут|мое\s+имя|моё\s+имя|мене\s+звати|моє\s+ім[’'ʼ]я|"
    r"my\s+name\s+is|i\s+am|i[’']m|this\s+is|это|я|це)\s*[,:—–-]?\s+",
    re.IGNORECASE,
)


# A self-description after the name: cut at a comma, semicolon, bracket, full stop or dash
# that is followed by "я" / "I'm" / "I am" or by a role within its first two words (", я
# маркетолог", ", head of marketing at …", " — генеральный директор", ". I run PR").
# Anything else after a comma stays: "Анна Петрова, компания «Вкусно»" says who she is
# for the producer, and "I'm John from Acme" has no separator at all. Role words start a
# word or follow a hyphen ("бренд-менеджер", "co-founder"); the short ones must end it
# too, so "Headway" and "Leading Edge" are no roles.
_ROLE = (
    r"(?:[\w’']+-)?(?:маркетолог|маркетинг|менеджер|директор|руковод|керівни|основател|"
    r"засновни|владел|власни|продюсер|специалист|спеціаліст|представит|представни|"
    r"ассистент|асистент|помощни|сотрудни|співробітни|работаю|працюю|отвечаю|відповідаю|"
    r"marketing|marketer|manager|director|founder|owner|producer|specialist|assistant|"
    r"responsible|working|(?:head|lead|ceo|cmo|cto|coo|cfo|smm|pr|hr)(?![\w’']))"
)
_NAME_TAIL = re.compile(
    r"\s*(?:[,;(.!]|\s[—–-])\s*"
    r"(?:(?:я|i|i[’']m|i\s+am|my\s+role|моя\s+роль|моя\s+посада|моя\s+должность)(?![\w’'])"
    rf"|(?:[\w’'-]+\s+)?{_ROLE}).*$",
    re.IGNORECASE | re.DOTALL,
)


def read_name(text: str, language: str) -> str | None:
    """A name as the client wrote it, without a lead-in or a role after it ("Меня зовут
    Иван." → "Иван"; "I'm Mark Tayler, head of marketing at Brightside." → "Mark
    Tayler")."""
    value = read_text(text, language)
    if value is None:
        return None
    value = _NAME_LEAD.sub("", value)
    value = _NAME_TAIL.sub("", value).rstrip(" .!,;—–-")
    return value or None


# A Ukrainian client's local number reads as Ukrainian first, anyone else's as Russian.


def read_contact(text: str, language: str) -> str | None:
    """Every phone (E.164), e-mail address and messenger handle in the text, comma-separated
    in the order written (briefing.reader.contacts)."""
    if not isinstance(text, str):
        return None
    return SEPARATOR.join(found.value for found in contacts_find(text, language)) or None


def read_budget(text: str, language: str) -> int | None:
    """The first money amount (a range gives its first end, as the rules agent's fill does),
    else the whole answer read as one number ("500 000"); never a percentage or < 0."""
    if not isinstance(text, str):
        return None
    money = find_money(text)
    if money:
        return money[0].value if money[0].value >= 0 else None
    if "%" in text:
        return None
    number = _parse_number(text)
    if number is None or number < 0:
        return None
    return round(number)


_CURRENCY_WORDS = (
    ("RUB", re.compile(r"руб|₽|\brub\b|\brur\b|roubl|rubl", re.IGNORECASE)),
    ("USD", re.compile(r"доллар|долар|\$|\busd\b|dollar|бакс", re.IGNORECASE)),
    ("EUR", re.compile(r"евро|євро|€|\beur\b|euro", re.IGNORECASE)),
    ("UAH", re.compile(r"гривн|гривен|грн|₴|\buah\b|hryvn", re.IGNORECASE)),
)


def read_currency(text: str, language: str) -> str | None:
    """The currency of the first amount; for an answer without an amount ("в рублях"),
    the one currency it names."""
    if not isinstance(text, str):
        return None
    money = find_money(text)
    if money and money[0].currency:
        return money[0].currency
    named = [code for code, pattern in _CURRENCY_WORDS if pattern.search(text)]
    return named[0] if len(named) == 1 else None


# Words a deadline without a date is said in ("как можно скорее", "к весне", "no rush",
# "end of the quarter"): a reply without any is no deadline ("One 15s ad and three stills").
_TIME_WORDS = re.compile(
    r"срок|скорее|скоріше|быстр|швидш|срочн|терміново|горит|горить|asap|soon|rush|urgent|"
    r"недел|тижн|тиждень|месяц|місяц|квартал|год[ау]?\b|року?\b|лет[оа]|літ|весн|осен|осін|"
    r"зим|сезон|праздник|свят|нов\w+\s+год|конц|кінц|начал|почат|середин|"
    r"week|month|quarter|year|spring|summer|autumn|fall|winter|season|holiday|christmas|"
    r"end\s+of|beginning|mid-|before|after|until|by\s|deadline|дедлайн|flexible|гибк|гнучк|"
    r"не\s+горит|нет\s+спешки|без\s+спешки|не\s+поспішаємо|no\s+hard",
    re.IGNORECASE,
)


def read_deadline(text: str, language: str, *, today: datetime.date | None = None) -> str | None:
    """The first deadline as an ISO date; else the client's own words ("как можно скорее").

    Relative deadlines resolve against `today` (default: `datetime.date.today()` at call
    time); bind another clock with `functools.partial(read_deadline, today=...)`.
    """
    if not isinstance(text, str):
        return None
    deadlines = find_deadlines(text, today=today or datetime.date.today())
    if deadlines:
        return deadlines[0].value.isoformat()
    return read_text(text, language) if _TIME_WORDS.search(text) else None


# A comma between two digits is a number's ("€18,000", "1,5 млн"), not a separator.
_LIST_SEPARATOR = re.compile(r"(?:[;\n]|(?<!\d),|,(?!\d))+")
_CONJUNCTION = re.compile(r"\s+(?:и|and|та|і|й)\s+", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•·–—]+|\d{1,2}[.)])\s*")
_PREPOSITIONS = frozenset({
    "in", "on", "for", "at", "with", "into", "to", "на", "для", "в", "во", "с", "со", "по",
    "под", "у", "з", "із", "зі", "під", "до",
})  # fmt: skip
# Language names and adjectives: "Dutch and English", "на русском и английском".
_LANGUAGE_WORD = re.compile(
    r"(?:english|dutch|german|french|spanish|italian|portuguese|polish|russian|ukrainian|"
    r"chinese|japanese|korean|arabic|turkish|kazakh|"
    r"[а-яіїєґ'’]+(?:ск|цк|ськ|цьк|зьк)(?:ий|ій|ая|ое|ом|ой|ою|ие|их|і|и|а|е|у))$",
    re.IGNORECASE,
)
_EDGE_PUNCTUATION = ".!?:«»\"'()"


def _is_language(word: str) -> bool:
    return bool(_LANGUAGE_WORD.fullmatch(word.strip(_EDGE_PUNCTUATION)))


def _one_item(before: str, after: str) -> bool:
    """Whether the conjunction between `before` and `after` joins parts of one item: two
    languages ("subtitles in Dutch and English", "на русском и английском") or two names
    after one preposition ("ролик для Instagram и TikTok")."""
    left, right = before.split(), after.split()
    if not left or not right:
        return True  # "и" at an edge joins nothing
    if _is_language(left[-1]) and _is_language(right[0]):
        return True
    return (
        len(right) == 1
        and len(left) >= 2
        and left[-2].lower() in _PREPOSITIONS
        and right[0][:1].isupper()
    )


def _split_conjunctions(part: str) -> list[str]:
    matches = list(_CONJUNCTION.finditer(part))
    pieces, start = [], 0
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(part)
        if not _one_item(part[start : match.start()], part[match.end() : end]):
            pieces.append(part[start : match.start()])
            start = match.end()
    pieces.append(part[start:])
    return pieces


_LEADING_AND = re.compile(r"^(?:and|и|і|й|та|а\s+также|плюс|plus)\s+", re.IGNORECASE)


def split_list(text: str) -> list[str]:
    """ "ролик 30 с, 3 тизера и обложки" → ["ролик 30 с", "3 тизера", "обложки"].

    Split on commas (not one between digits: "€18,000"), semicolons, new lines and "и" /
    "and" / "та" / "і" / "й" — except a conjunction that joins two languages ("subtitles
    in Dutch and English") or two names after one preposition ("ролик для Instagram и
    TikTok"): those stay one item.
    """
    items = []
    for part in _LIST_SEPARATOR.split(text):
        for piece in _split_conjunctions(part):
            item = _BULLET.sub("", collapse(piece)).rstrip(" .")
            item = _LEADING_AND.sub("", item)  # ", and stills" after an Oxford comma
            if item and not _says_nothing(item):
                items.append(item[:ITEM_MAX])
    return list(dict.fromkeys(items))[:LIST_MAX]


def read_list(text: str, language: str) -> list[str] | None:
    """A list answer split as `split_list` does; None for a "nothing" answer."""
    if not isinstance(text, str) or _says_nothing(collapse(text)):
        return None  # "Хм, пока не знаю" is no list of two items
    return split_list(text) or None


def read_references(text: str, language: str) -> list[str] | None:
    """The links in the answer; an answer without links ("like Apple's ads") is kept as one
    reference in the client's words."""
    if not isinstance(text, str):
        return None
    urls = list(dict.fromkeys(u.value for u in find_urls(text)))
    if urls:
        return urls[:LIST_MAX]
    value = read_text(text, language)
    return [value[:ITEM_MAX]] if value else None


_YES = {
    "да", "ага", "угу", "конечно", "давайте", "давай", "хотим", "нужна", "нужно", "надо",
    "обязательно", "yes", "yeah", "yep", "sure", "definitely", "ok", "okay",
    "звісно", "авжеж", "потрібна", "потрібно", "треба", "хочемо", "обов’язково",
    "обов'язково",
}  # fmt: skip
_NO = {"нет", "неа", "no", "nope", "nah", "ні", "немає", "нема"}
# "так" is a yes only in Ukrainian: in Russian it opens any sentence ("так себе").
_YES_UK = _YES | {"так"}
_NEGATIVE = re.compile(
    r"\bне\s+(?:нужн|надо|требуется|обязательн|хотим|стоит|потрібн|треба|варто|хочемо)|"
    r"\bбез\s+(?:не[её]|креатив)|\bno\s+need\b|\bnot\s+(?:needed|necessary|required)\b|"
    r"\b(?:don[’']?t|do\s+not)\s+(?:need|want)\b|\bwithout\b",
    re.IGNORECASE,
)
_POSITIVE = re.compile(
    r"\b(?:нужн|хотим|хотелось\s+бы|было\s+бы|потрібн|хочемо|хотілося\s+б|було\s+б|"
    r"would\s+like|we[’']?d\s+like|we\s+need|we\s+want|would\s+be\s+great)",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[\w’']+")


def read_yes_no(text: str, language: str) -> bool | None:
    """A yes/no answer in Russian, Ukrainian or English: the first word if it is a yes or a
    no, else a negative phrase ("не нужна", "no need"), else a positive one ("хотим",
    "we'd like"), else a lone yes or no word; None when the answer says neither
    (also for "не знаю")."""
    if not isinstance(text, str) or (_is_nothing(collapse(text)) and not _is_no(text)):
        return None
    yes = _YES_UK if language == "uk" else _YES
    words = _WORDS.findall(text.lower().replace("ё", "е"))
    if not words:
        return None
    if words[0] in yes:
        return True
    if words[0] in _NO:
        return False
    if _NEGATIVE.search(text):
        return False
    if _POSITIVE.search(text):
        return True
    said_yes, said_no = bool(yes & set(words)), bool(_NO & set(words))
    return said_yes if said_yes != said_no else None


def _is_no(text: str) -> bool:
    words = _WORDS.findall(text.lower())
    return bool(words) and words[0] in _NO
