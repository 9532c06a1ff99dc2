"""What a sentence the client volunteers is about, for the free-text fields no label names:
the audience ("студенти, айтішники, молоді пари 18–30", "families aged 28–45"), the goal
("чтобы бронировали через сайт", "so that people book online"), the format ("один ролик на
минуту", "60-second", "вертикальные") and the deliverables ("one film and three cut-downs",
"3–4 рілси"), and the idea ("ну идея такая …", "we want to show how …"). A producer files
such a sentence under its topic whatever was asked; the dialogue then does not ask for it.
Each topic is told by words of its own, never by the sentence's place in the conversation;
a question is no statement, and a sentence about money, a date or a contact keeps its facts
to the fields that read them."""

from __future__ import annotations

import re

from briefing.reader.findings import Collector

# Below a labelled statement's 0.8: a label said outright wins over a topic told by its words.
TOPIC_CONFIDENCE = 0.72
# A sentence longer than this is a story, not an answer about one topic.
MAX_TOPIC_WORDS = 60

_PEOPLE = (
    r"студент\w*|школьник\w*|школяр\w*|пар[аыу]?\b|пари\b|сем[ьеи]\w*|сім[’'`]\w*|родин\w*|"
    r"мам[аыиу]?\b|мамочк\w*|родител\w*|батьк\w*|турист\w*|молод[её]ж\w*|молодь\w*|"
    r"подрост\w*|підлітк\w*|пенсионер\w*|пенсіонер\w*|айтишник\w*|айтішник\w*|"
    r"предпринимател\w*|підприємц\w*|местн\w+\s+жител\w*|місцев\w+\s+мешкан\w*|"
    r"горожан\w*|городян\w*|покупател\w*|покупц\w*|клиент\w*|клієнт\w*|гост[ьией]\w*|"
    r"students?|famil(?:y|ies)|parents?|couples?|tourists?|teens?|teenagers?|"
    r"professionals?|millennials|gen\s*z|mums?|moms?|dads?|locals|travell?ers?|kids|"
    r"children|retirees|seniors|(?:young|older)\s+(?:people|adults|women|men)|"
    r"women|men\b|owners|buyers|shoppers|customers|visitors|fans"
)
_AGES = (
    r"(?:\b\d{1,2}\s*[–—-]\s*\d{2}\b(?:\s*(?:лет|років|рокiв|years?|y\.?o\.?|р\.))?"
    r"|\bот\s+\S+\s+до\s+\S+\s+лет|\bвід\s+\S+\s+до\s+\S+\s+років|\baged\s+\d"
    r"|\b\d{1,2}\+|\b(?:за|за\s+)?(?:двадцать|тридцать|сорок|пятьдесят|двадцять|тридцять)\s*\+)"
)
_AUDIENCE_WORD = re.compile(
    r"аудитор\w*|для\s+кого|целев\w+\s+(?:групп|аудитор)|who[’']?s\s+it\s+for|who\s+it[’']?s\s+for"
    r"|who\s+(?:should|will)\s+(?:see|watch)|target\s+(?:group|market|viewers)",
    re.IGNORECASE,
)
_PEOPLE_WORD = re.compile(rf"(?<![\w-])(?:{_PEOPLE})", re.IGNORECASE)
_AGE_RANGE = re.compile(_AGES, re.IGNORECASE)

