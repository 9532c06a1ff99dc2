"""Value types shared by every part of llmkit: messages, usage, completions, provider errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.cached_tokens + other.cached_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True, slots=True)
class Completion:
    """One model answer as text, with who produced it and what it cost."""

    text: str
    provider: str
    model: str
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    # True when streaming stopped reading as soon as the first top-level JSON object closed.
    early_closed: bool = False


ProviderErrorKind = Literal[
    "connection",  # refused, reset, DNS, TLS
    "timeout",  # connect/read timeout or the call's time budget ran out
    "rate_limited",  # HTTP 429
    "server",  # HTTP 5xx
    "schema_rejected",  # the provider refused the JSON schema (too large, unsupported)
    "bad_response",  # garbage body, truncated stream, missing fields
    "auth",  # 401/403 after the one token refresh
    "client",  # other 4xx: our request was wrong for this provider
    "circuit_open",  # the breaker refused to call the provider at all
]


class ProviderError(Exception):
    """A provider could not produce an answer. Every kind makes the failover chain move on."""

    def __init__(
        self,
        kind: ProviderErrorKind,
        message: str,
        *,
        provider: str = "",
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.provider = provider
        self.status = status
        self.retry_after = retry_after

    def __str__(self) -> str:
        where = f"{self.provider}: " if self.provider else ""
        status = f" (HTTP {self.status})" if self.status is not None else ""
        return f"{where}{self.kind}{status}: {self.message}"


@runtime_checkable
class Provider(Protocol):
    """What every model backend implements (HTTP APIs, the local model, the rules agent)."""

    name: str
    model: str

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
        """Return the model's answer. `schema` is a JSON Schema the answer should follow;
        `timeout` is the seconds left of the caller's budget. Raise ProviderError on failure."""
        ...
