"""A Redis outage under real workers: the worker that held unacknowledged and countdown
messages when Redis went away is still alive when it comes back, and takes new work."""

from __future__ import annotations

import pytest
import redis
from celery import current_app

from dlq.models import StructuredCall
from dlq.tasks import llm_check
from tests.conftest import celery_worker, celery_worker_stop, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_worker_outlives_a_redis_outage_and_takes_work_after_it(
    postgres, private_redis, eager_off
):
    broker_url = f"{private_redis.url}/0"
    # The usual case in production: the prefork pool, tasks with a countdown waiting
    # unacknowledged in the worker (project_drain retries, acks_late).
    worker = celery_worker(broker_url, "--concurrency=1", "--loglevel=INFO")
    try:
        with current_app.connection_for_write(broker_url) as conn:
            for number in range(4):
                llm_check.apply_async(
                    kwargs={"source_id": f"later-{number}"}, countdown=900, connection=conn
                )
        broker = redis.Redis.from_url(broker_url)
        held = wait_for(lambda: broker.hlen("unacked") >= 4, 60)  # kombu's unacked index
        assert held, "the worker never took the countdown messages"
        private_redis.stop()
        wait_for(lambda: worker.poll() is not None, 5)  # the window in which it used to die
        private_redis.start()
        assert wait_for(lambda: worker.poll() is None, 2), (
            "the worker exited during the outage:\n" + celery_worker_stop(worker)[-3000:]
        )

        with current_app.connection_for_write(broker_url) as conn:
            llm_check.apply_async(kwargs={"source_id": "after-outage"}, connection=conn)
        answered = wait_for(
            lambda: StructuredCall.objects.filter(source_id="after-outage").exists(), 60
        )
        assert answered, "no work done after the outage:\n" + celery_worker_stop(worker)[-3000:]
        assert worker.poll() is None
    finally:
        celery_worker_stop(worker)
