"""From a prompt to a validated object: one call, the parse pipeline, at most ONE retry with
field-level feedback at temperature 0, all within one time budget, otherwise a failure that
carries everything a dead letter needs."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from llmkit.parse import FieldError, ParseOutcome, SemanticValidator, Target, as_target, parse
from llmkit.types import Completion, Message, Provider, ProviderError, Usage

RETRY_TEMPERATURE = 0.0
MAX_FEEDBACK_ERRORS = 8
MAX_QUOTED_INPUT = 80


@dataclass(slots=True)
class Attempt:
    """One request to the provider (chain) and what the pipeline made of its answer."""

    temperature: float
    messages: list[Message] = field(default_factory=list)
    completion: Completion | None = None
    outcome: ParseOutcome | None = None
    provider_error: ProviderError | None = None

    @property
    def raw(self) -> str | None:
        return self.completion.text if self.completion else None


@dataclass(slots=True)
class StructuredResult:
    """The whole story of one structured call; `ok` is False for a dead letter."""

    schema_name: str
    messages: list[Message]
    attempts: list[Attempt] = field(default_factory=list)
    latency_s: float = 0.0

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]

    @property
    def ok(self) -> bool:
        outcome = self.final.outcome
        return outcome is not None and outcome.ok

    @property
    def value(self) -> Any:
        return self.final.outcome.value if self.ok else None

    @property
    def layer(self) -> str | None:
        return self.final.outcome.layer if self.ok else None

    @property
    def retry_used(self) -> bool:
        return len(self.attempts) > 1

    @property
    def errors(self) -> list[FieldError]:
        attempt = self.final
        if attempt.provider_error is not None:
            return [FieldError("$", "provider_unavailable", str(attempt.provider_error))]
        return list(attempt.outcome.errors) if attempt.outcome else []

    @property
    def error_signature(self) -> str | None:
        errors = self.errors
        return None if self.ok or not errors else errors[0].signature

    @property
    def raw_responses(self) -> list[str]:
        return [a.raw for a in self.attempts if a.raw is not None]

    @property
    def usage(self) -> Usage:
        total = Usage()
        for attempt in self.attempts:
            if attempt.completion:
                total = total + attempt.completion.usage
        return total

    @property
    def providers(self) -> list[str]:
        return [a.completion.provider for a in self.attempts if a.completion]

    @property
    def provider(self) -> str:
        return self.providers[-1] if self.providers else ""

    @property
    def model(self) -> str:
        served = [a.completion.model for a in self.attempts if a.completion]
        return served[-1] if served else ""


_FEEDBACK = {
    "en": (
        "Your previous answer could not be accepted. Fix exactly these fields and answer "
        "with the corrected JSON object only, no other text:",
        "field {path}: {problem}, got {got}",
    ),
    "ru": (
        "Ваш предыдущий ответ не принят. Исправьте именно эти поля и ответьте только "
        "исправленным JSON-объектом, без другого текста:",
        "поле {path}: {problem}, получено {got}",
    ),
    "uk": (
        "Вашу попередню відповідь не прийнято. Виправте саме ці поля й дайте відповідь лише "
        "виправленим JSON-об'єктом, без іншого тексту:",
        "поле {path}: {problem}, отримано {got}",
    ),
}

_PROBLEMS: dict[str, dict[str, str]] = {
    "missing": {
        "en": "is required",
        "ru": "обязательное поле отсутствует",
        "uk": "обов'язкове поле відсутнє",
    },
    "int_parsing": {
        "en": "expected an integer",
        "ru": "ожидалось целое число",
        "uk": "очікувалося ціле число",
    },
    "int_type": {
        "en": "expected an integer",
        "ru": "ожидалось целое число",
        "uk": "очікувалося ціле число",
    },
    "bool_parsing": {
        "en": "expected true or false",
        "ru": "ожидалось true или false",
        "uk": "очікувалося true або false",
    },
    "literal_error": {
        "en": "expected one of the allowed values",
        "ru": "ожидалось одно из допустимых значений",
        "uk": "очікувалося одне з допустимих значень",
    },
    "no_json": {
        "en": "expected a JSON object",
        "ru": "ожидался JSON-объект",
        "uk": "очікувався JSON-об'єкт",
    },
}


def feedback_message(errors: Sequence[FieldError], language: str) -> str:
    """The retry prompt: every failing field, what was expected and what came, in the
    conversation's language (English when the language is not one we write)."""
    heading, line = _FEEDBACK.get(language, _FEEDBACK["en"])
    lines = [heading]
    for error in errors[:MAX_FEEDBACK_ERRORS]:
        problem = _PROBLEMS.get(error.kind, {}).get(language)
        if problem is None:
            problem = error.message or error.kind
        elif error.message and error.kind == "literal_error":
            problem = f"{problem} ({error.message})"
        got = repr(error.input) if error.input is not None else "null"
        if len(got) > MAX_QUOTED_INPUT:
            got = got[: MAX_QUOTED_INPUT - 1] + "…"
        lines.append("- " + line.format(path=error.path, problem=problem, got=got))
    return "\n".join(lines)


