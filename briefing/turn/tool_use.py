"""The studio's tools in a briefing turn: which questions call which tool (for the rules
agent and for providers that cannot call tools, the code asks), the bounded tool loop of a
provider that can, the answer the rules agent gives from the results, the deferred
final-answer rules, and the check that every amount, link and name the agent tells the
client comes from a tool result or from the client."""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils import timezone

from briefing.turn.source_names import unsourced_names
from core.input import long_runs_blank
from llmkit.parse import FieldError
from llmkit.session import cache_session
from llmkit.tools import ToolOutcome, ToolSession, ToolStep, untrusted
from llmkit.types import Completion, Message, ProviderError

if TYPE_CHECKING:
    from studio.memory import SnapshotReads

# Rules that matter only for the answer the client reads: given to the final generation,
# never carried through the tool iterations.
FINAL_ANSWER_RULES = """\
Final answer rules (the studio's data above was looked up for this answer):
- Answer the client's question first, in one or two sentences, then ask the stage's next
  question.
- Prices: give the range exactly as the rate card says it (from ... to ..., the currency,
  the unit) and say that the producer will prepare the exact estimate; never a single
  price, never a number the tool results do not hold.
- Portfolio: name at most three works with their links exactly as given.
- Deadlines: say whether the calendar fits, with the free working days; never promise more.
- If a tool result is empty or failed, say the producer will answer that part."""

# The client's question → the tool. Questions only: a statement of a deadline is an answer.
_PRICE = re.compile(
    r"сколько\s+(?:\w+\s+){0,3}(?:сто|обойд)|стоимост|\bцен[аыуе]\b|почём|прайс|расценк"
    r"|скільки\s+(?:\w+\s+){0,3}(?:кошту|буде)|вартіст|\bціна\b|\bціну\b"
    r"|how much|\bprice|\bcost|\brates?\b|\bquote\b",
    re.IGNORECASE,
)
_PORTFOLIO = re.compile(
    r"похож\w*\s+работ|пример\w*\s+(?:ваших\s+)?работ|портфолио|кейс|делали\s+ли\s+вы"
    r"|схож\w*\s+робот|приклад\w*\s+(?:ваших\s+)?робіт|портфоліо"
    r"|similar\s+work|portfolio|examples?\s+of\s+your|case\s+stud|have\s+you\s+(?:done|made|shot)",
    re.IGNORECASE,
)
_DEADLINE = re.compile(
    r"успе(?:ете|ваете|ем)|сможете\s+(?:\w+\s+){0,3}(?:к|до)\b|встигн|встигає|зможете"
    r"|in\s+time|make\s+it\s+by|can\s+you\s+(?:deliver|make|finish|do)|be\s+ready\s+by",
    re.IGNORECASE,
)
_HISTORY = re.compile(
    r"уже\s+(?:\w+\s+)?(?:снимал|работал|заказывал|делал)|(?:снимали|работали)\s+(?:у\s+вас|с\s+вами)"
    r"|раньше\s+(?:\w+\s+)?(?:заказывал|работал|снимал)|вже\s+(?:\w+\s+)?(?:знімал|працювал|замовлял)"
    r"|(?:працювали|знімали)\s+(?:з\s+вами|у\s+вас)|worked\s+with\s+you|(?:shot|filmed)\s+with\s+you"
    r"|we(?:'ve| have)\s+worked|returning\s+client",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"\?|^\s*(?:сколько|скільки|how|can|could|а\s+)", re.IGNORECASE)


