"""The conversation a model call belongs to, for providers whose prompt cache works per
session (GigaChat reuses a cached prefix only for requests sharing an X-Session-ID)."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

# Set by the caller around a call (one per thread and task), read by the providers: the
# Provider protocol stays the same for the providers that have no such thing.
_session: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "llm_cache_session", default=None
)

# The seed's economics rule, a prefix shorter than this is not worth a cache write, fits
# providers that charge for cache writes; ours do not (GigaChat bills no cached tokens and
# documents no write charge or minimum; OpenAI-compatible APIs cache from 1,024 tokens on
# their own, writes free). So every call of a conversation is marked by default.
DEFAULT_CACHE_MIN_TOKENS = 0


def cache_worthy(cacheable_tokens: int, min_tokens: int = DEFAULT_CACHE_MIN_TOKENS) -> bool:
    """Is a stable prefix this long (estimated tokens) worth marking for the cache?"""
    return cacheable_tokens >= min_tokens


@contextmanager
def cache_session(session: str | None) -> Iterator[None]:
    """Calls inside the block belong to `session` (None or "": to no session)."""
    token = _session.set(session or None)
    try:
        yield
    finally:
        _session.reset(token)


def current_cache_session() -> str | None:
    return _session.get()
