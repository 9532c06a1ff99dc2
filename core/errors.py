"""The one domain error every app raises, with a stable code that each entry point maps once.

Like Zulip's `JsonableError`, a refusal carries a machine-readable `code` beside its
message for people: the REST API returns it as `{"error": {"code": ...}}` and picks the
HTTP status from it (`api/errors.py`, the DRF exception handler); the HTMX views pick
their answer from it. Imports no Django, so any app (and llmkit's callers) may raise it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar


class ErrorCode(StrEnum):
    """The codes a client may rely on; a new kind of refusal adds one here (and its status)."""

    # The input is wrong: correct it and send again.
    INVALID = "invalid"
    # The object's state does not allow this now (closed, already done, someone else on it).
    CONFLICT = "conflict"
    # What the request refers to no longer exists.
    NOT_FOUND = "not_found"
    # Over a rate limit; `extra["retry_after_s"]` says when to try again.
    THROTTLED = "throttled"
    # An idempotency key sent again with a different body.
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"


class ApplicationError(Exception):
    """A refusal the caller can act on: a message for people, `extra` for the details
    (`fields` for per-field problems) and a stable `code` (an `ErrorCode`; a plain string
    must name one). Subclasses may set `default_code`."""

    default_code: ClassVar[ErrorCode] = ErrorCode.INVALID

    def __init__(
        self,
        message: str,
        *,
        extra: dict[str, Any] | None = None,
        code: ErrorCode | str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}
        self.code = ErrorCode(code) if code is not None else self.default_code
