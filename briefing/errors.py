"""The briefing layer's one domain error, mapped once to HTTP by the views and the API."""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """A refusal the caller can act on. `code` is stable (the API's error code; a view picks
    its status from it): "invalid" unless a refusal needs its own answer, such as
    "throttled" (over a rate limit, `extra["retry_after_s"]`) or "idempotency_key_reused"."""

    def __init__(
        self, message: str, *, extra: dict[str, Any] | None = None, code: str = "invalid"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.code = code