def _attempt(
    provider: Provider,
    messages: Sequence[Message],
    target: Target,
    *,
    temperature: float,
    max_tokens: int,
    send_schema: bool,
    stream: bool,
    timeout: float | None,
    validators: Iterable[SemanticValidator],
    context: Mapping[str, Any] | None,
) -> Attempt:
    attempt = Attempt(temperature=temperature, messages=list(messages))
    try:
        attempt.completion = provider.chat(
            messages,
            temperature=temperature,
            max_tokens=max_tokens,
            schema=target.json_schema if send_schema else None,
            stream=stream,
            timeout=timeout,
        )
    except ProviderError as error:
        attempt.provider_error = error
        return attempt
    attempt.outcome = parse(attempt.completion.text, target, validators=validators, context=context)
    return attempt


def run_structured(
    provider: Provider,
    messages: Sequence[Message],
    target: type[BaseModel] | dict[str, Any] | Target,
    *,
    validators: Iterable[SemanticValidator] = (),
    context: Mapping[str, Any] | None = None,
    language: str = "en",
    temperature: float = 0.3,
    max_tokens: int = 1024,
    send_schema: bool = True,
    stream: bool = False,
    budget_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> StructuredResult:
    """Ask for a structured answer; retry at most once, and only for an answer that came
    back but did not parse or validate (an unreachable provider chain is not retried here:
    the failover chain has already tried every provider).

    `budget_s` is the whole call's time: the first request (every provider a failover chain
    tries) and the retry share it, each request getting what is left as its `timeout`. A
    retry with nothing left is still sent with timeout 0: a chain then skips its providers
    that need time and lets only the instant ones (the rules agent) answer."""
    target = as_target(target)
    validators = tuple(validators)
    result = StructuredResult(schema_name=target.name, messages=list(messages))
    started = clock()
    deadline = None if budget_s is None else started + budget_s

    def attempt(attempt_messages: Sequence[Message], temperature: float) -> Attempt:
        timeout = None if deadline is None else max(deadline - clock(), 0.0)
        return _attempt(
            provider, attempt_messages, target, temperature=temperature, max_tokens=max_tokens,
            send_schema=send_schema, stream=stream, timeout=timeout, validators=validators,
            context=context,
        )  # fmt: skip

    first = attempt(messages, temperature)
    result.attempts.append(first)
    if first.outcome is not None and not first.outcome.ok:
        retry_messages = [
            *messages,
            Message("assistant", first.completion.text),
            Message("user", feedback_message(first.outcome.errors, language)),
        ]
        result.attempts.append(attempt(retry_messages, RETRY_TEMPERATURE))
    result.latency_s = clock() - started
    return result
