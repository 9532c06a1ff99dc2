"""The rules agent: a deterministic Provider with no model behind it.

It answers with a JSON object built from the request's JSON Schema, filling each property
from the extractors run over the last user message when the property's name and type fit
(a budget from money, phones, e-mails, links, a deadline date or days until it), and a
neutral "nothing known" value otherwise. It is the embedded default and the last link of
every failover chain, so it never raises and never calls anything outside the process.

The briefing engine adds stage-specific questions through `responder`: a callable given
the turn (messages, schema, extracted findings, what the rules filled) that returns
fields to put over the rules' answer. Briefing logic does not live here.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from llmkit.extract import (
    Deadline,
    Email,
    Money,
    Phone,
    Url,
    find_deadlines,
    find_emails,
    find_money,
    find_phones,
    find_urls,
)
from llmkit.schema_tools import resolve, types_of
from llmkit.types import Completion, Message, Usage

logger = logging.getLogger(__name__)

# The most values one answer fills in: a schema whose definitions branch into each other
# (no cycle, but a tree of values exponential in its size) is cut there, not walked whole.
_MAX_FILLED_NODES = 2_000

_NEUTRAL_MESSAGES = {
    "ru": "Спасибо, записал. Расскажите, пожалуйста, подробнее.",
    "uk": "Дякую, записав. Розкажіть, будь ласка, докладніше.",
    "en": "Thank you, noted. Could you tell me a little more?",
}

_PHONE_WORDS = {"phone", "phones", "tel", "telephone", "telephones", "mobile", "msisdn"}
_EMAIL_WORDS = {"email", "emails", "mail", "mails"}
_URL_WORDS = {"url", "urls", "link", "links", "website", "websites", "site", "sites", "uri"}
_DATE_WORDS = {"deadline", "deadlines", "date", "dates", "due"}
_DAYS_WORDS = {"days"}
_MONEY_WORDS = {"budget", "budgets", "amount", "amounts", "price", "prices", "sum", "cost"}
_MONEY_WORDS |= {"costs", "fee", "fees", "rub", "usd", "eur", "uah"}
_CURRENCY_OF = {"rub": "RUB", "usd": "USD", "eur": "EUR", "uah": "UAH"}


@dataclass(frozen=True, slots=True)
class RulesTurn:
    """What a responder sees: the request, the findings, and the rules' own answer."""

    messages: tuple[Message, ...]
    schema: dict[str, Any] | None
    text: str  # the last user message
    today: datetime.date
    language: str  # "ru" | "uk" | "en", guessed from the letters of `text`
    money: list[Money] = field(default_factory=list)
    phones: list[Phone] = field(default_factory=list)
    emails: list[Email] = field(default_factory=list)
    urls: list[Url] = field(default_factory=list)
    deadlines: list[Deadline] = field(default_factory=list)
    filled: Any = None


Responder = Callable[[RulesTurn], Mapping[str, Any] | None]


def guess_language(text: str) -> str:
    """Ukrainian if it has Ukrainian-only letters, Russian if Cyrillic, else English."""
    if re.search(r"[іїєґІЇЄҐ]", text):
        return "uk"
    if re.search(r"[а-яёА-ЯЁ]", text):
        return "ru"
    if re.search(r"[A-Za-z]", text):
        return "en"
    return "ru"


def _as_message(item: Any) -> Message | None:
    role = getattr(item, "role", None)
    content = getattr(item, "content", None)
    if isinstance(item, Mapping):
        role, content = item.get("role"), item.get("content")
    if isinstance(content, list):  # OpenAI-style content parts
        content = " ".join(part.get("text", "") for part in content if isinstance(part, Mapping))
    if not isinstance(role, str) or not isinstance(content, str):
        return None
    if role not in ("system", "user", "assistant"):
        return None
    return Message(role, content)  # type: ignore[arg-type]


def _messages(messages: Any) -> tuple[Message, ...]:
    if not isinstance(messages, Iterable) or isinstance(messages, str | bytes | Mapping):
        return ()
    return tuple(m for m in (_as_message(item) for item in messages) if m is not None)


