"""Celery entry points of CRM intake."""

from __future__ import annotations

import logging
import os

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from crm.services import inbound_read, inbound_sweep_ids

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
    """Store the mailbox's new messages (each marked seen only once stored, or set aside for
    a person after failing MAILBOX_MAX_ATTEMPTS times); 0 without a mailbox, or while
    another poll of it runs."""
    from crm.imap import ImapSettings
    from crm.imap import imap_poll as poll
    from crm.mailbox_poll import mailbox_mail_store, mailbox_poll_claim

    settings = ImapSettings.from_env(os.environ)
    if settings is None:
        return 0
    mailbox = f"{settings.user}@{settings.host}:{settings.port}/{settings.folder}"[:300]
    lease = mailbox_poll_claim(mailbox=mailbox)
    if lease is None:
        logger.info("IMAP poll of %s skipped: another poll of it is running", mailbox)
        return 0

    def store(raw: bytes, uid: str) -> None:
        mailbox_mail_store(raw, mailbox=mailbox, source=f"imap:{settings.folder}",
                           received_at=timezone.now())  # fmt: skip

    try:
        # A task over its soft time limit stops the poll; the messages not stored stay
        # unseen (the one it was storing has its try counted).
        result = poll(settings, store, abort_on=(SoftTimeLimitExceeded,), keep_going=lease.renew)
    finally:
        lease.release()
    if result.failed:
        logger.warning("IMAP poll: %s of %s messages not stored", result.failed, result.fetched)
    return result.stored
