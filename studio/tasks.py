"""The studio's periodic work: the daily rebuild of the client snapshots."""

from celery import shared_task

from studio.memory import snapshots_rebuild


@shared_task
def client_snapshots_rebuild() -> dict[str, int]:
    return snapshots_rebuild()
