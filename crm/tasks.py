"""Celery entry points of CRM intake."""

from __future__ import annotations

import logging
import os

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from crm.services import inbound_from_mail, inbound_read, inbound_store, inbound_sweep_ids

logger = logging.getLogger(__name__)


@shared_task
def inbound_process(message_id: int) -> str | None:
    """Read one stored message into a lead card; returns the message's new status."""
    message = inbound_read(message_id)
    return message.status if message else None


@shared_task
def inbound_sweep() -> int:
    """Queue again the messages no worker finished (a lost task, a worker that died)."""
    ids = inbound_sweep_ids()
    for message_id in ids:
        inbound_process.delay(message_id)
    return len(ids)


@shared_task
def imap_poll() -> int:
    """Store the mailbox's new messages (each marked seen only once stored); 0 without one."""
    from crm.imap import ImapSettings
    from crm.imap import imap_poll as poll

    settings = ImapSettings.from_env(os.environ)
    if settings is None:
        return 0

    def store(raw: bytes, uid: str) -> None:
        inbound_store(inbound_from_mail(raw, source=f"imap:{settings.folder}",
                                        received_at=timezone.now()))  # fmt: skip

    # A task over its soft time limit stops the poll; the messages not stored stay unseen.
    result = poll(settings, store, abort_on=(SoftTimeLimitExceeded,))
    if result.failed:
        logger.warning("IMAP poll: %s of %s messages not stored", result.failed, result.fetched)
    return result.stored
