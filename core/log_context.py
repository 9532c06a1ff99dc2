"""What a log line is about (the web request's id, the briefing and turn at hand), carried in
context variables through a request and, in task headers, into the Celery tasks it queues."""

from __future__ import annotations

import logging
import re
import uuid
from contextvars import ContextVar

# The fields a log line and a task's headers carry. Ids only: never text a client wrote.
FIELDS = ("request_id", "briefing_id", "turn_id")
_context: ContextVar[dict[str, str] | None] = ContextVar("log_context", default=None)
# A request id a proxy or a client sent is kept only when it looks like one.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


def request_id_accept(sent: str | None) -> str:
    """The id a request is logged under: the one it came with (X-Request-ID from a proxy)
    when it is a plain token, else a new one."""
    if sent and _REQUEST_ID.fullmatch(sent):
        return sent
    return uuid.uuid4().hex


def log_context() -> dict[str, str]:
    return dict(_context.get() or {})


def log_context_bind(**values: object) -> None:
    """Add ids to the current context (None leaves a field as it is)."""
    current = log_context()
    current.update({k: str(v) for k, v in values.items() if k in FIELDS and v is not None})
    _context.set(current)


def log_context_set(values: dict[str, str]) -> object:
    """Replace the context; returns the token `log_context_reset` takes."""
    return _context.set({k: str(v) for k, v in values.items() if k in FIELDS and v})


def log_context_reset(token: object) -> None:
    _context.reset(token)  # type: ignore[arg-type]


class LogContextFilter(logging.Filter):
    """Puts the context's ids on every record (empty when there are none)."""

    def filter(self, record: logging.LogRecord) -> bool:
        values = _context.get() or {}
        for field in FIELDS:
            if not hasattr(record, field):
                setattr(record, field, values.get(field, ""))
        return True
