"""Celery entry points of the briefing app."""

from celery import shared_task
from celery.signals import worker_init, worker_ready
from django.conf import settings

from briefing.turn.claims import turns_pending_project_ids
from briefing.turn.orchestrator import project_turns_drain


@shared_task(bind=True, acks_late=True, max_retries=None)
def project_drain(self, project_id: int) -> None:
    """Process a project's waiting client turns in order. Safe to run twice: each turn is
    claimed with a conditional update (acks_late: a killed worker's message is delivered
    again, and the turn it held is taken over when its claim expires). A project with more
    waiting turns than the task's soft time limit can hold goes on in a fresh task, rather
    than have a turn cut off mid-way (a lost claim)."""
    wait_s = project_turns_drain(
        project_id=project_id, time_left_s=settings.CELERY_TASK_SOFT_TIME_LIMIT
    )
    if wait_s is not None:
        raise self.retry(countdown=max(1, round(wait_s)))


@shared_task
def turns_sweep() -> int:
    """Queue the drain of every project with a client turn left unprocessed (a lost message,
    a worker killed mid-turn). Runs when a worker starts and on the beat schedule."""
    project_ids = turns_pending_project_ids()
    for project_id in project_ids:
        project_drain.delay(project_id)
    return len(project_ids)


@worker_ready.connect
def _sweep_on_start(sender, **kwargs) -> None:
    turns_sweep.delay()


@worker_init.connect
def _reader_warm_up(sender=None, **kwargs) -> None:
    """Load the reader's models in the worker's first process: its forked processes share
    them, and the first turn with a name or a local phone number does not wait seconds."""
    from briefing.reader import nlp

    nlp.warm_up()


@shared_task
def holding_follow_ups() -> int:
    """Ask producers to follow up holding replies whose dead letter waited too long."""
    from briefing.common.inbox import holding_replies_overdue_flag

    return holding_replies_overdue_flag()


@shared_task
def snoozes_wake() -> int:
    """Bring snoozed briefings whose time has come back to the inbox's open list."""
    from briefing.common.inbox import snoozes_wake as wake

    return wake()


@shared_task
def unseen_alerts() -> int:
    """E-mail producers whose client's message nobody has seen for BRIEFING_UNSEEN_ALERT_MIN."""
    from briefing.common.inbox import unseen_alerts_send

    return unseen_alerts_send()
