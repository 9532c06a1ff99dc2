"""Stage agents: one structured call per stage turn through the configured provider chain,
and the rules agent's stage logic (the embedded default, no model needed)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from briefing.stages.base import StageSpec, is_empty
from briefing.stages.registry import spec_for
from briefing.turn.context import stage_prompt
from briefing.turn.dialogue import rules_reply
from briefing.turn.field_states import exhausted, left_fields
from briefing.turn.tool_use import FINAL_ANSWER_RULES, sources_validator
from core.input import long_runs_blank
from dlq.models import StructuredCall
from dlq.services import structured_run
from llmkit.parse import FieldError
from llmkit.structured import StructuredResult
from llmkit.types import Completion, Message, Provider
from studio.memory import SnapshotReads, retrieval_block, snapshot_for_profile


@dataclass(frozen=True)
class StageCall:
    """Everything one stage agent call needs to know, and nothing more."""

    spec: StageSpec
    known: Mapping[str, Any]
    locks: Mapping[str, str]
    summaries: Sequence[str]
    turns: Sequence[tuple[str, str]]
    language: str
    opening: bool
    # The field the agent asked about last in this stage (the rules agent reads the
    # client's next message as the answer to it).
    asked_field: str | None = None
    # Every field that question asked (two related ones may be asked together).
    asked_fields: tuple[str, ...] = ()
    # The stage's field states (briefing.turn.field_states): how often each was asked, which are
    # left for the producer or to check.
    dialogue: Mapping[str, Any] = field(default_factory=dict)
    # Every stage's field states (stage key → dialogue): what the read-back says is open.
    dialogues: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Everything the client wrote so far; a callable, read only when an answer holds a number.
    client_texts: Callable[[], Sequence[str]] = tuple  # type: ignore[assignment]
    # Earlier turns of this stage cut from `turns` (the prompt says how many).
    omitted_turns: int = 0
    # The reader's reading of the client's message (briefing.reader), None on an opening.
    reading: Any = None
    # Every stage's fields so far (stage key → fields): what is already known.
    profile: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Stages already closed: their summaries are in the prompt, their fields need no repeat.
    closed_stages: tuple[str, ...] = ()
    # The turn's studio tools and their results (briefing.turn.tool_use.TurnTools), if any.
    tools: Any = None
    # The client snapshots the turn read (studio.memory.SnapshotReads), None to read afresh.
    snapshots: SnapshotReads | None = None


# "500000", "500 000", "1 500 000" written by a person: one number each.
_DIGIT_GROUPS = re.compile(r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)|\d+")


def _lock_validator(call: StageCall):
    """An answer that renames a locked entity fails; the retry quotes the locked value."""

    def check(value: Any, context: Mapping[str, Any]) -> Iterable[FieldError]:
        errors = []
        for field_name, lock_key in call.spec.locks.items():
            locked = call.locks.get(lock_key)
            proposed = getattr(value, field_name, None)
            if locked and proposed and proposed.strip().casefold() != locked.casefold():
                errors.append(
                    FieldError(
                        path=field_name,
                        kind="locked_entity",
                        message=f"{lock_key} is locked as {locked!r}; write it exactly so",
                        input=proposed,
                    )
                )
        return errors

    return check


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _dialogue_validator(call: StageCall):
    """The dialogue's state binds every agent: a question about a field already known (in
    this answer too), asked twice or left for the producer fails, and so does the agent's
    previous message repeated word for word; the retry names the fields still missing."""

    def check(value: Any, context: Mapping[str, Any]) -> Iterable[FieldError]:
        spec, dialogue = call.spec, call.dialogue
        known = dict(call.known)
        for name in spec.fields:
            if not is_empty(getattr(value, name, None)):
                known[name] = getattr(value, name)
        missing = spec.missing(known, left=left_fields(dialogue))
        if getattr(value, spec.status_field, False) and not missing:
            return []  # the gate closes on this answer: its message is not sent
        still = [n for n in missing if not exhausted(dialogue, n)]
        errors = []
        asked = getattr(value, "askedField", None)
        if asked in spec.fields and (not is_empty(known.get(asked)) or exhausted(dialogue, asked)):
            why = "is already known" if not is_empty(known.get(asked)) else "was asked twice"
            errors.append(
                FieldError(
                    path="askedField", kind="asks_known",
                    message=f"{asked} {why}: never ask for it again; ask only about "
                    f"{', '.join(still) or 'nothing (set the status flag)'}",
                    input=asked,
                )
            )  # fmt: skip
        message = getattr(value, "message", None)
        previous = next((text for role, text in reversed(call.turns) if role != "client"), "")
        words = _words(message) if isinstance(message, str) else []
        if words and words == _words(previous):
            errors.append(
                FieldError(
                    path="message", kind="repeated_question",
                    message="this is your previous message word for word and the client has "
                    "answered it: take the answer and ask, in new words, about "
                    f"{', '.join(still) or 'nothing (set the status flag)'}",
                    input=message[:200],
                )
            )  # fmt: skip
        return errors

    return check


def _numbers_said_validator(call: StageCall):
    """A number the agent fills in must be one the client wrote (or one already known)."""
    from llmkit.extract import find_money, parse_number

    def numbers_said() -> set[int | float]:
        said: set[int | float] = set()
        for text in map(long_runs_blank, call.client_texts()):
            said |= {m.value for m in find_money(text)}
            number = parse_number(text)
            if number is not None:
                said.add(number)
            said |= {int(re.sub(r"\D", "", digits)) for digits in _DIGIT_GROUPS.findall(text)}
        return said

    said: set[int | float] | None = None

    def check(value: Any, context: Mapping[str, Any]) -> Iterable[FieldError]:
        nonlocal said
        errors = []
        for name in call.spec.answer_model.model_fields:
            number = getattr(value, name, None)
            if (
                not isinstance(number, int)
                or isinstance(number, bool)
                or number == call.known.get(name)
            ):
                continue
            if said is None:
                said = numbers_said()
            if number not in said:
                errors.append(
                    FieldError(
                        path=name,
                        kind="not_in_source",
                        message=f"{number} is not a number the client wrote",
                        input=number,
                    )
                )
        return errors

    return check


def _retrieved(call: StageCall) -> str:
    """Memory items relevant to the client's message (none on an opening)."""
    if call.opening or not call.turns or call.turns[-1][0] != "client":
        return ""
    return retrieval_block(
        profile=call.profile, message=call.turns[-1][1], language=call.language,
        reads=call.snapshots,
    )  # fmt: skip


