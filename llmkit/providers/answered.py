"""A provider whose first request is already answered: a tool-calling request that came back
with text instead of a tool call is the stage's answer, and the structured call validates it
like any answer instead of asking the model again. Its retry, if it needs one, goes to the
provider (chain) it wraps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llmkit.types import Completion, Message


class AnsweredOnce:
    def __init__(self, provider: Any, first: Completion) -> None:
        self.provider = provider
        self._first: Completion | None = first

    def chat(self, messages: Sequence[Message], **kwargs: Any) -> Completion:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return self.provider.chat(messages, **kwargs)

    def __getattr__(self, name: str) -> Any:  # name, model, providers: the wrapped one's
        return getattr(self.provider, name)
