"""Intake through a real Celery worker process over Redis on PostgreSQL: every message read
once, even when each task is delivered twice to two worker processes."""

from __future__ import annotations

import pytest
from django.utils import timezone

from crm import tasks
from crm.models import InboundMessage, Lead
from crm.services import Inbound, inbound_store
from tests.conftest import celery_worker, celery_worker_stop, wait_for


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_worker_reads_every_message_once(postgres, redis_url, eager_off, monkeypatch):
    from celery import current_app

    monkeypatch.setattr(tasks.inbound_process, "delay", lambda *args: None)  # sent below
    texts = [
        f"Хочу купить седан, бюджет {n} млн рублей, телефон +7 916 000-00-0{n % 4}"
        for n in range(1, 13)
    ] + ["Добрый день!"]
    ids = [
        inbound_store(Inbound(channel="form", body_text=t, received_at=timezone.now()))[0].pk
        for t in texts
    ]
    worker = celery_worker(redis_url, "--concurrency=2", "--loglevel=WARNING")
    try:
        with current_app.connection_for_write(redis_url) as conn:
            for pk in ids * 2:  # every task delivered twice
                tasks.inbound_process.apply_async(args=[pk], connection=conn)
        waiting = InboundMessage.objects.filter(status__in=["received", "processing"])
        if not wait_for(lambda: not waiting.exists(), 90):
            worker.terminate()
            output = worker.communicate(timeout=10)[0].decode(errors="replace")
            pytest.fail(f"messages left unread; the worker said:\n{output[-3000:]}")
    finally:
        celery_worker_stop(worker)
    statuses = sorted(InboundMessage.objects.values_list("status", flat=True))
    assert statuses == ["human"] + ["lead"] * 12
    # Four clients (four phones), each message on its client's lead, each read once.
    assert Lead.objects.count() == 4
    assert sorted(Lead.objects.values_list("messages__id", flat=True)) == sorted(ids[:12])
    from dlq.models import StructuredCall

    calls = StructuredCall.objects.filter(source_kind="inbound_message")
    assert calls.count() == 13
