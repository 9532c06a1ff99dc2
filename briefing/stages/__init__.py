"""Briefing stages as data, and the pieces every stage module shares: field types, the
rules agent's answer readers, summary formatting and the prompt template.

The stage modules (`intro`, `vision`, `service`, `budget`, `extra`) import from here;
this module imports none of them, so `registry` is where a briefing type's stages are
listed (`briefing.stages.registry.stages_for`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StringConstraints

from briefing.stages.base import LANGUAGES, StageAnswer, StageSpec, is_empty
from llmkit.extract import find_deadlines, find_emails, find_money, find_phones, find_urls
from llmkit.extract import parse_number as _parse_number
from llmkit.fields import StructuredModel
from llmkit.parse.coerce import NULL_LIKES

# --- field types -------------------------------------------------------------------------

# Generous for a model's answer (a longer one is not worth a retry), while a reader keeps
# only READ_TEXT_MAX characters of a client's answer.
TEXT_MAX = 1000
ITEM_MAX = 300
LIST_MAX = 50
READ_TEXT_MAX = 300


def _none_if_blank(value: str | None) -> str | None:
    return value or None


def _drop_blank_items(values: list[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


# A model's "" means "unknown" as much as null does: both are stored as None.
Text = Annotated[
    Annotated[str, StringConstraints(strip_whitespace=True, max_length=TEXT_MAX)] | None,
    AfterValidator(_none_if_blank),
]
TextList = Annotated[
    list[Annotated[str, StringConstraints(strip_whitespace=True, max_length=ITEM_MAX)]],
    Field(max_length=LIST_MAX),
    AfterValidator(_drop_blank_items),
]


class StageFields(StructuredModel):
    """A stage's own fields without `message` and the status flag: what the final brief
    stores per stage. A stage's answer model is `class XAnswer(XFields, StageAnswer)`, so
    the fields are declared once and `message` comes first in the answer's JSON."""


# --- readers: a client's direct answer to the stage's own question -----------------------

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


def read_text(text: str, language: str) -> str | None:
    """The answer itself, on one line and capped at READ_TEXT_MAX characters; None for an
    empty or "don't know / nothing" answer."""
    if not isinstance(text, str):
        return None
    cleaned = collapse(text)
    if not cleaned or _is_nothing(cleaned):
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


def read_name(text: str, language: str) -> str | None:
    """A name as the client wrote it, without a lead-in ("Меня зовут Иван." → "Иван")."""
    value = read_text(text, language)
    if value is None:
        return None
    value = _NAME_LEAD.sub("", value).rstrip(" .!")
    return value or None


# A Ukrainian client's local number reads as Ukrainian first, anyone else's as Russian.
_PHONE_REGIONS = {"uk": ("UA", "RU")}


def read_contact(text: str, language: str) -> str | None:
    """The first phone number in E.164, else the first e-mail address (lower-cased)."""
    if not isinstance(text, str):
        return None
    for region in _PHONE_REGIONS.get(language, ("RU", "UA")):
        phones = find_phones(text, region=region)
        if phones:
            return phones[0].value
    emails = find_emails(text)
    return emails[0].value if emails else None


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
    return read_text(text, language)


_LIST_SPLIT = re.compile(r"[,;\n]+|\s+(?:и|and|та|і|й)\s+", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•·–—]+|\d{1,2}[.)])\s*")


def split_list(text: str) -> list[str]:
    """ "ролик 30 с, 3 тизера и обложки" → ["ролик 30 с", "3 тизера", "обложки"]."""
    items = []
    for part in _LIST_SPLIT.split(text):
        item = _BULLET.sub("", collapse(part)).rstrip(" .")
        if item and not _is_nothing(item):
            items.append(item[:ITEM_MAX])
    return list(dict.fromkeys(items))[:LIST_MAX]


def read_list(text: str, language: str) -> list[str] | None:
    """A list answer split on commas, semicolons, new lines and "и" / "and" / "та" / "і"."""
    if not isinstance(text, str) or _is_nothing(collapse(text)):
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
_NO = {"нет", "неа", "no", "nope", "ні", "немає", "нема"}
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


# --- summaries ---------------------------------------------------------------------------

# The narrow no-break space: a thin space that does not break a number across lines, and
# unambiguous in every language ("2,500" is not).
THIN_SPACE = "\u202f"


