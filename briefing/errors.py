"""The briefing layer's one domain error, mapped once to HTTP by the views and the API."""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    def __init__(self, message: str, *, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
