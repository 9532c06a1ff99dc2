"""Logs an operator can follow: one JSON line per event (LOG_FORMAT=json, the default with
DEBUG off) with the request id and the briefing/turn ids, carried from the web request into
the Celery tasks it queues; and the access line of every request, which names the view and
never the path (a client's chat link is a secret) nor anything the client wrote."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from celery import signals
from django.http import HttpRequest, HttpResponse
from pythonjsonlogger.json import JsonFormatter as _JsonFormatter

from core.log_context import (
    FIELDS,
    LogContextFilter,
    log_context,
    log_context_bind,
    log_context_reset,
    log_context_set,
    request_id_accept,
)

access_logger = logging.getLogger("briefing.access")
REQUEST_ID_HEADER = "X-Request-ID"


class JsonFormatter(_JsonFormatter):
    """time, level, logger, message, then the context's ids that are set and any extra."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("fmt", "%(asctime)s %(levelname)s %(name)s %(message)s")
        renamed = {"asctime": "time", "levelname": "level", "name": "logger"}
        kwargs.setdefault("rename_fields", renamed)
        kwargs.setdefault("json_ensure_ascii", False)
        super().__init__(*args, **kwargs)

    def process_log_record(self, log_record: dict) -> dict:
        for field in FIELDS:
            if not log_record.get(field):
                log_record.pop(field, None)
        return log_record


def logging_config(*, log_format: str, level: str) -> dict:
    """Django's LOGGING for one format: "json" or "text"."""
    formatter = (
        {"()": "config.logs.JsonFormatter"}
        if log_format == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "core.log_context.LogContextFilter"}},
        "formatters": {"main": formatter},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "main",
                "filters": ["context"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
    }


class RequestIdMiddleware:
    """Gives every request an id (the X-Request-ID it came with, when sane), logs it with
    every line written while it is served, answers with it, and writes one access line."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_accept(request.headers.get(REQUEST_ID_HEADER))
        token = log_context_set({"request_id": request_id})
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response[REQUEST_ID_HEADER] = request_id
            match = getattr(request, "resolver_match", None)
            access_logger.info(
                "%s %s %s",
                request.method,
                match.view_name if match else "-",
                response.status_code,
                extra={
                    "method": request.method,
                    "view": match.view_name if match else "",
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
            return response
        finally:
            log_context_reset(token)


# --- Celery: the ids travel in the task's headers ----------------------------------------
@signals.before_task_publish.connect
def _ids_into_headers(headers=None, **kwargs) -> None:
    if headers is not None:
        for field, value in log_context().items():
            headers.setdefault(field, value)


_task_tokens: dict[str, object] = {}


@signals.task_prerun.connect
def _ids_from_headers(task_id=None, task=None, kwargs=None, **extra) -> None:
    request = getattr(task, "request", None)
    values = {f: getattr(request, f, None) for f in FIELDS} if request is not None else {}
    values = {k: v for k, v in values.items() if v}
    if getattr(request, "is_eager", False):  # run in the caller: its context stays
        log_context_bind(**values)
        return
    _task_tokens[task_id] = log_context_set(values)


@signals.task_postrun.connect
def _ids_cleared(task_id=None, **extra) -> None:
    token = _task_tokens.pop(task_id, None)
    if token is not None:
        log_context_reset(token)


@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def _worker_log_format(logger=None, **kwargs) -> None:
    """Celery sets up its own handlers on the worker; they write the same lines as Django."""
    from django.conf import settings

    if logger is None:
        return
    for handler in logger.handlers:
        handler.addFilter(LogContextFilter())
        if getattr(settings, "LOG_FORMAT", "text") == "json":
            handler.setFormatter(JsonFormatter())
