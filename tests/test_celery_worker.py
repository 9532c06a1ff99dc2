"""A real Celery worker process picks up queued work, over Redis and over the embedded
filesystem transport, and writes to the same PostgreSQL database."""

from __future__ import annotations

import pytest
from django.db import connection

from dlq.models import StructuredCall
from dlq.tasks import llm_check
from tests.conftest import celery_worker, celery_worker_stop, wait_for


def _run_through_worker(broker_url: str, extra_env: dict[str, str], source_id: str) -> None:
    worker = celery_worker(broker_url, "--pool=solo", "--loglevel=WARNING", **extra_env)
    try:
        from celery import current_app

        with current_app.connection_for_write(broker_url) as conn:
            llm_check.apply_async(kwargs={"source_id": source_id}, connection=conn)

        def recorded() -> bool:
            return StructuredCall.objects.filter(source_id=source_id).exists()

        if not wait_for(recorded, 60):
            worker.terminate()
            output = worker.communicate(timeout=10)[0].decode(errors="replace")
            pytest.fail(f"the worker did not record the call; its output:\n{output[-3000:]}")
    finally:
        celery_worker_stop(worker)
    call = StructuredCall.objects.get(source_id=source_id)
    assert call.provider == "rules"
    assert call.outcome != "failed"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_over_redis(postgres, redis_url, eager_off):
    _run_through_worker(redis_url, {}, source_id="redis-worker")


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_over_the_embedded_filesystem_transport(postgres, tmp_path, eager_off):
    assert connection.vendor == "postgresql"
    var_dir = tmp_path / "var"
    for folder in ("queue", "control"):
        (var_dir / "celery" / folder).mkdir(parents=True)
    options = {
        "data_folder_in": str(var_dir / "celery" / "queue"),
        "data_folder_out": str(var_dir / "celery" / "queue"),
        "control_folder": str(var_dir / "celery" / "control"),
    }
    from celery import current_app

    previous = current_app.conf.broker_transport_options
    current_app.conf.broker_transport_options = options
    try:
        _run_through_worker("filesystem://", {"VAR_DIR": str(var_dir)}, source_id="fs-worker")
    finally:
        current_app.conf.broker_transport_options = previous
