"""A worker keeps its PostgreSQL connection between tasks when DATABASE_CONN_MAX_AGE says so
(Celery's Django fixup would close it around every task), and closes it when it does not."""

from __future__ import annotations

import pytest
from django.db import connection

from dlq.models import StructuredCall
from dlq.tasks import llm_check
from tests.conftest import celery_worker, celery_worker_stop, wait_for


def _worker_backends() -> set[tuple[int, object]]:
    """(pid, backend start) of every other connection to the test database."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, backend_start FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND backend_type = 'client backend'"
        )
        return set(cursor.fetchall())


def _run(redis_url: str, conn_max_age: str, tasks: int) -> list[set]:
    """The worker's connections after each of `tasks` tasks."""
    from celery import current_app

    worker = celery_worker(redis_url, "--pool=solo", "--loglevel=WARNING",
                           DATABASE_CONN_MAX_AGE=conn_max_age)  # fmt: skip
    seen = []
    try:
        for index in range(tasks):
            source_id = f"conn-{conn_max_age}-{index}"
            with current_app.connection_for_write(redis_url) as conn:
                llm_check.apply_async(kwargs={"source_id": source_id}, connection=conn)
            assert wait_for(StructuredCall.objects.filter(source_id=source_id).exists, 60)
            # The task is recorded before its postrun handlers run: let them finish.
            wait_for(lambda: False, 0.5)
            seen.append(_worker_backends())
    finally:
        celery_worker_stop(worker)
    return seen


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_worker_reuses_its_connection_with_a_max_age(postgres, redis_url, eager_off):
    seen = _run(redis_url, "60", tasks=3)
    assert len(seen[0]) == 1, seen
    assert seen[0] == seen[1] == seen[2]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_worker_without_a_max_age_closes_it_after_each_task(postgres, redis_url, eager_off):
    seen = _run(redis_url, "0", tasks=2)
    assert seen == [set(), set()]
