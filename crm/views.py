"""The managers' pages of CRM intake: the lead list and call-back queue, one lead with where
each value came from, the human queue with its one-click "create lead by hand", one inbound
message whole, and the buttons that turn a lead into a briefing."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_required, permission_required
from django.core.exceptions import ImproperlyConfigured
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget
from pydantic import BaseModel, ValidationError

from briefing.producer.forms import producer_choices
from config.http import HtmxHttpRequest
from core.errors import ApplicationError
from core.input import text_problem
from crm import services
from crm.candidates import why_label
from crm.catalogue import Catalogue
from crm.models import InboundMessage, Lead
from crm.selectors import (
    budget_rates,
    human_queue_messages,
    human_queue_page,
    lead_catalogue,
    lead_labels,
    leads_filtered,
    message_dead_letters,
)
from llmkit.extract import normalise_email, normalise_phone

VIEW_LEADS = "crm.view_lead"
CHANGE_LEADS = "crm.change_lead"
VIEW_MESSAGES = "crm.view_inboundmessage"
LIST_TEMPLATE = "crm/leads.html"
LEAD_TEMPLATE = "crm/lead_detail.html"
QUEUE_TEMPLATE = "crm/human_queue.html"
MESSAGE_TEMPLATE = "crm/message_detail.html"
PAGE_SIZE = 50
# A page of the human queue (each message comes with its form): keyset pages, oldest first.
QUEUE_PAGE_SIZE = 20
EXCERPT_CHARS = 300
# Longer bodies are shown folded: a mail thread with its quotes would bury the page.
BODY_FOLD_CHARS = 1500
LEAD_FILTERS = (
    "intent", "product", "urgency", "call_back", "channel", "status", "budget_min", "sort",
)  # fmt: skip
# The card's fields in reading order, with the labels the pages show.
CARD_FIELDS = [
    ("client_intent", _lazy("intent")),
    ("client_name", _lazy("client name")),
    ("product_class", _lazy("product")),
    ("budget_amount", _lazy("budget")),
    ("budget_currency", _lazy("currency")),
    ("urgency_days", _lazy("within, days")),
    ("needs_call_back", _lazy("call back")),
    ("phones", _lazy("phones")),
    ("emails", _lazy("e-mails")),
    ("summary", _lazy("summary")),
]
# A pattern error quotes the regular expression; a manager needs words instead.
PATTERN_ERRORS = {
    "phones": _lazy("not a phone number (write it with its country code: +7 916 123-45-67)"),
    "emails": _lazy("not an e-mail address"),
}
FORM_TEXT_FIELDS = [name for name, _ in CARD_FIELDS if name != "needs_call_back"]
_LIST_SEPARATORS = re.compile(r"[,;\n]+")
_DAYS = re.compile(r"[0-9]{1,5}")
_AMOUNT = re.compile(r"[0-9]{1,15}")
_ID = re.compile(r"[0-9]{1,18}")
_DIGIT_SPACES = re.compile(r"[\s\u00a0\u202f_]")


# --- reading the lists -----------------------------------------------------------------------


def _get_lead_for_user(request: HtmxHttpRequest, pk: int) -> Lead:
    # The permission decorators keep out whoever may not work the leads; managers see all.
    return get_object_or_404(Lead.objects.select_related("project", "created_by"), pk=pk)


def _get_message_for_user(request: HtmxHttpRequest, pk: int) -> InboundMessage:
    return get_object_or_404(InboundMessage.objects.select_related("lead"), pk=pk)


def _choices(catalogue: Catalogue) -> dict[str, list[tuple[str, str]]]:
    """The lead type's intents and products as (code, label) for the pages' selects."""
    return {
        "intents": catalogue.intent_choices(),
        "products": catalogue.product_choices(),
    }


def _lead_params(request: HtmxHttpRequest, catalogue: Catalogue) -> dict[str, str]:
    """The list's filters as given, each kept only when it is one of its known values (an
    unknown value is ignored rather than showing an empty list that looks like a fact)."""
    given = {name: request.GET.get(name, "").strip() for name in LEAD_FILTERS}
    known = {
        "intent": given["intent"] in catalogue.intent_codes,
        "product": given["product"] in catalogue.product_codes,
        "urgency": bool(_DAYS.fullmatch(given["urgency"])),
        "call_back": given["call_back"] in ("yes", "no"),
        "channel": given["channel"] in InboundMessage.Channel.values,
        "status": given["status"] in Lead.Status.values,
        "budget_min": bool(_AMOUNT.fullmatch(given["budget_min"])),
        "sort": given["sort"] == "budget",
    }
    given["budget_min"] = given["budget_min"].replace(" ", "")
    params = {name: value if known[name] else "" for name, value in given.items()}
    params["queue"] = "call_back" if request.GET.get("queue") == "call_back" else ""
    return params


# --- the lead list -----------------------------------------------------------------------------


@login_required
@permission_required(VIEW_LEADS, raise_exception=True)
@require_GET
def lead_list(request: HtmxHttpRequest) -> HttpResponse:
    """The leads, newest message first, filtered by `intent` and `product` (the lead type's),
    `urgency` (within N days), `call_back` (yes/no), `channel` and `status`;
    `?queue=call_back` is the call-back queue, most urgent first. For htmx only the table."""
    catalogue = lead_catalogue()
    params = _lead_params(request, catalogue)
    page = Paginator(leads_filtered(params), PAGE_SIZE).get_page(request.GET.get("page"))
    lead_labels(page.object_list)
    context = {
        "page": page,
        "params": params,
        "page_query": urlencode({k: v for k, v in params.items() if v}),
        **_choices(catalogue),
        "statuses": Lead.Status.choices,
        "channels": InboundMessage.Channel.choices,
        "human_count": human_queue_messages().count(),
        "filtered": any(params[name] for name in LEAD_FILTERS if name != "sort"),
        "studio_currency": settings.CRM_STUDIO_CURRENCY,
        "rated_currencies": sorted(budget_rates()),
    }
    template = f"{LIST_TEMPLATE}#table" if request.htmx else LIST_TEMPLATE
    return render(request, template, context)


# --- one lead --------------------------------------------------------------------------------


class OtherReading(BaseModel):
    """A candidate the rules found for an intent or a product and did not take."""

    code: str
    evidence: str = ""
    words: str = ""
    why: str = ""


class EvidenceEntry(BaseModel):
    """One entry of Lead.evidence: which message a value was read from, by whom, and the
    words it was read from when an extractor could point at them; for the intent and the
    product, why it won and the other candidates."""

    message: int | None = None
    by: str = ""
    evidence: str = ""
    words: str = ""
    why: str = ""
    others: list[OtherReading] = []


@dataclass
class Source:
    """Where one value came from; `item` names the list item ("+79161234567") it is about."""

    entry: EvidenceEntry
    item: str = ""


@dataclass
class OtherShown:
    """An other reading as the lead page lists it: the label, its words, why it lost."""

    label: str
    evidence: str
    words: str
    why: str


@dataclass
class CardRow:
    name: str
    label: str
    value: str
    sources: list[Source] = field(default_factory=list)
    why: str = ""  # why the intent or product won, in words
    others: list[OtherShown] = field(default_factory=list)


def _shown(value: Any) -> str:
    """A card value as the pages write it (the template escapes it)."""
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return str(value)


def _card_rows(lead: Lead) -> list[CardRow]:
    """The card's fields with where each value came from. A list's items have their own
    entries ("phones:+79161234567"), which stand for the list; an entry that does not read
    as evidence is left out, not guessed at."""
    evidence = lead.evidence if isinstance(lead.evidence, dict) else {}
    shown_as = {"client_intent": lead.intent_label, "product_class": lead.product_label}
    rows = []
    for name, label in CARD_FIELDS:
        value = shown_as[name] if name in shown_as else getattr(lead, name)
        whole, items = [], []
        for key, raw in evidence.items():
            field_name, _, item = key.partition(":")
            if field_name != name:
                continue
            try:
                entry = EvidenceEntry.model_validate(raw)
            except ValidationError:
                continue
            (items if item else whole).append(Source(entry, item=item))
        rows.append(CardRow(name, label, _shown(value), items or whole))
        if whole and name in shown_as:
            rows[-1].why, rows[-1].others = _readings(name, whole[0].entry, lead)
    return rows


def _readings(name: str, entry: EvidenceEntry, lead: Lead) -> tuple[str, list[OtherShown]]:
    """Why the lead's intent or product won, and the other candidates, in the page's words."""
    catalogue = _catalogue_or_none(lead.lead_type)

    def label(code: str) -> str:
        if catalogue is None:
            return code
        return catalogue.intent_label(code) if name == "client_intent" else (
            catalogue.product_label(code))  # fmt: skip

    others = [
        OtherShown(label(o.code), o.evidence, o.words, why_label(o.why) if o.why else "")
        for o in entry.others
    ]
    return (why_label(entry.why) if entry.why else ""), others


def _extracted_rows(message: InboundMessage) -> list[tuple[str, str]]:
    """What was read from one message, in the card's order (an empty value is skipped)."""
    extracted = message.extracted if isinstance(message.extracted, dict) else {}
    catalogue = _catalogue_or_none(str(extracted.get("lead_type") or ""))
    rows = []
    for name, label in CARD_FIELDS:
        value = extracted.get(name)
        if value in (None, "", [], False):
            continue
        if catalogue and isinstance(value, str) and name == "client_intent":
            rows.append((label, catalogue.intent_label(value)))
        elif catalogue and isinstance(value, str) and name == "product_class":
            rows.append((label, catalogue.product_label(value)))
        else:
            rows.append((label, _shown(value)))
    return rows


def _catalogue_or_none(code: str) -> Catalogue | None:
    """The lead type a message was read with (today's when it did not say), or None when
    that type is gone: its codes are then shown as they are."""
    try:
        return lead_catalogue(code or None)
    except ImproperlyConfigured:
        return None


@dataclass
class MessageView:
    message: InboundMessage
    extracted: list[tuple[str, str]]
    by: str
    folded: bool
    excerpt: str


def _message_view(message: InboundMessage) -> MessageView:
    extracted = message.extracted if isinstance(message.extracted, dict) else {}
    return MessageView(
        message=message,
        extracted=_extracted_rows(message),
        by=str(extracted.get("by") or ""),
        folded=len(message.body_text) > BODY_FOLD_CHARS,
        excerpt=message.body_text[:EXCERPT_CHARS],
    )


def _producer_label(user: Any) -> str:
    return user.get_full_name() or user.get_username()


def _producers(user: Any) -> list[tuple[int, str]]:
    """Whom the user may give a lead's briefing to, by full name (the username only for a
    person without one), the user among them."""
    people = producer_choices(user).order_by("first_name", "last_name", "username")
    return [(person.pk, _producer_label(person)) for person in people]


def _lead_context(
    lead: Lead, *, user: Any, error: str = "", producer: int | None = None
) -> dict[str, Any]:
    lead_labels([lead])
    messages = list(InboundMessage.objects.filter(lead=lead).order_by("received_at", "id"))
    return {
        "lead": lead,
        "rows": _card_rows(lead),
        "contacts": lead.contacts.order_by("kind", "value"),
        "inbounds": [_message_view(m) for m in messages],
        "first_message_at": messages[0].received_at if messages else lead.created_at,
        "error": error,
        "producers": _producers(user) if not lead.project_id else [],
        "producer_selected": producer or user.pk,
    }


@login_required
@permission_required(VIEW_LEADS, raise_exception=True)
@require_GET
def lead_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """One lead: its card with where each value came from, its contacts and every message
    of it, oldest first. For htmx only the briefing part (the start button or its link)."""
    lead = _get_lead_for_user(request, pk)
    template = f"{LEAD_TEMPLATE}#briefing" if request.htmx else LEAD_TEMPLATE
    return render(request, template, _lead_context(lead, user=request.user))


def _chosen_producer(user: Any, chosen: str) -> Any:
    """The producer the form names (one the user may give a briefing to); the user themself
    when it names none."""
    if not chosen:
        return user
    producer = (
        producer_choices(user).filter(pk=int(chosen)).first() if _ID.fullmatch(chosen) else None
    )
    if producer is None:
        raise ApplicationError(_("Choose a producer from the list."))
    return producer


@login_required
@permission_required(CHANGE_LEADS, raise_exception=True)
@require_POST
def lead_start_briefing(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Start the lead's briefing (once: a second click gets the same one) with the producer
    chosen (`producer`, a user id; the manager themself when none is sent) and go to it."""
    lead = _get_lead_for_user(request, pk)
    chosen = request.POST.get("producer", "").strip()
    try:
        producer = _chosen_producer(request.user, chosen)
        project = services.lead_start_briefing(lead=lead, user=request.user, producer=producer)
    except ApplicationError as error:
        lead.refresh_from_db()
        template = f"{LEAD_TEMPLATE}#briefing" if request.htmx else LEAD_TEMPLATE
        selected = int(chosen) if _ID.fullmatch(chosen) else None
        context = _lead_context(lead, user=request.user, error=error.message, producer=selected)
        return render(request, template, context, status=400)
    url = reverse("project_detail", args=[project.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


# --- the "create lead by hand" form ----------------------------------------------------------


@dataclass
class LeadByHandForm:
    """The card a manager types for a message, as shown (strings) and its errors by field."""

    values: dict[str, Any]
    errors: dict[str, list[str]] = field(default_factory=dict)
    error: str = ""


def _initial_form(message: InboundMessage, catalogue: Catalogue) -> LeadByHandForm:
    """Prefilled with what the machine read (a bare greeting still has its intent and
    summary), else with the sender's name, and the sender's address in the field it fits:
    an e-mail address as an e-mail, "whatsapp:+7 916…" as a phone, a messenger's user id
    ("telegram:77001") in neither (the message keeps it; the form would refuse it)."""
    read = message.extracted if isinstance(message.extracted, dict) else {}

    def text(name: str) -> str:
        value = read.get(name)
        return "" if value is None else str(value)

    def lines(name: str) -> str:
        value = read.get(name)
        return "\n".join(str(v) for v in value) if isinstance(value, list) else ""

    return LeadByHandForm(
        values={
            "client_intent": text("client_intent") or catalogue.fallback.code,
            "client_name": text("client_name") or message.sender_name,
            "product_class": text("product_class"),
            "budget_amount": text("budget_amount"),
            "budget_currency": text("budget_currency"),
            "urgency_days": text("urgency_days"),
            "needs_call_back": bool(read.get("needs_call_back")),
            "phones": lines("phones") or (normalise_phone(message.sender or "") or ""),
            "emails": lines("emails") or (normalise_email(message.sender or "") or ""),
            "summary": text("summary") or message.subject[:200],
        }
    )


def _number(text: str) -> int | str | None:
    """A typed number ("450 000" → 450000); what does not read as one goes to the service
    as typed, so its error names the field."""
    compact = _DIGIT_SPACES.sub("", text)
    if not compact:
        return None
    try:
        return int(compact)
    except ValueError:
        return text


def _split(text: str) -> list[str]:
    return [item.strip() for item in _LIST_SEPARATORS.split(text) if item.strip()]


def _form_from_post(post) -> tuple[LeadByHandForm, dict[str, Any]]:
    """The form as typed (to show again) and the card data for the service."""
    values = {name: post.get(name, "").strip() for name in FORM_TEXT_FIELDS}
    values["needs_call_back"] = post.get("needs_call_back") in ("on", "true", "1", "yes")
    data = {
        "client_intent": values["client_intent"] or None,
        "client_name": values["client_name"] or None,
        "product_class": values["product_class"] or None,
        "budget_amount": _number(values["budget_amount"]),
        "budget_currency": values["budget_currency"].upper() or None,
        "urgency_days": _number(values["urgency_days"]),
        "needs_call_back": values["needs_call_back"],
        "phones": _split(values["phones"]),
        "emails": _split(values["emails"]),
        "summary": values["summary"],  # not nullable: an empty summary is ""
    }
    return LeadByHandForm(values=values), data


def _refuse_unstorable_text(form: LeadByHandForm) -> None:
    """A NUL (or a lone surrogate) typed or pasted into the card is an error at its field,
    not a database error when the card is saved."""
    problems = [
        {"path": name, "message": problem}
        for name, value in form.values.items()
        if isinstance(value, str) and (problem := text_problem(value))
    ]
    if problems:
        raise ApplicationError("the card is not valid", extra={"fields": problems})


def _form_with_error(
    form: LeadByHandForm, data: dict[str, Any], error: ApplicationError
) -> LeadByHandForm:
    """The service's field errors at their fields ("phones.1" under phones, naming the value
    typed); an error of no field, or a refusal, on top of the form."""
    names = {name for name, _ in CARD_FIELDS}
    fields = [item for item in error.extra.get("fields") or [] if isinstance(item, dict)]
    for item in fields:
        path = str(item.get("path", ""))
        message = str(item.get("message", ""))
        name, _, index = path.partition(".")
        if name not in names:
            form.error = f"{form.error} {path}: {message}".strip()
            continue
        if message.startswith("String should match pattern") and name in PATTERN_ERRORS:
            message = PATTERN_ERRORS[name]
        items = data.get(name)
        if index.isdigit() and isinstance(items, list) and int(index) < len(items):
            message = f"{items[int(index)]}: {message}"
        form.errors.setdefault(name, []).append(message)
    if not fields:
        form.error = error.message
    return form


def _queue_item(
    message: InboundMessage, catalogue: Catalogue, form: LeadByHandForm | None = None
) -> dict[str, Any]:
    return {
        "message": message,
        "excerpt": message.body_text[:EXCERPT_CHARS],
        "truncated": len(message.body_text) > EXCERPT_CHARS,
        "form": form or _initial_form(message, catalogue),
    }


# --- the human queue ------------------------------------------------------------------------


@login_required
@permission_required(VIEW_MESSAGES, raise_exception=True)
@require_GET
def human_queue(request: HtmxHttpRequest) -> HttpResponse:
    """The messages a person must read, oldest first, a page at a time (`?after=`, the next
    page link's cursor), each with its reason and a prefilled "create lead by hand" form.
    For htmx only the list."""
    after = request.GET.get("after", "")
    messages, next_after = human_queue_page(after=after, size=QUEUE_PAGE_SIZE)
    catalogue = lead_catalogue()
    context = {
        "items": [_queue_item(m, catalogue) for m in messages],
        "total": human_queue_messages().count(),
        "next_after": next_after,
        "first_page": not after,
        **_choices(catalogue),
    }
    template = f"{QUEUE_TEMPLATE}#queue" if request.htmx else QUEUE_TEMPLATE
    return render(request, template, context)


# --- one message ---------------------------------------------------------------------------


def _message_context(message: InboundMessage, form: LeadByHandForm | None = None) -> dict[str, Any]:
    catalogue = lead_catalogue()
    return {
        "inbound": _message_view(message),
        "message": message,
        "item": _queue_item(message, catalogue, form),
        **_choices(catalogue),
        "dead_letters": message_dead_letters(message),
    }


@login_required
@permission_required(VIEW_MESSAGES, raise_exception=True)
@require_GET
def message_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """One inbound message whole: what arrived, what was read from it, what became of it,
    its dead letters, and the "create lead by hand" form while it waits for a person."""
    message = _get_message_for_user(request, pk)
    template = f"{MESSAGE_TEMPLATE}#outcome" if request.htmx else MESSAGE_TEMPLATE
    return render(request, template, _message_context(message))


@login_required
@permission_required(VIEW_MESSAGES, raise_exception=True)
@require_GET
def message_raw(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A mail as it arrived, as an .eml file for a mail program: the way to open one that
    was set aside unread (over a cap, or failing to be stored). 404 for other channels."""
    message = _get_message_for_user(request, pk)
    if message.raw is None:
        raise Http404("this message has no raw form")
    response = HttpResponse(bytes(message.raw), content_type="message/rfc822")
    response["Content-Disposition"] = f'attachment; filename="message-{message.pk}.eml"'
    return response


@login_required
@permission_required(CHANGE_LEADS, raise_exception=True)
@require_POST
def message_create_lead(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Read a human-queue message into a lead by hand. Valid: to the lead (htmx: the queue
    item becomes a "Lead #N created" line). Invalid or refused: the form again with the
    errors at their fields, status 400."""
    message = _get_message_for_user(request, pk)
    form, data = _form_from_post(request.POST)
    try:
        _refuse_unstorable_text(form)
        lead = services.lead_create_by_hand(message=message, user=request.user, data=data)
    except ApplicationError as error:
        form = _form_with_error(form, data, error)
        message.refresh_from_db()
        if request.htmx:
            catalogue = lead_catalogue()
            context = {"item": _queue_item(message, catalogue, form), **_choices(catalogue)}
            return render(request, f"{QUEUE_TEMPLATE}#lead-form", context, status=400)
        return render(request, MESSAGE_TEMPLATE, _message_context(message, form), status=400)
    if not request.htmx:
        return redirect("crm:lead_detail", pk=lead.pk)
    response = render(request, f"{QUEUE_TEMPLATE}#lead-created", {"message": message, "lead": lead})
    return reswap(retarget(response, f"#human-message-{message.pk}"), "outerHTML")
