"""Celery entry points of the webhooks app."""

from __future__ import annotations

from celery import shared_task

from webhooks.services import webhook_deliver_run, webhooks_due_ids


@shared_task(acks_late=True)
def webhook_deliver(delivery_id: int) -> str | None:
    """Send one delivery if it is due; returns its new status, or None when there was nothing
    to send. Safe to run twice (acks_late): the send is claimed by a conditional update."""
    delivery = webhook_deliver_run(delivery_id)
    return delivery.status if delivery else None


@shared_task
def webhooks_sweep() -> int:
    """Queue again the deliveries whose task was lost (a broker restart, a worker killed)."""
    ids = webhooks_due_ids()
    for delivery_id in ids:
        webhook_deliver.delay(delivery_id)
    return len(ids)