def _tool_blocks(call: StageCall) -> str:
    """This turn's tool results, after the log of earlier turns' calls when the stage's older
    turns are folded out of the prompt (the session horizon keeps what was asked, not data)."""
    if call.tools is None:
        return ""
    log = call.tools.earlier_log() if call.omitted_turns > 0 else ""
    return "\n\n".join(part for part in (log, call.tools.results_block()) if part)


def _given_texts(call: StageCall, *, prompt_memory: str, retrieved: str) -> list[str]:
    """What the prompt gave the agent besides tools and the client: locked entities, the
    closed stages' summaries, the conversation's turns (an earlier answer passed this check
    or was a producer's), memory's snapshot and retrieved lines: a name from these is no
    invention."""
    return [*call.locks.values(), *call.summaries, *(text for _, text in call.turns),
            prompt_memory, retrieved]  # fmt: skip


def stage_agent_run(
    call: StageCall,
    *,
    source_id: str,
    raw_input: str,
    budget_s: float | None = None,
    provider: Provider | None = None,
    max_tokens: int | None = None,
    pool: str = "",
    session: str = "",
    first_answer: Completion | None = None,
) -> tuple[StructuredResult, StructuredCall]:
    """One stage agent call through the structured-output engine, recorded. `budget_s` is
    what the turn has left (the call never takes more than LLM_CALL_BUDGET_S either);
    `provider`, `pool` and `max_tokens` come from the turn's route (briefing.turn.routing),
    `session` is the briefing's ledger key; `first_answer`, the text a tool-calling request
    with these messages answered (validated as the first attempt, not asked again)."""
    prompt, memory, retrieved = _stage_prompt_for(call)
    sources = sources_validator(
        tool_texts=call.tools.source_texts if call.tools is not None else tuple,
        client_texts=call.client_texts, known=lambda: call.profile,
        given_texts=lambda: _given_texts(call, prompt_memory=memory, retrieved=retrieved),
        language=call.language,
    )  # fmt: skip
    return structured_run(
        messages=prompt.messages(),
        target=call.spec.answer_model,
        source_kind="briefing_turn",
        source_id=source_id,
        raw_input=raw_input,
        validators=[
            _lock_validator(call),
            _numbers_said_validator(call),
            _dialogue_validator(call),
            sources,
        ],
        language=call.language,
        max_tokens=max_tokens or settings.BRIEFING_MAX_TOKENS,
        prompt_estimate=prompt.token_estimate(),
        budget_s=budget_s,
        provider=provider,
        pool=pool,
        session=session,
        # The rules agent at the chain's end answers with the stage's dialogue.
        rules_responder=lambda _turn: rules_reply(call),
        first_answer=first_answer,
    )


def stage_messages(call: StageCall) -> list[Message]:
    """The messages of the stage call for `call` (its tools included): what a tool-calling
    provider is asked first, so that an answer in text is the stage's answer."""
    return _stage_prompt_for(call)[0].messages()


def _stage_prompt_for(call: StageCall) -> tuple[Any, str, str]:
    """The stage call's prompt, with the memory snapshot and retrieved lines it holds."""
    memory, retrieved = snapshot_for_profile(call.profile, reads=call.snapshots), _retrieved(call)
    prompt = stage_prompt(
        spec=call.spec,
        locks=call.locks,
        summaries=call.summaries,
        known=call.known,
        turns=call.turns,
        language=call.language,
        opening=call.opening,
        omitted_turns=call.omitted_turns,
        # what the reader already filled in stages still to come (closed ones are summarised)
        profile={k: v for k, v in call.profile.items() if k not in call.closed_stages},
        tool_results=_tool_blocks(call),
        final_rules=FINAL_ANSWER_RULES if call.tools is not None and call.tools.outcomes else "",
        memory=memory,
        retrieved=retrieved,
        dialogue=call.dialogue,
    )
    return prompt, memory, retrieved


def stage_answer_check(*, turn, raw: str):
    """Validate a stage answer for `turn` the way the engine validates a model's (shape,
    locked entities, numbers the client wrote): the check behind fixing a dead letter."""
    from briefing.models import LockedEntity, Turn
    from llmkit.parse import parse

    project = turn.project
    spec = spec_for(project, turn.stage_key)
    stage = project.stages.get(key=turn.stage_key)
    texts = list(
        Turn.objects.filter(project=project, role=Turn.Role.CLIENT, seq__lte=turn.seq)
        .order_by("seq")
        .values_list("text", flat=True)
    )
    call = StageCall(
        spec=spec,
        known=dict(stage.fields),
        locks=dict(LockedEntity.objects.filter(project=project).values_list("key", "value")),
        summaries=(),
        turns=(),
        language=project.language,
        opening=False,
        client_texts=lambda: texts,
    )
    return parse(
        raw, spec.answer_model, validators=[_lock_validator(call), _numbers_said_validator(call)]
    )
