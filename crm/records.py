"""The CRM's side of studio's memory (studio.records): leads as a client's history."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.db.models import Q

from crm.models import Lead
from studio.records import PastLead

FIELDS = ("id", "summary", "product_class", "client_intent", "budget_amount", "budget_currency",
          "created_at", "emails", "phones")  # fmt: skip


def _past(lead: Lead) -> PastLead:
    return PastLead(
        pk=lead.pk,
        summary=lead.summary,
        product_class=lead.product_class,
        client_intent=lead.client_intent,
        budget_amount=lead.budget_amount,
        budget_currency=lead.budget_currency,
        created_at=lead.created_at,
        emails=tuple(str(e) for e in lead.emails or []),
        phones=tuple(str(p) for p in lead.phones or []),
    )


class Leads:
    def all(self) -> Iterable[PastLead]:
        # Streamed in chunks: the daily rebuild reads every lead once.
        leads = Lead.objects.order_by("id").only(*FIELDS)
        return (_past(lead) for lead in leads.iterator(chunk_size=1000))

    def with_contact(self, contact: str, *, limit: int) -> list[PastLead]:
        # JSON containment where the database has it; elsewhere (SQLite) a text match on the
        # stored lists, checked exactly here.
        if connection.vendor == "postgresql":
            leads = Lead.objects.filter(
                Q(emails__contains=[contact]) | Q(phones__contains=[contact])
            )
        else:
            leads = Lead.objects.filter(Q(emails__icontains=contact) | Q(phones__icontains=contact))
        found = [
            _past(lead)
            for lead in leads.order_by("-last_message_at").only(*FIELDS)[: limit * 5]
            if contact in (lead.emails or []) or contact in (lead.phones or [])
        ]
        return found[:limit]
