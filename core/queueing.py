"""Queueing a Celery task once the transaction commits, without failing what was stored.

A broker that cannot take the task is logged, never raised: the row is already committed,
every kind of queued work has a periodic sweep that finds it again, and raising after the
commit would answer a stored message with a 500 and invite the sender to send it twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import transaction

logger = logging.getLogger(__name__)


def queue_after_commit(send: Callable[[], object], *, what: str) -> None:
    """Call `send` (a task's `delay` or `apply_async`, bound to its arguments) after the
    current transaction commits; `what` names the work in the log line of a failure."""
    transaction.on_commit(lambda: _send_logged(send, what))


def _send_logged(send: Callable[[], object], what: str) -> None:
    try:
        send()
    except Exception:
        logger.exception("%s could not be queued; the periodic sweep will queue it", what)