# "чтобы бронировали", "щоб приходили нові люди", "so that people book", "to get more sign-ups"
_PURPOSE = (
    r"(?:чтобы|чтоб|щоб|щоби|аби|so\s+(?:that\s+)?|in\s+order\s+to|to\s+get|"
    r"(?:want|need|get)\s+(?:[\w’'-]+\s+){1,3}?to|to\s+make\s+people)"
)
_ACTION = (
    r"брони\w*|броню\w*|покупа\w*|купи\w*|купу\w*|приход\w*|прийш\w*|приходи\w*|приезжа\w*|"
    r"приехать|приїжджа\w*|приїхати|прийти|записыва\w*|записал\w*|записува\w*|записа\w*|"
    r"звони\w*|подпис\w*|підпис\w*|заказыва\w*|замовля\w*|замови\w*|узна\w*|дізна\w*|"
    r"пробова\w*|спробува\w*|попробова\w*|захотел\w*|захотіл\w*|обира\w*|выбира\w*|"
    r"book\w*|buy\w*|come\w*|visit\w*|sign(?:ing)?\s+up|order\w*|try\w*|register\w*|"
    r"enrol\w*|download\w*|subscribe\w*|donat\w*|walk\s+in|pop\s+in|call\w*|choose\w*|"
    r"feel\w*|remember\w*|know\w*|think\w*|switch\w*"
)
_GOAL = re.compile(
    rf"(?<![\w-]){_PURPOSE}\s+(?:\S+\s+){{0,5}}?(?:{_ACTION})"
    r"|(?:больше|більше|more|new)\s+(?:\S+\s+)?(?:клиент\w*|клієнт\w*|продаж\w*|запис\w*|"
    r"гост\w*|брон\w*|заяв\w*|заказ\w*|замовлен\w*|покупател\w*|людей|люди|учеников|учнів|"
    r"bookings|sales|customers|sign-?ups|visitors|guests|donations|leads|students|members|"
    r"orders|people|subscribers|followers|downloads)"
    r"|узнаваем\w*|впізнаван\w*|awareness|brand\s+recognition",
    re.IGNORECASE,
)

_DURATION = (
    r"\b\d+(?:[.,]\d+)?\s*[-–]?\s*(?:сек\w*|секунд\w*|хв\b|хвилин\w*|мин\b|минут\w*|"
    r"seconds?|secs?|s\b|minutes?|mins?|second|minute)"
    r"|\bна\s+(?:одну\s+)?(?:минуту|хвилину|полминуты|півхвилини|пару\s+минут|пару\s+хвилин)"
    r"|\b(?:минутн|хвилинн|полуминутн|півхвилинн)\w*"
    r"|\b(?:одн[уаі]|дв[еіа]|два|три|четыре|чотири|пять|п[’']ять|полторы|півтори|десять|"
    r"пятнадцать|п[’']ятнадцять|двадцать|двадцять|тридцать|тридцять|сорок|шестьдесят|"
    r"шістдесят|девяносто|дев[’']яносто)\s+(?:сек|секунд|хвилин|минут)\w*"
    r"|\b(?:one|two|three|four|five|ten|fifteen|twenty|thirty|forty|sixty|ninety|half\s+a|a)"
    r"[\s-](?:minute|second)s?\b|\bminute[\s-]long|\bhalf[\s-]minute"
)
_RATIO = r"\b(?:9|16|4|1)\s*:\s*(?:16|9|5|1)\b"
_FORMAT = re.compile(
    rf"{_DURATION}|{_RATIO}|вертикал\w*|горизонтал\w*|vertical\w*|horizontal\w*"
    r"|квадрат\w*|\bsquare\b",
    re.IGNORECASE,
)
_COUNT = (
    r"(?:\b\d+(?:\s*[–-]\s*\d+)?|\bодин|\bодн[аоуі]\w*|\bдва|\bдве|\bдві|\bтри|\bчетыре|\bчотири|"
    r"\bпять|\bп[’']ять|\bшесть|\bшість|\bнесколько|\bкілька|\bпару|\bпара|\bштук\w*|"
    r"\bone|\btwo|\bthree|\bfour|\bfive|\bsix|\ba\s+few|\ba\s+couple\s+of|\bseveral|\ba\s+set\s+of)"
)
_PIECE = (
    r"ролик\w*|видео|відео|рилс\w*|рілс\w*|reels?|shorts?|clips?|films?|фильм\w*|фільм\w*|"
    r"videos?|cut-?downs?|cutdowns?|версий|версии|версії|версій|тизер\w*|teasers?|photos?|"
    r"фото\w*|stills|сторис|сторіс|stories|posts?|пост\w*|кліп\w*|клип\w*|spots?|ads?|"
    r"episodes?|эпизод\w*|епізод\w*|выпуск\w*|випуск\w*|серии|серій|trailers?|трейлер\w*"
)
_PREPOSITION = r"(?:for|in|on|at|to|для|на|в|во|у|под|під|по|with|с|з)"
_DELIVERABLES = re.compile(
    rf"(?<![:\d]){_COUNT}(?![:\d])\s+(?:(?!{_PREPOSITION}\s)[\w’'-]+\s+){{0,3}}?(?:{_PIECE})\b"
    rf"|(?:{_PIECE})\s*[+x×]\s*\d|\+\s*\d+\s*[–-]?\s*\d*\s*(?:{_PIECE})",
    re.IGNORECASE,
)
_IDEA = re.compile(
    r"(?<![\w-])(?:иде[яюи]|ідея|ідею|idea|concept|концепц\w*|задумк\w*)(?![\w-])"
    r"|(?:хотим|хотели\s+бы|хочемо|хотіли\s+б|want\s+to|we[’']?d\s+like\s+to|would\s+love\s+to)"
    r"\s+(?:\S+\s+){0,2}?(?:показать|показати|show|capture|tell)",
    re.IGNORECASE,
)