def _name_words(name: str) -> set[str]:
    """ "budgetRub", "budget_rub", "Budget RUB" → {"budget", "rub"}."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return {w for w in re.split(r"[^0-9a-zа-яё]+", snake.lower()) if w}


class _Filler:
    """Builds a value for a JSON Schema from one turn's findings, in work linear in the
    schema's size: each schema node is worked out once, a node met again inside its own
    value (a `$ref` back to an ancestor) gets its typed empty value, and past
    `_MAX_FILLED_NODES` values every further one is its typed empty value (logged)."""

    def __init__(self, root: dict[str, Any], turn: RulesTurn) -> None:
        self.root = root
        self.turn = turn
        # core() of each node of the request's schema, keyed by the node as written (the
        # node kept, so its id stays its own): resolving a `$ref` makes a new merged dict
        # every time, so a key on the resolved dict would work the same node out again on
        # every path to it, exponentially through nested allOf/anyOf.
        self._cores: dict[int, tuple[Any, tuple[bool, dict[str, Any]]]] = {}
        self._in_progress: set[int] = set()
        self._filling: set[int] = set()
        self._filled_nodes = 0

    # -- schema plumbing --

    def resolve(self, schema: Any) -> Any:
        return resolve(schema, self.root)

    def core(self, schema: Any) -> tuple[bool, dict[str, Any]]:
        """(nullable, the schema without its null alternative and with allOf merged)."""
        key = id(schema)
        if key in self._cores:
            return self._cores[key][1]
        if key in self._in_progress:  # refers back to itself: nothing more to merge
            return True, {}
        resolved = self.resolve(schema)
        if not isinstance(resolved, Mapping):
            return True, {}
        self._in_progress.add(key)
        try:
            result = self._core(resolved)
        finally:
            self._in_progress.discard(key)
        self._cores[key] = (schema, result)
        return result

    def _core(self, schema: Mapping[str, Any]) -> tuple[bool, dict[str, Any]]:
        branch: dict[str, Any] = dict(schema)
        nullable = False
        for part in branch.pop("allOf", None) or []:
            part_nullable, part_core = self.core(part)
            nullable = nullable or part_nullable
            branch = {**part_core, **branch}
        for key in ("anyOf", "oneOf"):
            alternatives = branch.pop(key, None)
            if not isinstance(alternatives, list) or not alternatives:
                continue
            non_null = []
            for alternative in alternatives:
                alt_nullable, alt_core = self.core(alternative)
                if alt_core.get("type") == "null" or (alt_nullable and not alt_core):
                    nullable = True
                else:
                    nullable = nullable or alt_nullable
                    non_null.append(alt_core)
            if non_null:
                branch = {**branch, **non_null[0]}
            else:
                return True, {"type": "null"}
        kinds = branch.get("type")
        if isinstance(kinds, list):
            nullable = nullable or "null" in kinds
            kept = [k for k in kinds if isinstance(k, str) and k != "null"]
            branch["type"] = kept or "null"
        if branch.get("nullable") is True:
            nullable = True
        enum = branch.get("enum")
        if isinstance(enum, list) and None in enum:
            nullable = True
        return nullable, branch

    # -- values --

    def fill(self, schema: Any, name: str = "") -> Any:
        nullable, branch = self.core(schema)
        key = id(schema)
        if key in self._filling:  # a value that holds itself: stop at the first repeat
            return _empty(nullable, branch)
        self._filled_nodes += 1
        if self._filled_nodes > _MAX_FILLED_NODES:
            if self._filled_nodes == _MAX_FILLED_NODES + 1:
                logger.warning(
                    "rules agent: the schema's value passed %d nodes; the rest are left empty",
                    _MAX_FILLED_NODES,
                )
            return _empty(nullable, branch)
        self._filling.add(key)
        try:
            return self._fill(nullable, branch, name)
        finally:
            self._filling.discard(key)

    def _fill(self, nullable: bool, branch: dict[str, Any], name: str) -> Any:
        if "const" in branch:
            return branch["const"]
        enum = branch.get("enum")
        if isinstance(enum, list):
            values = [v for v in enum if v is not None]
            return None if nullable or not values else values[0]
        kinds = types_of(branch)
        if "object" in kinds:
            properties = branch.get("properties")
            if not isinstance(properties, Mapping):
                return {}
            return {
                key: self.fill(sub, key) for key, sub in properties.items() if isinstance(key, str)
            }
        if "array" in kinds:
            return self.array(branch, name)
        if "boolean" in kinds:
            return False
        if kinds & {"integer", "number"}:
            value = self.number(branch, name)
            if value is None and not nullable:
                value = _clamp(0, branch)
            return value
        if "string" in kinds:
            value = self.string(branch, name)
            if value is None:
                return None if nullable else ""
            limit = branch.get("maxLength")
            return value[:limit] if isinstance(limit, int) and limit >= 0 else value
        return None

    def purpose(self, name: str, branch: dict[str, Any]) -> str | None:
        words = _name_words(name)
        mark = branch.get("x-normalise") or branch.get("format")
        if mark == "phone" or words & _PHONE_WORDS:
            return "phone"
        if mark == "email" or words & _EMAIL_WORDS:
            return "email"
        if mark in ("uri", "url", "iri") or words & _URL_WORDS:
            return "url"
        if words & _DAYS_WORDS:
            return "days"
        if mark in ("date", "date-time") or words & _DATE_WORDS:
            return "date"
        if words & _MONEY_WORDS:
            return "money"
        if "currency" in words:
            return "currency"
        if name.lower() == "message":
            return "message"
        return None

    def _money(self, name: str) -> list[Money]:
        words = _name_words(name)
        wanted = {_CURRENCY_OF[w] for w in words if w in _CURRENCY_OF}
        found = self.turn.money
        if wanted:
            # "budget_rub" takes roubles or an amount without a currency, never dollars.
            found = [m for m in found if m.currency in wanted] or [
                m for m in found if m.currency is None
            ]
        if words & {"max", "maximum", "upper", "to"}:
            return sorted(found, key=lambda m: -m.value)
        if words & {"min", "minimum", "lower", "from"}:
            return sorted(found, key=lambda m: m.value)
        return found

    def _days(self) -> int | None:
        if not self.turn.deadlines:
            return None
        return max(0, (self.turn.deadlines[0].value - self.turn.today).days)

    def number(self, branch: dict[str, Any], name: str) -> int | None:
        purpose = self.purpose(name, branch)
        value: int | None = None
        if purpose == "money":
            found = self._money(name)
            value = found[0].value if found else None
        elif purpose == "days":
            value = self._days()
        if value is not None and _clamp(value, branch) != value:
            return None  # out of the schema's range: not this field's answer
        return value

    def string(self, branch: dict[str, Any], name: str) -> str | None:
        purpose = self.purpose(name, branch)
        turn = self.turn
        if purpose == "phone":
            return turn.phones[0].value if turn.phones else None
        if purpose == "email":
            return turn.emails[0].value if turn.emails else None
        if purpose == "url":
            return turn.urls[0].value if turn.urls else None
        if purpose == "date":
            if not turn.deadlines:
                return None
            day = turn.deadlines[0].value.isoformat()
            return f"{day}T00:00:00" if branch.get("format") == "date-time" else day
        if purpose == "currency":
            money = self._money(name)
            return money[0].currency if money and money[0].currency else None
        if purpose == "message":
            return _NEUTRAL_MESSAGES.get(turn.language, _NEUTRAL_MESSAGES["ru"])
        return None

    def array(self, branch: dict[str, Any], name: str) -> list[Any]:
        _nullable, items = self.core(branch.get("items", {}))
        kinds = types_of(items)
        purpose = self.purpose(name, items) or self.purpose(name, {})
        turn = self.turn
        values: list[Any] = []
        if "string" in kinds or not kinds:
            if purpose == "phone":
                values = [p.value for p in turn.phones]
            elif purpose == "email":
                values = [e.value for e in turn.emails]
            elif purpose == "url":
                values = [u.value for u in turn.urls]
            elif purpose == "date":
                values = [d.value.isoformat() for d in turn.deadlines]
        if kinds & {"integer", "number"} and purpose == "money":
            values = [m.value for m in self._money(name) if _clamp(m.value, items) == m.value]
        unique = list(dict.fromkeys(values))
        limit = branch.get("maxItems")
        return unique[:limit] if isinstance(limit, int) and limit >= 0 else unique


def _empty(nullable: bool, branch: Mapping[str, Any]) -> Any:
    """The value a schema takes when nothing is known: null where it may be, else the
    type's own empty value."""
    if nullable:
        return None
    if "const" in branch:
        return branch["const"]
    enum = branch.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kinds = types_of(branch)
    for kind, value in (("object", {}), ("array", []), ("string", ""), ("boolean", False)):
        if kind in kinds:
            return value
    if kinds & {"integer", "number"}:
        return _clamp(0, branch)
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _clamp(value: int, branch: Mapping[str, Any]) -> int:
    """Bring an integer inside the schema's minimum/maximum bounds."""
    low, high = branch.get("minimum"), branch.get("maximum")
    exclusive_low, exclusive_high = branch.get("exclusiveMinimum"), branch.get("exclusiveMaximum")
    if _is_number(low) and value < low:
        value = int(-(-low // 1))
    if _is_number(exclusive_low) and value <= exclusive_low:
        value = int(exclusive_low // 1) + 1
    if _is_number(high) and value > high:
        value = int(high // 1)
    if _is_number(exclusive_high) and value >= exclusive_high:
        value = int(-(-exclusive_high // 1)) - 1
    return value


class RulesProvider:
    """Provider "rules" / "rules-v1": fills the requested schema from the extractors."""

    name = "rules"
    model = "rules-v1"
    # No I/O: a failover chain may still call it after the time budget is spent.
    needs_budget = False

    def __init__(
        self,
        *,
        responder: Responder | None = None,
        today: Callable[[], datetime.date] = datetime.date.today,
        region: str = "RU",
    ) -> None:
        self.responder = responder
        self.today = today
        self.region = region

    def answering(self, responder: Responder) -> RulesProvider:
        """The same rules agent answering with `responder` (one call's own logic)."""
        return RulesProvider(responder=responder, today=self.today, region=self.region)

    def chat(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.3,
        max_tokens: int = 1024,
        schema: dict | None = None,
        stream: bool = False,
        timeout: float | None = None,
    ) -> Completion:
        """Answer deterministically; `temperature`, `max_tokens`, `stream` and `timeout` do
        not change anything for an answer that costs no tokens and no waiting."""
        started = time.perf_counter()
        try:
            text = self._answer(messages, schema)
        except Exception:  # the last link of every chain must answer
            logger.exception("rules provider failed; answering with an empty object")
            text = "{}"
        return Completion(
            text=text,
            provider=self.name,
            model=self.model,
            usage=Usage(),
            latency_s=time.perf_counter() - started,
        )

    def turn(self, messages: Sequence[Message], schema: dict | None = None) -> RulesTurn:
        """The findings for a request, before any schema filling (also for responders)."""
        conversation = _messages(messages)
        text = next((m.content for m in reversed(conversation) if m.role == "user"), "")
        try:
            today = self.today()
        except Exception:  # a broken clock must not stop the answer
            today = datetime.date.today()
        return RulesTurn(
            messages=conversation,
            schema=schema if isinstance(schema, dict) else None,
            text=text,
            today=today,
            language=guess_language(text),
            money=find_money(text),
            phones=find_phones(text, region=self.region),
            emails=find_emails(text),
            urls=find_urls(text),
            deadlines=find_deadlines(text, today=today),
        )

    def _answer(self, messages: Sequence[Message], schema: dict | None) -> str:
        turn = self.turn(messages, schema)
        filled: Any = {}
        if isinstance(schema, dict) and schema:
            filled = _Filler(schema, turn).fill(schema)
            if filled is None:
                filled = {}  # an unusable schema (a "$ref" loop): still answer an object
        answer = json.dumps(filled, ensure_ascii=False)
        if self.responder is None:
            return answer
        try:
            extra = self.responder(_with_filled(turn, filled))
            if isinstance(extra, Mapping) and isinstance(filled, dict):
                return json.dumps({**filled, **extra}, ensure_ascii=False)
        except Exception:  # a faulty template must not stall a briefing
            logger.exception("rules responder failed; answering with the rules' fill")
        return answer


def _with_filled(turn: RulesTurn, filled: Any) -> RulesTurn:
    return replace(turn, filled=filled)


def rules_answering(provider: Any, responder: Responder) -> Any:
    """`provider` with its rules agent answering through `responder`, for one call: the rules
    agent itself, or a failover chain ending with it (its other links and their circuit
    breakers are the chain's own). Any other provider is returned as it is."""
    from llmkit.failover import FailoverChain

    if isinstance(provider, RulesProvider):
        return provider.answering(responder)
    if isinstance(provider, FailoverChain) and isinstance(provider.providers[-1], RulesProvider):
        return provider.with_last(provider.providers[-1].answering(responder))
    return provider


__all__ = ["Responder", "RulesProvider", "RulesTurn", "guess_language", "rules_answering"]
