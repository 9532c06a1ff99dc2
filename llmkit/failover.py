"""Failover across providers within one time budget, with a circuit breaker per provider."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from llmkit.prompt import stable_json
from llmkit.types import Completion, Message, Provider, ProviderError, ProviderErrorKind

BreakerState = Literal["closed", "open", "half_open"]

# Errors that say something about one request, not about the provider's health: they must
# not open the breaker (a big schema rejected for one stage says nothing about the next).
_REQUEST_SPECIFIC_KINDS: frozenset[str] = frozenset({"schema_rejected", "client"})


SCHEMA_IN_PROMPT_NOTE = "schema in the prompt only"


def schema_in_prompt(messages: Sequence[Message], schema: dict) -> list[Message]:
    """The messages with the JSON schema written into the system message, for asking again
    without the native schema parameter. Unchanged when a message already quotes it (the
    stage and lead prompts carry their schema, rendered by the same stable_json)."""
    schema_text = stable_json(schema)
    if any(schema_text in message.content for message in messages):
        return list(messages)
    block = f"Answer with ONE JSON object that follows this JSON schema: {schema_text}"
    if messages and messages[0].role == "system":
        first = messages[0]
        return [Message("system", f"{first.content}\n\n{block}"), *messages[1:]]
    return [Message("system", block), *messages]


class CircuitBreaker:
    """closed → open after `failure_threshold` consecutive failures → half-open once the
    cooldown has passed, letting exactly one trial call through → closed if it succeeds,
    open again (for another cooldown) if it fails."""

    def __init__(
        self,
        failure_threshold: int = 3,
        cooldown_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        if cooldown_s < 0:
            raise ValueError("cooldown_s must not be negative")
        self.failure_threshold = failure_threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._state: BreakerState = "closed"
        self._failures = 0
        self._opened_at = 0.0
        self._trial_in_flight = False

    @property
    def state(self) -> BreakerState:
        with self._lock:
            if self._state == "open" and self._clock() - self._opened_at >= self.cooldown_s:
                return "half_open"
            return self._state

    @property
    def consecutive_failures(self) -> int:
        return self._failures

    def allow(self) -> bool:
        """May the provider be called now? In half-open only one caller gets a yes."""
        with self._lock:
            if self._state == "closed":
                return True
            if self._state == "open":
                if self._clock() - self._opened_at < self.cooldown_s:
                    return False
                self._state = "half_open"
                self._trial_in_flight = False
            if self._trial_in_flight:
                return False
            self._trial_in_flight = True
            return True

    def record_success(self) -> None:
        with self._lock:
            self._state = "closed"
            self._failures = 0
            self._trial_in_flight = False

    def record_failure(self) -> None:
        with self._lock:
            self._failures += 1
            if self._state == "half_open" or self._failures >= self.failure_threshold:
                self._state = "open"
                self._opened_at = self._clock()
            self._trial_in_flight = False


@dataclass(frozen=True, slots=True)
class Attempt:
    """One try of one provider within a chain call; `error_kind` is None for the success."""

    provider: str
    error_kind: ProviderErrorKind | None
    latency_s: float
    detail: str = ""
    status: int | None = None

    @property
    def ok(self) -> bool:
        return self.error_kind is None


class FailoverExhausted(ProviderError):
    """Every provider of the chain failed (or was skipped); `attempts` says how each went."""

    def __init__(self, kind: ProviderErrorKind, message: str, attempts: Sequence[Attempt]) -> None:
        super().__init__(kind, message, provider="chain")
        self.attempts = list(attempts)


class FailoverChain:
    """A Provider that asks its providers in order and returns the first answer.

    Every ProviderError kind moves on to the next provider. A 429 with a Retry-After that
    fits in what is left of the budget is waited out and the same provider retried once. A
    provider that rejects the native JSON schema is asked once more, in the same call, with
    the schema in the prompt only, before the chain moves on. Each request gets the rest of
    the budget as its `timeout`; once the budget is spent the remaining providers are
    skipped, except those declaring `needs_budget = False` (the rules agent answers in
    microseconds, and is what keeps a briefing from stalling).
    """

    name = "chain"

    def __init__(
        self,
        providers: Sequence[Provider],
        *,
        budget_s: float = 100.0,
        breakers: Sequence[CircuitBreaker] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not providers:
            raise ValueError("a failover chain needs at least one provider")
        if budget_s <= 0:
            raise ValueError("budget_s must be positive")
        if breakers is None:
            breakers = [CircuitBreaker(clock=clock) for _ in providers]
        if len(breakers) != len(providers):
            raise ValueError("one breaker per provider")
        self.providers = list(providers)
        self.breakers = list(breakers)
        self.budget_s = budget_s
        self.model = ">".join(provider.name for provider in self.providers)
        self._clock = clock
        self._sleep = sleep
        # Per thread, so concurrent callers in one worker read their own call's attempts.
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"FailoverChain({self.model}, budget_s={self.budget_s})"

    def with_last(self, provider: Provider) -> FailoverChain:
        """This chain with its last link replaced (the rules agent answering one call's own
        way); the other links, every circuit breaker, the budget and the clock are shared."""
        return FailoverChain(
            [*self.providers[:-1], provider],
            budget_s=self.budget_s,
            breakers=self.breakers,
            clock=self._clock,
            sleep=self._sleep,
        )

    @property
    def last_attempts(self) -> list[Attempt]:
        """The attempts of this thread's most recent call (successful or not)."""
        return list(getattr(self._local, "attempts", []))

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
        budget = self.budget_s if timeout is None else min(self.budget_s, timeout)
        deadline = self._clock() + budget
        attempts: list[Attempt] = []
        self._local.attempts = attempts
        last_error: ProviderError | None = None
        budget_ran_out = False

        for provider, breaker in zip(self.providers, self.breakers, strict=True):
            remaining = deadline - self._clock()
            if remaining <= 0 and getattr(provider, "needs_budget", True):
                budget_ran_out = True
                attempts.append(Attempt(provider.name, "timeout", 0.0, "skipped: budget spent"))
                continue
            if not breaker.allow():
                attempts.append(
                    Attempt(provider.name, "circuit_open", 0.0, "skipped: breaker open")
                )
                continue
            retried = False
            asked, native_schema = messages, schema
            while True:
                started = self._clock()
                try:
                    completion = provider.chat(
                        asked,
                        temperature=temperature,
                        max_tokens=max_tokens,
                        schema=native_schema,
                        stream=stream,
                        timeout=max(remaining, 0.0),
                    )
                except ProviderError as error:
                    latency = self._clock() - started
                    last_error = error
                    detail = error.message
                    if native_schema is None and schema is not None:
                        detail = f"{SCHEMA_IN_PROMPT_NOTE}: {detail}"
                    attempts.append(
                        Attempt(provider.name, error.kind, latency, detail, error.status)
                    )
                    remaining = deadline - self._clock()
                    wait = error.retry_after
                    if (
                        error.kind == "rate_limited"
                        and not retried
                        and wait is not None
                        and wait < remaining
                    ):
                        self._sleep(wait)
                        retried = True
                        remaining = deadline - self._clock()
                        continue
                    if (
                        error.kind == "schema_rejected"
                        and native_schema is not None
                        and (remaining > 0 or not getattr(provider, "needs_budget", True))
                    ):
                        # The schema is what it refused, not the request: the same provider
                        # can still answer with the schema written into the prompt.
                        asked, native_schema = schema_in_prompt(messages, schema), None
                        continue
                    if error.kind in _REQUEST_SPECIFIC_KINDS:
                        # It answered, so it is alive: a half-open trial must not stay stuck.
                        breaker.record_success()
                    else:
                        breaker.record_failure()
                    break
                else:
                    breaker.record_success()
                    detail = SCHEMA_IN_PROMPT_NOTE if native_schema is None and schema else ""
                    attempts.append(Attempt(provider.name, None, self._clock() - started, detail))
                    return completion

        summary = "; ".join(f"{a.provider}: {a.error_kind}" for a in attempts)
        if budget_ran_out:
            kind: ProviderErrorKind = "timeout"
        elif last_error is not None:
            kind = last_error.kind
        else:
            kind = "circuit_open"
        raise FailoverExhausted(kind, f"no provider answered ({summary})", attempts)
