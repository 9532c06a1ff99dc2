"""A producer asks the managers to fix a dead letter of their briefing: the request is
recorded in the letter's history (once per letter) and e-mailed to every manager after the
request commits; the review pages show which open letters a producer is waiting on."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from core.errors import ApplicationError, ErrorCode
from core.queueing import queue_after_commit
from dlq.managers import manager_addresses
from dlq.models import DeadLetter, DeadLetterAction
from dlq.sources import dead_letter_links

NOTE_MAX_CHARS = 2000


def dead_letter_help_request(*, dead_letter: DeadLetter, user: Any, note: str) -> DeadLetterAction:
    """Record that `user` asks a manager to fix `dead_letter` and e-mail the managers. Refused
    for a letter that is no longer open or that someone already asked about."""
    from dlq import tasks  # tasks import the services: resolved at call time

    note = note.strip()
    if len(note) > NOTE_MAX_CHARS:
        raise ApplicationError(f"the note is longer than {NOTE_MAX_CHARS} characters")
    with transaction.atomic():
        letter = DeadLetter.objects.select_for_update().get(pk=dead_letter.pk)
        if letter.status != DeadLetter.Status.OPEN:
            raise ApplicationError(
                f"only an open dead letter needs fixing; this one is {letter.status}",
                code=ErrorCode.CONFLICT,
            )
        asked = help_request_of(letter)
        if asked is not None:
            raise ApplicationError(
                f"a manager was already asked on {asked.at:%Y-%m-%d %H:%M}"
                + (f" by {asked.user.get_username()}" if asked.user else ""),
                code=ErrorCode.CONFLICT,
            )
        action = DeadLetterAction.objects.create(
            dead_letter=letter,
            kind=DeadLetterAction.Kind.HELP_REQUESTED,
            user=user,
            note=note,
        )
        queue_after_commit(
            lambda: tasks.dead_letter_help_mail.delay(action.pk),
            what=f"the e-mail asking to fix dead letter {letter.pk}",
        )
    return action


def help_request_of(letter: DeadLetter) -> DeadLetterAction | None:
    """The request for help with `letter`, if a producer made one."""
    return (
        letter.actions.filter(kind=DeadLetterAction.Kind.HELP_REQUESTED)
        .select_related("user")
        .first()
    )


def open_letters_with_help_requested() -> QuerySet[DeadLetter]:
    """Open dead letters a producer asked a manager to fix, the longest waiting first."""
    return (
        DeadLetter.objects.filter(
            status=DeadLetter.Status.OPEN, actions__kind=DeadLetterAction.Kind.HELP_REQUESTED
        )
        .order_by("created_at", "id")
        .distinct()
    )


def dead_letter_help_mail_send(*, action_id: int) -> int:
    """E-mail the managers about one request for help; returns how many messages were sent
    (none when the letter was settled before the mail went out)."""
    action = DeadLetterAction.objects.select_related("dead_letter", "user").get(pk=action_id)
    letter = action.dead_letter
    recipients = manager_addresses()
    if letter.status != DeadLetter.Status.OPEN or not recipients:
        return 0
    link = dead_letter_links([letter]).get(letter.pk)
    url = settings.SITE_URL + reverse("dlq:dead_letter_detail", args=[letter.pk])
    producer = action.user.get_username() if action.user else _("a producer")
    # Written in the back office's language (LANGUAGE_CODE): no request says a manager's.
    with translation.override(settings.LANGUAGE_CODE):
        subject = _("%(producer)s asks you to fix dead letter %(number)s") % {
            "producer": producer,
            "number": letter.pk,
        }
        lines = [
            _("%(producer)s asks a manager to fix a dead letter of their briefing.")
            % {"producer": producer},
            "",
            _("Briefing: %(label)s") % {"label": link.label if link else "-"},
            _("Error: %(signature)s") % {"signature": letter.error_signature},
            _("Dead letter: %(url)s") % {"url": url},
        ]
        if action.note:
            lines += ["", _("Their note:"), action.note]
    messages = [
        EmailMessage(
            subject=subject,
            body="\n".join(lines) + "\n",
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=[to],
        )
        for to in recipients
    ]
    return get_connection().send_messages(messages) or 0
