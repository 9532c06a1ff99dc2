"""Celery entry points of the dlq app."""

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from dlq.digest import weekly_digest_send
from dlq.help_requests import dead_letter_help_mail_send
from dlq.rollups import call_rollups_fold as call_rollups_fold_service
from dlq.rollups import structured_calls_prune
from dlq.services import call_details_prune as call_details_prune_service
from dlq.services import dead_letter_replay_run, llm_check_run


@shared_task
def llm_check(source_id: str = "") -> None:
    llm_check_run(source_id=source_id)


@shared_task
def weekly_digest() -> int:
    """The week's parse-quality digest, e-mailed to the managers (the beat schedule runs it
    on Monday morning for the week that ended the day before)."""
    return weekly_digest_send(week_ending=timezone.localdate() - timedelta(days=1))


@shared_task
def dead_letter_replay(dead_letter_id: int, user_id: int | None) -> str:
    """Replay one dead letter (queued by the review page); returns the letter's new status."""
    return dead_letter_replay_run(dead_letter_id=dead_letter_id, user_id=user_id).status


@shared_task
def call_details_prune() -> int:
    """Nightly: clear old successful calls' prompts and answers (DLQ_CALL_DETAIL_RETENTION_DAYS)
    and delete folded calls past DLQ_CALL_RETENTION_DAYS (their figures stay in the rollups)."""
    cleared = call_details_prune_service(older_than_days=settings.DLQ_CALL_DETAIL_RETENTION_DAYS)
    call_rollups_fold_service()
    structured_calls_prune(older_than_days=settings.DLQ_CALL_RETENTION_DAYS)
    return cleared


@shared_task
def call_rollups_fold() -> int:
    """Every minute: fold the calls recorded since into the quality rollups."""
    return call_rollups_fold_service()


@shared_task
def dead_letter_help_mail(action_id: int) -> int:
    """E-mail the managers that a producer asks them to fix a dead letter."""
    return dead_letter_help_mail_send(action_id=action_id)
