"""Reads of CRM intake: the lead catalogue in use, the filtered lead list and call-back
queue, the human queue, the dead letters of one message, and what a lead's card tells a
briefing started from it."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Case, F, FloatField, Q, QuerySet, Value, When
from django.utils import timezone

from crm.catalogue import Catalogue, Term, builtin_catalogue, words_split
from crm.models import InboundMessage, Lead, LeadType
from crm.reading import urgency_find
from dlq.models import DeadLetter
from llmkit.extract import find_deadlines

SOURCE_KIND = "inbound_message"  # the dead letters' source of a message's reading

# code → ((row id, updated_at), catalogue): one small query a reading checks the copy.
_catalogues: dict[str, tuple[tuple[int, object], Catalogue]] = {}
_catalogues_lock = threading.Lock()


def lead_catalogue(code: str | None = None) -> Catalogue:
    """The catalogue of lead type `code` (CRM_LEAD_TYPE by default) as an administrator left
    it, or the one the platform ships under that code when the database has none (a fresh
    database before its migration, a test that emptied it)."""
    code = code or settings.CRM_LEAD_TYPE
    row = LeadType.objects.filter(code=code).values_list("pk", "updated_at").first()
    if row is None:
        shipped = builtin_catalogue(code)
        if shipped is None:
            raise ImproperlyConfigured(
                f"CRM_LEAD_TYPE is {code!r}, and there is no lead type with that code"
            )
        return shipped
    key = (row[0], row[1])
    cached = _catalogues.get(code)
    if cached is not None and cached[0] == key:
        return cached[1]
    catalogue = _catalogue_load(LeadType.objects.get(pk=row[0]))
    with _catalogues_lock:
        _catalogues[code] = (key, catalogue)
    return catalogue


def _catalogue_load(lead_type: LeadType) -> Catalogue:
    def words(term) -> tuple[str, ...]:
        return tuple(
            word for text in (term.words_ru, term.words_uk, term.words_en)
            for word in words_split(text)
        )  # fmt: skip

    intents = tuple(
        Term(
            code=i.code,
            label=i.label,
            description=i.description,
            words=words(i),
            fallback=i.fallback,
            product_only=i.product_only,
            reads_product=i.reads_product,
            is_request=i.is_request,
        )
        for i in lead_type.intents.order_by("position", "id")
    )
    if not intents:
        raise ImproperlyConfigured(f"the lead type {lead_type.code!r} has no intents")
    products = tuple(
        Term(code=p.code, label=p.label, description=p.description, words=words(p))
        for p in lead_type.products.order_by("position", "id")
    )
    return Catalogue(
        code=lead_type.code, name=lead_type.name, business=lead_type.business,
        intents=intents, products=products,
    )  # fmt: skip


def lead_labels(leads: list[Lead]) -> list[Lead]:
    """The leads with `intent_label` and `product_label` set from the catalogue each was
    read with (a lead of another type than today's keeps its own words)."""
    catalogues: dict[str, Catalogue | None] = {}
    for lead in leads:
        code = lead.lead_type or settings.CRM_LEAD_TYPE
        if code not in catalogues:
            try:
                catalogues[code] = lead_catalogue(code)
            except ImproperlyConfigured:  # a type deleted since: its codes are shown
                catalogues[code] = None
        catalogue = catalogues[code]
        lead.intent_label = catalogue.intent_label(lead.client_intent) if catalogue else ""
        lead.intent_label = lead.intent_label or lead.client_intent
        lead.product_label = (
            catalogue.product_label(lead.product_class) if catalogue else lead.product_class
        ) if lead.product_class else ""  # fmt: skip
    return leads


def budget_rates() -> dict[str, float]:
    """What one unit of each comparable currency is worth in the studio's: the studio's own
    and those CRM_CURRENCY_RATES gives, nothing guessed."""
    return {**settings.CRM_CURRENCY_RATES, settings.CRM_STUDIO_CURRENCY: 1.0}


def _budget_in_studio_currency():
    """The budget in the studio's currency where its currency has a rate, else NULL."""
    return Case(
        *(
            When(budget_currency=code, then=F("budget_amount") * Value(rate))
            for code, rate in budget_rates().items()
        ),
        default=Value(None),
        output_field=FloatField(),
    )


def leads_filtered(params: dict[str, str]) -> QuerySet[Lead]:
    """The leads matching the list's validated filters, newest message first; with
    `queue=call_back` the call-back queue, most urgent first. `budget_min` (in the studio's
    currency) and `sort=budget` compare only budgets whose currency has a rate: the others
    are left out of the filter and sorted last."""
    leads = Lead.objects.annotate(budget_studio=_budget_in_studio_currency())
    if params.get("budget_min"):
        leads = leads.filter(budget_studio__gte=int(params["budget_min"]))
    if params["intent"]:
        leads = leads.filter(client_intent=params["intent"])
    if params.get("product"):
        leads = leads.filter(product_class=params["product"])
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
    if params.get("sort") == "budget":
        return leads.order_by(F("budget_studio").desc(nulls_last=True), "-last_message_at", "-id")
    return leads.order_by("-last_message_at", "-id")


def human_queue_messages() -> QuerySet[InboundMessage]:
    """The messages a person must read."""
    return InboundMessage.objects.filter(status=InboundMessage.Status.HUMAN)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def human_queue_page(*, after: str = "", size: int) -> tuple[list[InboundMessage], str]:
    """One page of the human queue, oldest first, after `after` (the previous page's cursor;
    anything else reads as the first page), and the cursor of the next page ("" at the end).
    Keyset on (received_at, id), a partial index: every page costs the same."""
    waiting = human_queue_messages().order_by("received_at", "id")
    micros, _, pk = after.partition(".")
    if micros.isdigit() and pk.isdigit():
        moment = _EPOCH + timedelta(microseconds=int(micros))
        waiting = waiting.filter(received_at__gte=moment).filter(
            Q(received_at__gt=moment) | Q(received_at=moment, pk__gt=int(pk))
        )
    messages = list(waiting[: size + 1])
    if len(messages) <= size:
        return messages, ""
    last = messages[size - 1]
    return messages[:size], f"{(last.received_at - _EPOCH) // timedelta(microseconds=1)}.{last.pk}"


def message_dead_letters(message: InboundMessage) -> QuerySet[DeadLetter]:
    """The dead letters of one message's readings, newest first."""
    return DeadLetter.objects.filter(source_kind=SOURCE_KIND, source_id=str(message.pk)).order_by(
        "-created_at"
    )


# --- a lead's card, for the briefing started from it ---------------------------------------------


def lead_deadline(lead: Lead, *, today: date) -> str | None:
    """The day the lead's term ends (ISO), counted from the day of the message it was read
    from (the lead's first day when that is unknown): the term's own words read again on that
    day when the card kept them (the card caps `urgency_days`, the words are not capped),
    else `urgency_days` after it. None without a term, or when the day is already past: the
    client is asked again rather than told a date that has gone."""
    if lead.urgency_days is None:
        return None
    entry = lead.evidence.get("urgency_days") if isinstance(lead.evidence, dict) else None
    entry = entry if isinstance(entry, dict) else {}
    message_id = entry.get("message")
    received = (
        InboundMessage.objects.filter(pk=message_id).values_list("received_at", flat=True).first()
        if isinstance(message_id, int)
        else None
    )
    day = timezone.localdate(received or lead.created_at)
    words = entry.get("evidence")
    # The reader's own reading of its words ("a week before the release on 12 February" is
    # the 5th, not the 12th), else the calendar's.
    term = (
        urgency_find(words, today=day, language=lead.language)
        if isinstance(words, str) and words
        else None
    )
    found = find_deadlines(words, today=day) if isinstance(words, str) and words else []
    deadline = day + timedelta(days=term.days) if term else None
    deadline = deadline or next((d.value for d in found if d.value >= day), None)
    deadline = deadline or day + timedelta(days=lead.urgency_days)
    return deadline.isoformat() if deadline >= today else None


def lead_briefing_findings(lead: Lead, *, today: date) -> dict[str, Any]:
    """What the lead's card says of the budget and the deadline, as the briefing's pre-parse
    names them (the card's budget in its currency)."""
    findings: dict[str, Any] = {}
    if lead.budget_amount is not None:
        findings["budget"] = lead.budget_amount
        if lead.budget_currency:
            findings["currency"] = lead.budget_currency
    deadline = lead_deadline(lead, today=today)
    if deadline:
        findings["deadline"] = deadline
    return findings