@dataclass
class TurnTools:
    """One turn's tools: the session (visibility, cache, calls), and how they were used."""

    session: ToolSession
    language: str
    # Provider requests the tool loop made (counted against the turn's caps).
    loop_requests: int = 0
    # The tool-calling provider failed: the code pre-fetches instead.
    loop_failed: bool = False
    # The loop's first request answered in text, calling no tool: it was asked with the
    # stage call's own messages, so it is the stage's answer (validated like any, not asked
    # for again). Taken by the stage call that follows.
    text_answer: Completion | None = None
    # Earlier turns' tool calls, compact (the session horizon's log: no data); read only
    # when a prompt folds older turns out, so a turn that shows them all pays no query.
    earlier_calls: Callable[[], tuple[str, ...]] = tuple

    @property
    def outcomes(self) -> list[ToolOutcome]:
        return self.session.outcomes

    def results_block(self) -> str:
        return self.session.results_block()

    def earlier_log(self) -> str:
        """What earlier turns asked the tools and how big the answers were, not the data:
        shown when the stage's older turns are folded out of the prompt."""
        lines = self.earlier_calls()
        if not lines:
            return ""
        return "Earlier tool calls in this conversation (results not repeated):\n" + "\n".join(
            f"- {line}" for line in lines
        )

    def answer(self) -> str:
        """The rules agent's answer to the client's question, written by code from results."""
        return answer_text(self.outcomes, self.language)

    def source_texts(self) -> list[str]:
        return [o.text for o in self.outcomes if o.ok]

    def as_meta(self) -> list[dict[str, Any]]:
        return [outcome.as_event() for outcome in self.outcomes]


EARLIER_CALLS_SHOWN = 10


def earlier_tool_calls(turns: Sequence[Any]) -> tuple[str, ...]:
    """The last EARLIER_CALLS_SHOWN tool calls of `turns` (a briefing's turns before this
    one, oldest first), compact, from the calls each turn's `meta` keeps (the same data as
    its tool_called events): the turn read them already, so no query."""
    calls = [call for turn in turns for call in (turn.meta or {}).get("tools", ())]
    lines = []
    for data in calls[-EARLIER_CALLS_SHOWN:]:
        arguments = json.dumps(data.get("arguments") or {}, ensure_ascii=False, sort_keys=True)
        outcome = f"error: {data['error']}" if data.get("error") else f"{data.get('size', 0)} chars"
        lines.append(f"{data.get('name')}({arguments}) → {outcome}")
    return tuple(lines)


def turn_tools_for(
    *,
    project_id: int,
    profile: Mapping[str, Mapping[str, Any]],
    language: str,
    earlier: Callable[[], Sequence[Any]] = tuple,
) -> TurnTools:
    from studio.tools import studio_tools

    intro = profile.get("intro", {})
    tools = studio_tools(
        today=timezone.localdate(), project_id=project_id,
        company=str(intro.get("company") or ""), contact=str(intro.get("contact") or ""),
    )  # fmt: skip
    return TurnTools(
        ToolSession(tools), language, earlier_calls=lambda: earlier_tool_calls(earlier())
    )


def _profile_words(profile: Mapping[str, Mapping[str, Any]]) -> str:
    service, vision = profile.get("service", {}), profile.get("vision", {})
    values = [service.get("contentType"), service.get("format"), vision.get("goal"),
              vision.get("productName")]  # fmt: skip
    return " ".join(str(v) for v in values if isinstance(v, str) and v)


