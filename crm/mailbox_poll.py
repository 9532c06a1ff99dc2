"""The mailbox poll's bookkeeping: one poll of a mailbox at a time (a lease on its row), and a
mail whose storing keeps failing set aside for a person instead of holding up the mail
behind it."""

from __future__ import annotations

import contextlib
import datetime
import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext

from core.leases import lease_claim, lease_settle
from crm.models import MailboxAttempt, MailboxPoll
from crm.services import inbound_from_mail, inbound_mail_set_aside, inbound_store

# Tries to store one mail (each counted before it starts, so a try that the task's time
# limit or a dying worker cut short counts too); the next poll sets the mail aside.
MAILBOX_MAX_ATTEMPTS = 3
# A mail still counted after this long was deleted or read elsewhere: its count goes.
_ATTEMPTS_KEPT = datetime.timedelta(days=30)
_LEASE_MARGIN_S = 60


def mailbox_poll_lease() -> datetime.timedelta:
    """How long a poll's claim holds without renewal: longer than the task may run (its hard
    time limit), so a live poll is never taken over; it renews the claim before each mail."""
    limit_s = getattr(settings, "CELERY_TASK_TIME_LIMIT", None) or 300
    return datetime.timedelta(seconds=limit_s + _LEASE_MARGIN_S)


@dataclass
class MailboxLease:
    """A poll's claim on its mailbox."""

    mailbox: str
    claimed_at: datetime.datetime

    def _rows(self):
        return MailboxPoll.objects.filter(mailbox=self.mailbox)

    def renew(self) -> bool:
        """Move the claim to now; False when it was lost (taken over after its lease ran
        out): the poll must stop, another one reads the mailbox now."""
        now = timezone.now()
        if not lease_settle(
            self._rows(), working=MailboxPoll.POLLING, claim=self.claimed_at, claimed_at=now
        ):
            return False
        self.claimed_at = now
        return True

    def release(self) -> None:
        lease_settle(
            self._rows(), working=MailboxPoll.POLLING, claim=self.claimed_at,
            status=MailboxPoll.IDLE, claimed_at=None,
        )  # fmt: skip


def mailbox_poll_claim(*, mailbox: str) -> MailboxLease | None:
    """Claim the mailbox for one poll with a conditional UPDATE; None while another poll
    holds it."""
    MailboxPoll.objects.get_or_create(mailbox=mailbox)
    now = timezone.now()
    claimed = lease_claim(
        MailboxPoll.objects.filter(mailbox=mailbox),
        claimable=Q(status=MailboxPoll.IDLE),
        working=MailboxPoll.POLLING,
        lease=mailbox_poll_lease(),
        now=now,
    )
    if not claimed:
        return None
    MailboxAttempt.objects.filter(mailbox=mailbox, first_at__lt=now - _ATTEMPTS_KEPT).delete()
    return MailboxLease(mailbox=mailbox, claimed_at=now)


def _set_aside_reason(attempts: int, last_error: str) -> str:
    if last_error:
        return gettext(
            "Storing this mail failed %(attempts)s times (the last time: %(error)s): it was "
            "kept whole but not read."
        ) % {"attempts": attempts, "error": last_error[:150]}
    return gettext(
        "Storing this mail was cut short %(attempts)s times: it was kept whole but not read."
    ) % {"attempts": attempts}


def mailbox_mail_store(
    raw: bytes, *, mailbox: str, source: str, received_at: datetime.datetime
) -> None:
    """Store one mail of the mailbox, counting the try first. A mail tried
    MAILBOX_MAX_ATTEMPTS times already is not read at all but set aside whole for a person,
    so that the poll moves on past it. Raises when storing failed (the mail stays unseen)."""
    key = hashlib.sha256(raw).hexdigest()
    MailboxAttempt.objects.get_or_create(mailbox=mailbox, raw_sha256=key)
    tries = MailboxAttempt.objects.filter(mailbox=mailbox, raw_sha256=key)
    tries.update(attempts=F("attempts") + 1)  # committed before the try: a kill counts too
    attempts, last_error = tries.values_list("attempts", "last_error").get()
    if attempts > MAILBOX_MAX_ATTEMPTS:
        reason = _set_aside_reason(attempts - 1, last_error)
        inbound_store(
            inbound_mail_set_aside(raw, source=source, received_at=received_at, reason=reason)
        )
    else:
        try:
            inbound_store(inbound_from_mail(raw, source=source, received_at=received_at))
        except Exception as error:
            with contextlib.suppress(Exception):  # the database may be what failed
                tries.update(last_error=f"{type(error).__name__}: {error}"[:500])
            raise
    tries.delete()
