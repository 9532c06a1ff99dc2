"""The three domain events as webhooks announce them: what each one's `data` holds."""

from __future__ import annotations

from typing import Any

from webhooks.models import WebhookDelivery
from webhooks.services import webhook_event_emit


def brief_completed_emit(project: Any) -> list[WebhookDelivery]:
    """A briefing completed (the last stage closed by the agent or a producer)."""
    return webhook_event_emit(
        kind="brief.completed",
        data={
            "project_id": project.pk,
            "title": project.title,
            "client_name": project.client_name,
            "language": project.language,
            "completed_at": project.completed_at,
            "brief": project.brief,
            "summary_markdown": project.summary_markdown,
        },
    )


def lead_created_emit(lead: Any) -> list[WebhookDelivery]:
    """A new lead card (not a known client's card extended by another message)."""
    return webhook_event_emit(
        kind="lead.created",
        data={
            "lead_id": lead.pk,
            "client_intent": lead.client_intent,
            "client_name": lead.client_name,
            "product_class": lead.product_class,
            "budget_amount": lead.budget_amount,
            "budget_currency": lead.budget_currency,
            "urgency_days": lead.urgency_days,
            "needs_call_back": lead.needs_call_back,
            "phones": list(lead.phones),
            "emails": list(lead.emails),
            "summary": lead.summary,
            "channel": lead.channel,
        },
    )


def dead_letter_created_emit(dead_letter: Any) -> list[WebhookDelivery]:
    """A structured answer stayed invalid after its retry and waits for review."""
    return webhook_event_emit(
        kind="dead_letter.created",
        data={
            "dead_letter_id": dead_letter.pk,
            "schema_name": dead_letter.schema_name,
            "error_signature": dead_letter.error_signature,
            "source_kind": dead_letter.source_kind,
            "source_id": dead_letter.source_id,
            "provider": dead_letter.provider,
        },
    )