def format_number(value: Any) -> str:
    """500000 → "500 000" with thin spaces; anything else as text."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return collapse(str(value))
    if isinstance(value, float) and not value.is_integer():
        whole, _, fraction = f"{value:,.2f}".partition(".")
        return whole.replace(",", THIN_SPACE) + "," + fraction.rstrip("0")
    return f"{int(value):,}".replace(",", THIN_SPACE)


def format_value(value: Any) -> str:
    """A field's value on one line: lists joined with commas, numbers with thin spaces."""
    if isinstance(value, list | tuple):
        return ", ".join(format_value(v) for v in value if not is_empty(v))
    return format_number(value)


def labelled_lines(
    fields: Mapping[str, Any], labels: Mapping[str, str], order: Iterable[str]
) -> list[str]:
    """ "Label: value" for each filled field in `order` (bools are left to the caller)."""
    lines = []
    for name in order:
        value = fields.get(name)
        if is_empty(value) or isinstance(value, bool):
            continue
        text = format_value(value)
        if text:
            lines.append(f"{labels[name]}: {text}")
    return lines


def labels_for(labels: Mapping[str, Mapping[str, str]], language: str) -> Mapping[str, str]:
    """The labels in `language`, Russian for a language the stage does not speak."""
    return labels.get(language) or labels["ru"]


# --- prompts -----------------------------------------------------------------------------


def stage_prompt(
    *,
    stage: str,
    collect: str,
    status_field: str,
    required: Sequence[str],
    example: str,
    rules: Sequence[str] = (),
) -> str:
    """The stage's short English instruction block. The gate sentence is written from
    `required`, so the prompt cannot disagree with the gate."""
    if required:
        gate = f"Set {status_field} true only when {', '.join(required)} are filled."
    else:
        gate = f"Set {status_field} true when the client has nothing more to add."
    lines = [
        f"You are the {stage} step of a video-production briefing with a client.",
        f"Collect: {collect}.",
        "Ask ONE short question at a time.",
        "Never invent values the client did not give: leave them null.",
        "Keep names, brands and quotes in the client's own words.",
        *rules,
        gate,
        f'Example question: "{example}"',
    ]
    return "\n".join(lines)


# --- checks ------------------------------------------------------------------------------


def check_stage(spec: StageSpec) -> None:
    """Raise ValueError when a stage's parts disagree (a field without a question, a
    required field the model lacks, ...): drift is caught at import, not mid-briefing."""
    model_fields = set(spec.answer_model.model_fields)
    problems = []
    if not issubclass(spec.answer_model, StageAnswer):
        problems.append("answer_model is not a StageAnswer")
    if spec.status_field not in model_fields:
        problems.append(f"status field {spec.status_field!r} not in the model")
    own = model_fields - {"message", spec.status_field}
    if set(spec.fields) != own:
        problems.append(f"fields {sorted(spec.fields)} differ from the model's {sorted(own)}")
    if not set(spec.required) <= set(spec.fields):
        problems.append("required fields must be among the fields")
    if not set(spec.readers) <= set(spec.fields):
        problems.append("readers for unknown fields")
    if not set(spec.prefill.values()) <= set(spec.fields):
        problems.append("prefill into unknown fields")
    if not set(spec.locks) <= set(spec.fields):
        problems.append("locks on unknown fields")
    for language in LANGUAGES:
        asked = set(spec.questions.get(language, {}))
        if asked != set(spec.fields):
            problems.append(f"{language} questions do not match the fields")
        if not spec.opening.get(language):
            problems.append(f"no {language} opening")
    if problems:
        raise ValueError(f"stage {spec.key!r}: " + "; ".join(problems))


SummaryWriter = Callable[[Mapping[str, Any], str], str]

__all__ = [
    "ITEM_MAX",
    "LIST_MAX",
    "READ_TEXT_MAX",
    "TEXT_MAX",
    "THIN_SPACE",
    "StageFields",
    "SummaryWriter",
    "Text",
    "TextList",
    "check_stage",
    "collapse",
    "format_number",
    "format_value",
    "labelled_lines",
    "labels_for",
    "read_budget",
    "read_contact",
    "read_currency",
    "read_deadline",
    "read_list",
    "read_name",
    "read_references",
    "read_text",
    "read_yes_no",
    "split_list",
    "stage_prompt",
]
