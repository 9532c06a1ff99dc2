"""The intent and the product a message's words make a lead's, by evidence: every candidate
the catalogue's words find, the words each was read from, the products set aside (one the
client already has or does not want: "photos already done, we need video"), and why the
winner won, so the lead keeps the readings it did not take and a manager can see them."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from django.utils.translation import gettext_lazy

from crm.catalogue import Catalogue, Found, Mention, Term

# Why a candidate won or lost, stored with the lead as these codes (the column keeps what the
# reader decided, whatever the office's language); `WHY_LABELS` names them for a person.
ONLY_NAMED = "only_named"  # the one candidate the words name
FIRST_NAMED = "first_named"  # intents: the first, in the catalogue's order, whose words are in it
EARLIER_NAMED = "earlier_named"  # an intent before it in the catalogue's order is named
PRODUCT_NAMED = "product_named"  # no intent's words, but a product is named: a project
NOTHING_NAMED = "nothing_named"  # nothing named: the catalogue's fallback
MOST_SPECIFIC = "most_specific"  # the catalogue lists it before the others named
LESS_SPECIFIC = "less_specific"  # a more specific product is named
NAMED_MOST = "named_most"  # named far more often than a more specific one
NAMED_LESS = "named_less"  # a less specific product is named far more often
OTHERS_ASIDE = "others_aside"  # the others are only mentioned as done or not wanted
ASIDE = "aside"  # mentioned as already done or not wanted: a detail, not the request
ALL_ASIDE = "all_aside"  # every product named is mentioned as done: the usual rule decides
NOT_ASKED = "not_asked"  # the intent takes no product (a job applicant's skill, spam's topic)
OVERRULED = "overruled"  # a rule over the words decided for another candidate
COMPLAINT_TOLD = "complaint_told"  # a complaint told as a story, not named
SELLS_CONTACTS = "sells_contacts"  # spam selling contacts or leads
FROM_FILES = "from_files"  # read from the attachments' names: the text says nothing
MODEL = "model"  # the model's or a person's reading: not what the rules found


WHY_LABELS = {
    ONLY_NAMED: gettext_lazy("the only one named"),
    FIRST_NAMED: gettext_lazy("named first in the lead type's order"),
    EARLIER_NAMED: gettext_lazy("one earlier in the lead type's order is named"),
    PRODUCT_NAMED: gettext_lazy("a product is named and no intent's words"),
    NOTHING_NAMED: gettext_lazy("nothing named: the default intent"),
    MOST_SPECIFIC: gettext_lazy("the most specific product named"),
    LESS_SPECIFIC: gettext_lazy("a more specific product is named"),
    NAMED_MOST: gettext_lazy("named far more often than a more specific one"),
    NAMED_LESS: gettext_lazy("a less specific product is named far more often"),
    OTHERS_ASIDE: gettext_lazy("the others are mentioned as already done or not wanted"),
    ASIDE: gettext_lazy("mentioned as already done or not wanted: a detail"),
    ALL_ASIDE: gettext_lazy("every product named is mentioned as done: the usual rule decided"),
    NOT_ASKED: gettext_lazy("this kind of message asks for no product"),
    OVERRULED: gettext_lazy("another rule decided"),
    COMPLAINT_TOLD: gettext_lazy("a complaint told as a story"),
    SELLS_CONTACTS: gettext_lazy("spam selling contacts or leads"),
    FROM_FILES: gettext_lazy("read from the attachments' names"),
    MODEL: gettext_lazy("chosen by the reader, not by the rules"),
}


def why_label(code: str) -> str:
    """A reason in the active language; an unknown code as it is."""
    return str(WHY_LABELS.get(code, code))


@dataclass(frozen=True)
class Candidate:
    """One intent or product the words name, with where (`mentions` in the text read), the
    words around its first mention (`snippet`) and why it won or lost (a code above)."""

    code: str
    mentions: tuple[Mention, ...]
    snippet: str
    why: str


@dataclass(frozen=True)
class Choice:
    """The value chosen for one field (None: no product) and why, with every candidate."""

    code: str | None
    why: str
    candidates: tuple[Candidate, ...]

    @property
    def winner(self) -> Candidate | None:
        return next((c for c in self.candidates if c.code == self.code), None)

    @property
    def others(self) -> list[Candidate]:
        return [c for c in self.candidates if c.code != self.code]

    def overruled(self, code: str | None, why: str) -> Choice:
        """The choice when a rule over the words decides (`why`): the old winner loses as
        overruled, and a winner its words never named is listed with no mentions."""
        candidates = [
            replace(c, why=why if c.code == code else OVERRULED)
            if c.code in (code, self.code)
            else c
            for c in self.candidates
        ]
        if code is not None and all(c.code != code for c in candidates):
            candidates.insert(0, Candidate(code, (), "", why))
        return Choice(code, why, tuple(candidates))

    def dropped(self) -> Choice:
        """No value: every candidate is not what the client asks for."""
        return Choice(None, "", tuple(replace(c, why=NOT_ASKED) for c in self.candidates))


@dataclass(frozen=True)
class Reading:
    intent: Choice
    product: Choice


def catalogue_reading(catalogue: Catalogue, text: str) -> Reading:
    """The intent (the first, in order, whose words are in the text; else the product-only
    intent when a product is named; else the fallback) and the product (`_product_choice`)
    of a text, with their candidates. An intent that reads no product drops it."""
    found = catalogue.found(text)
    product = _product_choice(catalogue, found, text)
    intent = _intent_choice(catalogue, found, text, product_named=product.code is not None)
    term = catalogue.intent(str(intent.code))
    if term is not None and not term.reads_product:
        product = product.dropped()
    return Reading(intent=intent, product=product)


def _intent_choice(catalogue: Catalogue, found: Found, text: str, *, product_named: bool) -> Choice:
    named = [i for i in catalogue.intents if i.code in found.intents]
    if named:
        winner, why = named[0], ONLY_NAMED if len(named) == 1 else FIRST_NAMED
    elif product_named and any(i.product_only for i in catalogue.intents):
        winner, why = next(i for i in catalogue.intents if i.product_only), PRODUCT_NAMED
    else:
        winner, why = catalogue.fallback, NOTHING_NAMED
    candidates = [
        _candidate(term, found.evidence[("intent", term.code)], text,
                   why if term is winner else EARLIER_NAMED)
        for term in named
    ]  # fmt: skip
    if winner not in named:
        candidates.insert(0, Candidate(winner.code, (), "", why))
    return Choice(winner.code, why, tuple(candidates))


def _product_choice(catalogue: Catalogue, found: Found, text: str) -> Choice:
    """The product the message is about. The catalogue lists products specific first ("video
    podcast" is a podcast, "съёмка конференции" event filming), so the most specific one
    named wins, unless a later one is named at least twice as often and twice more
    ("корпоративний фільм: інтерв'ю, зйомки … архівні фото" is a film). A product mentioned
    only as done or not wanted ("we had the photos done in September, so it's purely the
    video we need") is set aside, unless every one named is."""
    named = [
        (term, found.evidence[("product", term.code)])
        for term in catalogue.products
        if ("product", term.code) in found.evidence
    ]
    if not named:
        return Choice(None, "", ())
    kept = {term.code: [m for m in mentions if not mention_set_aside(text, m)]
            for term, mentions in named}  # fmt: skip
    in_play = [(term, kept[term.code]) for term, _ in named if kept[term.code]]
    all_aside = not in_play
    if all_aside:
        in_play = named
    best: Term | None = None
    best_count = 0
    for term, mentions in in_play:
        outweighs = len(mentions) >= max(2 * best_count, best_count + 2)
        if best is None or outweighs:
            best, best_count = term, len(mentions)
    assert best is not None
    order = [term.code for term, _ in named]
    if len(named) == 1:
        why = ONLY_NAMED
    elif all_aside:
        why = ALL_ASIDE
    elif len(in_play) == 1:
        why = OTHERS_ASIDE
    elif best is in_play[0][0]:
        why = MOST_SPECIFIC
    else:
        why = NAMED_MOST
    candidates = []
    for term, mentions in named:
        if term is best:
            lost = why
        elif not all_aside and not kept[term.code]:
            lost = ASIDE
        elif order.index(term.code) < order.index(best.code):
            lost = NAMED_LESS
        else:
            lost = LESS_SPECIFIC
        shown = kept[term.code] or mentions
        candidates.append(_candidate(term, shown, text, lost))
    return Choice(best.code, why, tuple(candidates))


def _candidate(term: Term, mentions: list[Mention], text: str, why: str) -> Candidate:
    return Candidate(term.code, tuple(mentions), snippet(text, mentions[0]), why)


# --- a mention set aside ------------------------------------------------------------------------
# A product the client already has, makes themself, or takes out of the request: "photos already
# done", "we had headshots done in September", "product photos in-house", "drop the
# photography", "фото уже есть", "делали своими силами", "фото не нужно", "вже маємо фото".
_SET_ASIDE = re.compile(
    r"\balready\s+(?:done|have|has|had|got|shot|made|taken|sorted|covered|in\s+place|exists?)\b"
    r"|\b(?:have|has|had|got)\s+(?:\w+\s+){0,3}already\b|\bhad\s+(?:[\w'-]+\s+){1,6}done\b"
    r"|\bin[\s-]house\b|\bourselves\b|\bdrop(?:ped)?\s+(?:the|a|an|our)\b"
    r"|\b(?:don'?t|do\s+not|no\s+longer|won'?t|will\s+not)\s+need\b|\bno\s+need\s+for\b"
    r"|\bnot\s+needed\b|\bdone\s+(?:already|in\s+\w+|last\s+\w+)\b"
    r"|\bуже\s+(?:есть|имеется|имеются|сделал\w*|сделан\w*|готов\w*|снял\w*|снят\w*|отснят\w*)"
    r"|\bесть\s+уже\b|\bсвоими\s+силами\b|\bсами\s+(?:сделаем|снимем|сделали|сняли)\b"
    r"|\bсделаем\s+сами\b|\bне\s+(?:нужн\w*|надо|требуется)\b|\bуберите\b|\bубрать\b"
    r"|\bвже\s+(?:є|маємо|зроби\w*|зроблен\w*|готов\w*|зняли|знят\w*|відзнят\w*)"
    r"|\bвласними\s+силами\b|\bсамі\s+(?:зробимо|знімемо|зробили|зняли)\b"
    r"|\bне\s+(?:потрібн\w*|треба)\b|\bприберіть\b|\bприбрати\b",
    re.IGNORECASE,
)
# A mention's clause: a new one after a comma, a colon, a dash, a semicolon or "so".
_CLAUSE_EDGE = re.compile(r"[.!?;:\n,—–(]|\s-\s|\bso\b|\bтак\s+что\b|\bтож\b|\bтому\b")


def mention_set_aside(text: str, mention: Mention) -> bool:
    """Whether a product is mentioned in its clause as done already, made in-house or not
    wanted."""
    start = max((m.end() for m in _CLAUSE_EDGE.finditer(text, 0, mention.start)), default=0)
    edge = _CLAUSE_EDGE.search(text, mention.end)
    end = edge.start() if edge else len(text)
    return bool(_SET_ASIDE.search(text[start:end]))


_SNIPPET_CHARS = 120
_SENTENCE_EDGE = re.compile(r"[.!?\n]")


def snippet(text: str, mention: Mention) -> str:
    """The sentence a mention is in, cut at whole words to about 120 characters around it."""
    start = max((m.end() for m in _SENTENCE_EDGE.finditer(text, 0, mention.start)), default=0)
    edge = _SENTENCE_EDGE.search(text, mention.end)
    end = edge.start() + 1 if edge else len(text)
    if end - start <= _SNIPPET_CHARS:
        return " ".join(text[start:end].split())
    half = (_SNIPPET_CHARS - (mention.end - mention.start)) // 2
    cut_start = max(start, mention.start - half)
    cut_end = min(end, mention.end + half)
    if cut_start > start:  # from the next whole word
        cut_start = text.find(" ", cut_start, mention.start) + 1 or cut_start
    last_space = text.rfind(" ", mention.end, cut_end)
    if cut_end < end and last_space > 0:  # to the last whole word
        cut_end = last_space
    head = "…" if cut_start > start else ""
    tail = "…" if cut_end < end else ""
    return f"{head}{' '.join(text[cut_start:cut_end].split())}{tail}"
