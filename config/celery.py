"""The Celery app; its configuration lives in settings under the CELERY_ namespace."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("briefing_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Every worker writes a heartbeat that /readyz reads (named, not imported: ops sits above).
app.steps["worker"].add("ops.heartbeat:WorkerHeartbeat")


@signals.task_prerun.connect
@signals.task_postrun.connect
def _database_connections_by_age(sender=None, **kwargs) -> None:
    """Close a worker's database connections as Django closes a web request's: when older
    than CONN_MAX_AGE, unusable, or after an error. Celery's Django fixup would close them
    around every task whatever CONN_MAX_AGE says (a new PostgreSQL connection per turn, 3-4
    ms to open); settings turn that off with CELERY_DB_REUSE_MAX when CONN_MAX_AGE is set."""
    if sender is not None and getattr(sender.request, "is_eager", False):
        return  # run in the caller's process: its connection is the caller's to manage
    from django.db import close_old_connections

    close_old_connections()
