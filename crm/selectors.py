"""Reads of CRM intake: the filtered lead list and call-back queue, the human queue, and
the dead letters of one message."""

from __future__ import annotations

from django.db.models import F, QuerySet

from crm.models import InboundMessage, Lead
from crm.services import SOURCE_KIND
from dlq.models import DeadLetter


def leads_filtered(params: dict[str, str]) -> QuerySet[Lead]:
    """The leads matching the list's validated filters, newest message first; with
    `queue=call_back` the call-back queue, most urgent first."""
    leads = Lead.objects.all()
    if params["intent"]:
        leads = leads.filter(client_intent=params["intent"])
    if params["urgency"]:
        leads = leads.filter(urgency_days__lte=int(params["urgency"]))
    if params["call_back"]:
        leads = leads.filter(needs_call_back=params["call_back"] == "yes")
    if params["channel"]:
        leads = leads.filter(channel=params["channel"])
    if params["status"]:
        leads = leads.filter(status=params["status"])
    if params["queue"] == "call_back":
        # Who to ring first: the most urgent, then the newest; a lead without a term last.
        return (
            leads.filter(needs_call_back=True)
            .exclude(status=Lead.Status.CLOSED)
            .order_by(F("urgency_days").asc(nulls_last=True), "-last_message_at", "-id")
        )
    return leads.order_by("-last_message_at", "-id")


def human_queue_messages() -> QuerySet[InboundMessage]:
    """The messages a person must read."""
    return InboundMessage.objects.filter(status=InboundMessage.Status.HUMAN)


def message_dead_letters(message: InboundMessage) -> QuerySet[DeadLetter]:
    """The dead letters of one message's readings, newest first."""
    return DeadLetter.objects.filter(source_kind=SOURCE_KIND, source_id=str(message.pk)).order_by(
        "-created_at"
    )