# (field, test): the order in which a sentence is filed when it speaks of several.
_TOPICS = (
    ("audience", lambda s: bool(
        _AUDIENCE_WORD.search(s)
        or (_PEOPLE_WORD.search(s) and _AGE_RANGE.search(s))
        or len(_PEOPLE_WORD.findall(s)) >= 2
    )),
    ("goal", lambda s: bool(_GOAL.search(s))),
    ("format", lambda s: bool(_FORMAT.search(s))),
    ("deliverables", lambda s: bool(_DELIVERABLES.search(s))),
    ("coreIdea", lambda s: bool(_IDEA.search(s))),
)  # fmt: skip
# The questions whose reply is read whole as their answer: the topics are not told apart in it.
FREE_TEXT_FIELDS = frozenset({
    "projectType", "coreIdea", "goal", "audience", "keyMessage", "brandTone", "contentType",
    "format", "deliverables", "references", "preferences", "constraints", "notes",
})  # fmt: skip
# The facts whose sentence is theirs: "бюджет 40к, ролик на минуту" tells a budget.
_FACT_FIELDS = frozenset({"contact", "budget", "deadline", "clientName", "company"})


def read_topics(c: Collector) -> None:
    """File each statement under the free-text fields its words speak of, when no label did."""
    found = {f.field for f in c.findings}
    if FREE_TEXT_FIELDS & set(c.asked):
        # The reply to a free-text question is its answer (briefing.turn.dialogue): only the other
        # fields asked with it in one question are told apart in it.
        found |= set(FREE_TEXT_FIELDS) - set(c.asked[1:])
    facts = [(f.start, f.end) for f in c.findings if f.field in _FACT_FIELDS]
    for sentence in c.sentences:
        text = sentence.text.strip()
        if (
            sentence.question
            or not text
            or text.endswith("?")
            or len(text.split()) > MAX_TOPIC_WORDS
            or any(sentence.start <= start < sentence.end for start, _ in facts)
        ):
            continue
        for field, speaks_of in _TOPICS:
            if field in found or not speaks_of(text):
                continue
            value: object = text
            if field == "deliverables":
                value = [text]
            c.add(field, value, sentence.start, sentence.end, TOPIC_CONFIDENCE)
            found.add(field)


# A reply that goes on from the one before: "і ще шортси", "and a teaser", "плюс обложки".
_CONTINUATION = re.compile(
    r"^\W*(?:и|і|й|та|а\s+ещ[её]|а\s+також|ещ[её]|ще|плюс|also|and|plus)\b", re.IGNORECASE
)
_LENGTH_OR_RATIO = re.compile(rf"{_DURATION}|{_RATIO}", re.IGNORECASE)


def tells_something_else(text: str) -> bool:
    """Whether a short reply taken where a name is asked speaks of something else: a length
    or a ratio ("60 sec + shorts"), pieces to deliver ("one film and three cut-downs"), a
    purpose ("so that people book"), or goes on from the reply before ("і ще шортси"). It
    names no product or company."""
    return bool(
        _CONTINUATION.search(text)
        or _LENGTH_OR_RATIO.search(text)
        or _DELIVERABLES.search(text)
        or _GOAL.search(text)
    )