def tool_intents(
    text: str, *, language: str, profile: Mapping[str, Mapping[str, Any]]
) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls the client's message asks for, decided by code (same message, same
    calls): a price question → the rate card, similar work → the portfolio, "успеете к …?"
    → the calendar, "мы у вас уже снимали" → the client history."""
    from briefing.stages.readers import read_deadline

    intents: list[tuple[str, dict[str, Any]]] = []
    asks = bool(_QUESTION.search(text))
    about = f"{text} {_profile_words(profile)}".strip()
    if asks and _PRICE.search(text):
        intents.append(("rate_card_quote", {"query": about[:300]}))
    if _PORTFOLIO.search(text):
        # The question's own words ("похожие работы") would match every work: left out.
        subject = f"{_PORTFOLIO.sub(' ', text)} {_profile_words(profile)}".strip()
        intents.append(("portfolio_search", {"query": subject[:300] or "видео"}))
    if asks and _DEADLINE.search(text):
        deadline = read_deadline(text, language)
        if deadline:
            intents.append(("calendar_check", {"deadline": deadline, "query": about[:300]}))
    if _HISTORY.search(text):
        intro = profile.get("intro", {})
        args = {k: intro.get(k) for k in ("company", "contact") if intro.get(k)}
        intents.append(("client_history", args))
    return intents


def _production_days(tools: TurnTools, query: str) -> int | None:
    """The days the calendar check needs: those of the rate card row the turn quoted, else
    of the best row for the conversation (read directly: it is the check's input)."""
    from llmkit.tools import ToolFailure
    from studio.tools import RateCardQuoteArgs, rate_card_quote

    quoted = [o for o in tools.outcomes if o.name == "rate_card_quote" and o.ok]
    if quoted:
        return max(item.production_days for item in quoted[-1].result.items)
    try:
        found = rate_card_quote(RateCardQuoteArgs(query=query or "видео"))
    except ToolFailure:
        return None
    return max(item.production_days for item in found.items) if found.matched else None


def tools_prefetch(tools: TurnTools, *, text: str, profile: Mapping[str, Any]) -> None:
    """Call what the message asks for by code: the rules agent's way, and the way of a
    provider that cannot call tools (it gets the results in its prompt)."""
    for name, args in tool_intents(text, language=tools.language, profile=profile):
        if name == "calendar_check":
            days = _production_days(tools, args.pop("query"))
            if days:
                args["working_days_needed"] = days
        if any(tool.name == name for tool in tools.session.visible()):
            tools.session.call(name, args, via="code")


def tool_provider(chain: Any) -> Any:
    """The first provider of the chain that can call tools (speaks a tool-call wire format),
    or None: then the code pre-fetches."""
    providers = getattr(chain, "providers", None) or [chain]
    for provider in providers:
        if callable(getattr(provider, "chat_tools", None)):
            return provider
    return None


def tools_model_loop(
    tools: TurnTools,
    *,
    provider: Any,
    messages: Sequence[Message],
    max_requests: int,
    timeout: Callable[[], float],
    max_tokens: int = 256,
) -> None:
    """Let a tool-calling provider ask for tools, in its own wire format, until it answers
    without a call, nothing is left to offer, or `max_requests` is spent (the turn's cap
    leaves room for the final structured answer and its retry). The final answer is not
    taken from here: it goes through the structured call and the gate."""
    exchanges: list[tuple[Any, str]] = []
    while tools.loop_requests < max_requests:
        visible = tools.session.visible()
        if not visible:
            return
        try:
            step: ToolStep = provider.chat_tools(
                messages, exchanges=exchanges, tools=visible, timeout=timeout(),
                max_tokens=max_tokens,
            )  # fmt: skip
        except ProviderError:
            tools.loop_failed = True  # the final call's failover handles the provider
            return
        finally:
            tools.loop_requests += 1
        if not step.tool_calls:
            if not exchanges:
                tools.text_answer = Completion(
                    step.text,
                    provider.name,
                    provider.model,
                    usage=step.usage,
                )
            return
        for call in step.tool_calls:
            outcome = tools.session.call(call.name, call.arguments, via="model")
            shown = untrusted(call.name, outcome.text) if outcome.ok else f"error: {outcome.error}"
            exchanges.append((call, shown))


def tool_loop_max_requests(meter: Any) -> int:
    """Level 1's per-turn call cap bounds the loop where a route exists (two requests are
    kept for the final structured call and its retry); else BRIEFING_TOOL_MAX_REQUESTS."""
    fallback = settings.BRIEFING_TOOL_MAX_REQUESTS
    if meter is None:
        return fallback
    return max(min(meter.route.max_calls - meter.calls - 2, fallback), 0)


# --- the rules agent's answer, by code ------------------------------------------------------

_TEXTS: dict[str, dict[str, str]] = {
    "ru": {
        "rate": "По прайсу студии «{title}» — от {min} до {max} {currency} за {unit}; "
        "цену меняют: {factors}.",
        "rate_tail": " Точную смету подготовит продюсер.",
        "rate_none": "Точной позиции в прайсе не нашла, продюсер посчитает смету.",
        "works": "Похожие работы: {items}.",
        "work": "«{title}» для {client} ({year}) — {link}",
        "works_none": "Похожих работ, которые можно показать, не нашла — продюсер подберёт "
        "примеры.",
        "fits": "По производственному календарю к {date} успеваем: до срока {free} свободных "
        "рабочих дней, на такой проект обычно нужно {needed}.",
        "tight": "К {date} получится впритык: свободных рабочих дней {free}, нужно {needed}; "
        "продюсер уточнит по предварительным бронированиям.",
        "does_not_fit": "К {date} по календарю не успеваем: свободных рабочих дней {free}, а "
        "нужно {needed}. Продюсер предложит варианты.",
        "history": "Да, вижу вашу историю у нас: {items}. Учтём её в этом брифе.",
        "history_none": "Пока не нахожу ваших прошлых проектов — продюсер проверит.",
        "brief": "бриф «{title}» ({year})", "lead": "заявка «{title}» ({year})",
        "work_done": "работа «{title}» ({year})",
        "failed": "По этому вопросу ответит продюсер.",
    },
    "uk": {
        "rate": "За прайсом студії «{title}» — від {min} до {max} {currency} за {unit}; "
        "ціну змінюють: {factors}.",
        "rate_tail": " Точний кошторис підготує продюсер.",
        "rate_none": "Точної позиції в прайсі не знайшла, продюсер порахує кошторис.",
        "works": "Схожі роботи: {items}.",
        "work": "«{title}» для {client} ({year}) — {link}",
        "works_none": "Схожих робіт, які можна показати, не знайшла — продюсер підбере приклади.",
        "fits": "За виробничим календарем до {date} встигаємо: до терміну {free} вільних робочих "
        "днів, на такий проєкт зазвичай потрібно {needed}.",
        "tight": "До {date} вийде впритул: вільних робочих днів {free}, потрібно {needed}; "
        "продюсер уточнить попередні бронювання.",
        "does_not_fit": "До {date} за календарем не встигаємо: вільних робочих днів {free}, а "
        "потрібно {needed}. Продюсер запропонує варіанти.",
        "history": "Так, бачу вашу історію у нас: {items}. Врахуємо її в цьому брифі.",
        "history_none": "Поки не знаходжу ваших минулих проєктів — продюсер перевірить.",
        "brief": "бриф «{title}» ({year})", "lead": "заявка «{title}» ({year})",
        "work_done": "робота «{title}» ({year})",
        "failed": "На це питання відповість продюсер.",
    },
    "en": {
        "rate": "Our rate card puts “{title}” at {min} to {max} {currency} per {unit}; what "
        "changes the price: {factors}.",
        "rate_tail": " Your producer will prepare the exact estimate.",
        "rate_none": "I found no exact line in our rate card; your producer will estimate it.",
        "works": "Similar work: {items}.",
        "work": "“{title}” for {client} ({year}) — {link}",
        "works_none": "I found no similar work we may show; your producer will pick examples.",
        "fits": "Our production calendar fits {date}: {free} free working days before it, and "
        "such a project usually takes {needed}.",
        "tight": "{date} is tight: {free} free working days, {needed} needed; your producer "
        "will check the pencilled bookings.",
        "does_not_fit": "Our calendar does not fit {date}: {free} free working days, {needed} "
        "needed. Your producer will suggest options.",
        "history": "Yes, I can see your history with us: {items}. We will take it into account.",
        "history_none": "I cannot find your earlier projects yet; your producer will check.",
        "brief": "brief “{title}” ({year})", "lead": "request “{title}” ({year})",
        "work_done": "work “{title}” ({year})",
        "failed": "Your producer will answer that.",
    },
}  # fmt: skip


def money(value: int) -> str:
    """1200000 → '1 200 000' (a plain space: the sources check reads it back as one number)."""
    return f"{value:,}".replace(",", " ")


def _date(value: datetime.date) -> str:
    return value.strftime("%d.%m.%Y")


def answer_text(outcomes: Iterable[ToolOutcome], language: str) -> str:
    """One sentence per tool the turn called (the last call of each), from its result."""
    texts = _TEXTS.get(language) or _TEXTS["en"]
    latest: dict[str, ToolOutcome] = {}
    for outcome in outcomes:
        latest[outcome.name] = outcome
    parts = []
    for name, outcome in latest.items():
        if not outcome.ok:
            parts.append(texts["failed"])
            continue
        result = outcome.result
        if name == "rate_card_quote":
            if not result.matched:
                parts.append(texts["rate_none"])
                continue
            lines = [
                texts["rate"].format(title=i.title, min=money(i.price_min), max=money(i.price_max),
                                     currency=i.currency, unit=i.unit, factors=i.price_factors)
                for i in result.items[: outcome.shown or len(result.items)][:2]
            ]  # fmt: skip
            parts.append(" ".join(lines) + texts["rate_tail"])
        elif name == "portfolio_search":
            works = result.items[: outcome.shown or len(result.items)][:3]
            items = "; ".join(texts["work"].format(**w.model_dump()) for w in works)
            parts.append(texts["works"].format(items=items) if works else texts["works_none"])
        elif name == "calendar_check":
            parts.append(
                texts[result.verdict].format(date=_date(result.deadline),
                                             free=result.free_working_days,
                                             needed=result.working_days_needed)
            )  # fmt: skip
        elif name == "client_history":
            kinds = {"brief": "brief", "lead": "lead", "work": "work_done"}
            items = ", ".join(
                texts[kinds[i.source]].format(title=i.title, year=i.year) for i in result.items[:3]
            )
            parts.append(texts["history"].format(items=items) if items else texts["history_none"])
    return " ".join(parts)


# --- amounts, links and names only from sources ---------------------------------------------------

_DATES = re.compile(r"\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b")
_AMOUNTS = re.compile(r"(?<![\w.])\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d])|(?<![\w.])\d{4,}(?!\d)")
_URLS = re.compile(r"https?://[^\s\"'<>«»)]+", re.IGNORECASE)


def _amounts(text: str) -> set[int]:
    text = _DATES.sub(" ", long_runs_blank(text))
    found = set()
    for match in _AMOUNTS.findall(text):
        number = int(re.sub(r"\D", "", match))
        if not 1900 <= number <= 2100:  # a year, not an amount
            found.add(number)
    return found


def _source_amounts(texts: Iterable[str]) -> set[int]:
    found: set[int] = set()
    for text in texts:
        found |= _amounts(text)
        found |= {int(n) for n in re.findall(r"\d+", long_runs_blank(text))}
    return found


def sources_validator(
    *, tool_texts: Callable[[], Sequence[str]], client_texts: Callable[[], Sequence[str]],
    known: Callable[[], Any], given_texts: Callable[[], Sequence[str]] = tuple,
    language: str = "ru",
):  # fmt: skip
    """A semantic validator for the agent's message: every amount (a number of four digits
    or more, not a year or a date), every link and every name it presents (quoted, or
    capitalised inside a sentence: a work, a client, a service) must appear in a tool result
    of this turn, in the client's words, in what is already known or in what the prompt
    gave it from memory and the conversation (`given_texts`). The retry names the
    offender."""

    def check(value: Any, context: Mapping[str, Any]) -> Iterable[FieldError]:
        message = getattr(value, "message", None)
        if not isinstance(message, str) or not message:
            return []
        sources = [*tool_texts(), *client_texts(), json.dumps(known(), ensure_ascii=False),
                   *given_texts()]  # fmt: skip
        allowed = _source_amounts(sources)
        errors = []
        for number in sorted(_amounts(message) - allowed):
            errors.append(
                FieldError(
                    path="message", kind="not_in_source",
                    message=f"{money(number)} is in your message but in no tool result and "
                    "not in the client's words: give only the numbers the tools returned",
                    input=number,
                )
            )  # fmt: skip
        joined = "\n".join(sources)
        for url in _URLS.findall(message):
            if url.rstrip(".,;:!?") not in joined:
                errors.append(
                    FieldError(
                        path="message", kind="not_in_source",
                        message=f"the link {url} is in no tool result and not in the client's "
                        "words: give only links the tools returned",
                        input=url,
                    )
                )  # fmt: skip
        for name in unsourced_names(message, sources, language=language):
            errors.append(
                FieldError(
                    path="message", kind="not_in_source",
                    message=f"the name «{name}» is in your message but in no tool result and "
                    "not in the client's words: name only the works, clients and services the "
                    "tools returned, exactly as they wrote them",
                    input=name,
                )
            )  # fmt: skip
        return errors

    return check


def turn_tools_run(
    *,
    call: Any,
    turn: Any,
    meter: Any,
    options: Mapping[str, Any],
    budget_left: Callable[[], float],
    messages: Callable[[TurnTools], Sequence[Message]],
    earlier: Callable[[], Sequence[Any]] = tuple,
) -> TurnTools:
    """The turn's tools, used once before its first stage answer: a provider of the turn's
    chain that can call tools gets them in its own wire format, with the stage call's own
    `messages` (built for these tools), the loop bounded by the turn's cap and its requests
    counted against it; a first answer in text is the stage's answer (`text_answer`).
    Otherwise, and when that provider is down, the code calls what the message asks for.
    `earlier`: the briefing's turns before this one (their tool calls are logged when older
    turns are folded out of a prompt)."""
    from dlq.services import llm_chain

    tools = turn_tools_for(
        project_id=turn.project_id, profile=call.profile, language=call.language,
        earlier=earlier,
    )  # fmt: skip
    if not turn.text:
        return tools
    provider = tool_provider(options.get("provider") or llm_chain())
    if provider is None:
        tools_prefetch(tools, text=turn.text, profile=call.profile)
        return tools
    asked = [*messages(tools), Message("user", TOOL_STEP_INSTRUCTION)]
    with cache_session(options.get("session")):  # the briefing's, as for its stage calls
        tools_model_loop(
            tools, provider=provider, messages=asked,
            max_requests=tool_loop_max_requests(meter), timeout=budget_left,
            max_tokens=options.get("max_tokens") or settings.BRIEFING_MAX_TOKENS,
        )  # fmt: skip
    if meter is not None:  # a text answer is counted by the stage call that uses it
        meter.calls += tools.loop_requests - (tools.text_answer is not None)
    if tools.loop_failed and not tools.outcomes:
        tools_prefetch(tools, text=turn.text, profile=call.profile)
    return tools


TOOL_STEP_INSTRUCTION = (
    "Before you answer: if the client's last message asks about price, similar work, a "
    "deadline or their history with the studio, call the matching tool. Otherwise give "
    "your answer now, as the JSON object described above, without calling any tool."
)


def memory_prefill(
    *, stages: Sequence[Any], event: Callable[..., None], reads: SnapshotReads
) -> None:
    """A returning client (their contact matches a snapshot) gets the intro fields memory
    knows filled with source `memory`, once per turn before the first stage call: the bot
    does not ask for them, and the read-back shows them for the client to confirm."""
    from briefing.models import BriefingEvent
    from studio.memory import memory_prefill_values

    intro = next((s for s in stages if s.key == "intro"), None)
    if intro is None:
        return
    values = memory_prefill_values({"intro": intro.fields}, reads=reads)
    for name, value in values.items():
        intro.fields = {**intro.fields, name: value}
        event(BriefingEvent.Kind.PREFILL_FILLED, "intro", field=name, value=value,
              source="memory", evidence=value)  # fmt: skip
