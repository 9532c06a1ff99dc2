"""Heartbeats: every Celery worker and the beat write theirs to the database, so /readyz on
any web process sees the background processes of every host. The worker's is written from
its own event loop (a timer of the worker), so a wedged worker stops beating."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import bootsteps
from celery.beat import PersistentScheduler
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django.utils import timezone

from ops.models import ProcessHeartbeat

logger = logging.getLogger(__name__)
# Rows of processes silent this long are deleted (a worker that went away for good).
FORGET_AFTER = timedelta(days=1)


def heartbeat_record(*, kind: str, name: str) -> None:
    """Record that a process is alive now. A database that does not answer is logged: the
    heartbeat then goes stale and /readyz says so."""
    now = timezone.now()
    try:
        ProcessHeartbeat.objects.update_or_create(
            kind=kind, name=name[:200], defaults={"seen_at": now}
        )
        ProcessHeartbeat.objects.filter(seen_at__lt=now - FORGET_AFTER).delete()
    except DatabaseError:
        logger.warning("The %s heartbeat could not be written: the database did not answer", kind)
    finally:
        # The worker's main process forks its pool's children: it keeps no connection open.
        connection.close()


def heartbeat_forget(*, kind: str, name: str) -> None:
    """A process that stops cleanly takes its heartbeat with it."""
    try:
        ProcessHeartbeat.objects.filter(kind=kind, name=name[:200]).delete()
    except DatabaseError:
        pass
    finally:
        connection.close()


class WorkerHeartbeat(bootsteps.StartStopStep):
    """A worker step (config.celery adds it): beats every OPS_WORKER_HEARTBEAT_S seconds."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker, **kwargs) -> None:
        super().__init__(worker, **kwargs)
        self.timer_entry = None

    def start(self, worker) -> None:
        close_old_connections()
        heartbeat_record(kind=ProcessHeartbeat.Kind.WORKER, name=worker.hostname)
        self.timer_entry = worker.timer.call_repeatedly(
            settings.OPS_WORKER_HEARTBEAT_S,
            heartbeat_record,
            kwargs={"kind": ProcessHeartbeat.Kind.WORKER, "name": worker.hostname},
        )

    def stop(self, worker) -> None:
        if self.timer_entry is not None:
            self.timer_entry.cancel()
            self.timer_entry = None
        heartbeat_forget(kind=ProcessHeartbeat.Kind.WORKER, name=worker.hostname)


class RecordingScheduler(PersistentScheduler):
    """Celery's default scheduler, which also records each of its ticks (the beat wakes at
    least every CELERY_BEAT_MAX_LOOP_INTERVAL seconds)."""

    def tick(self, *args, **kwargs):
        heartbeat_record(kind=ProcessHeartbeat.Kind.BEAT, name="beat")
        return super().tick(*args, **kwargs)
