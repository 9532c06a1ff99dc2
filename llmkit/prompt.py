"""Prompts as ordered blocks laid out for provider caching: stable blocks first, the
volatile tail after, the reply-language block last. Rendering is byte-stable."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llmkit.types import Message

# A rough, deterministic token estimate (words and punctuation marks). Providers report
# real prompt tokens; this splits them into the cacheable prefix and the rest, and lets
# benchmarks compare prompt designs without a tokenizer for every model.
_TOKENISH = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def estimate_tokens(text: str) -> int:
    return len(_TOKENISH.findall(text))


def stable_json(value: Any) -> str:
    """JSON that renders byte-for-byte the same for the same data."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


@dataclass(frozen=True, slots=True)
class PromptBlock:
    name: str
    text: str
    # Cacheable blocks open the system message, in order; a provider's prefix cache can
    # reuse them across turns as long as nothing before them changed. Only a block that
    # renders byte-for-byte the same on every call of a conversation is cacheable: one that
    # changes by turn, however slowly, belongs to the volatile tail.
    cacheable: bool
    # A volatile block that is instructions rather than conversation (the turn's state:
    # locks, known and missing fields) ends the system message, after the cacheable blocks;
    # the other volatile blocks form the user message.
    instructions: bool = False

    @property
    def in_system(self) -> bool:
        return self.cacheable or self.instructions


@dataclass(frozen=True, slots=True)
class Prompt:
    blocks: tuple[PromptBlock, ...]

    def __post_init__(self) -> None:
        seen_volatile = seen_user = False
        for block in self.blocks:
            if block.cacheable and seen_volatile:
                raise ValueError(f"cacheable block {block.name!r} after a volatile one")
            if block.in_system and seen_user:
                raise ValueError(f"instructions block {block.name!r} after the user's blocks")
            seen_volatile = seen_volatile or not block.cacheable
            seen_user = seen_user or not block.in_system

    @property
    def cacheable_text(self) -> str:
        return "\n\n".join(b.text for b in self.blocks if b.cacheable and b.text)

    @property
    def volatile_text(self) -> str:
        return "\n\n".join(b.text for b in self.blocks if not b.cacheable and b.text)

    def messages(self) -> list[Message]:
        """The cacheable blocks, then the volatile instructions, as one system message; the
        rest as one user message: the shape every provider accepts (GigaChat allows a system
        message only first). The cacheable text is the system message's first bytes."""
        system = "\n\n".join(b.text for b in self.blocks if b.in_system and b.text)
        user = "\n\n".join(b.text for b in self.blocks if not b.in_system and b.text)
        rendered = [Message("system", system)]
        if user:
            rendered.append(Message("user", user))
        return rendered

    def token_estimate(self) -> tuple[int, int]:
        """(estimated tokens in the cacheable prefix, estimated tokens in all)."""
        cacheable = estimate_tokens(self.cacheable_text)
        return cacheable, cacheable + estimate_tokens(self.volatile_text)


def build_prompt(blocks: Sequence[PromptBlock]) -> Prompt:
    return Prompt(tuple(blocks))
