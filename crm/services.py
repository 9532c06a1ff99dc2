"""CRM intake, step by step: store the message first (once, however often it arrives), then
read it into a lead card on a worker. A valid card makes or extends a lead; a broken model
answer is a dead letter; a message with nothing to act on goes to the human queue."""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.template.defaultfilters import filesizeformat
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy

from core.errors import ApplicationError, ErrorCode
from core.input import datetime_problem, text_clean, text_problem
from core.leases import lease_lapsed
from core.queueing import queue_after_commit
from crm import human_reasons
from crm.candidates import MODEL, Choice
from crm.card import (
    LeadCall,
    LeadCard,
    card_is_empty,
    has_instructions,
    lead_card_model,
    lead_choices,
    lead_prompt,
    lead_rules_responder,
    lead_validators,
    model_input,
    sentences_without_instructions,
)
from crm.catalogue import Catalogue
from crm.claims import (
    ClaimLost,
    message_claim,
    message_claim_locked,
    message_claim_row,
    message_finish,
    message_give_up,
    message_lease,
    message_reading_failed,
)
from crm.mail import (
    MAIL_MAX_BYTES,
    MAIL_MAX_PARTS,
    MailCaps,
    MailOverCap,
    mail_parse,
    raw_content_hash,
)
from crm.models import InboundMessage, Lead, LeadContact, LeadType
from crm.reading import budget_find, urgency_find
from crm.reply import mail_parts
from crm.selectors import SOURCE_KIND, lead_briefing_findings, lead_catalogue
from dlq.services import llm_pools, structured_run
from llmkit.extract import find_deadlines, find_emails, find_phones, normalise_email
from llmkit.language import detect_language
from llmkit.parse import parse
from llmkit.structured import StructuredResult
from webhooks.events import lead_created_emit

logger = logging.getLogger(__name__)

LANGUAGES = ("ru", "uk", "en")


# --- storing ---------------------------------------------------------------------------------


# A message without an id of its channel is the same message as an earlier one of the same
# content only this soon after it: a double submit or a client's retry. Later, the same
# words ("ok") are the client writing again.
CONTENT_DUPLICATE_WINDOW = datetime.timedelta(minutes=10)


@dataclass(frozen=True)
class Inbound:
    """A message as a channel delivered it, before it is stored. `set_aside` is why no
    machine may read it (a mail over a cap, one whose storing kept failing): stored
    straight into the human queue with that reason."""

    channel: str
    body_text: str
    received_at: datetime.datetime
    source: str = ""
    external_id: str = ""
    sender: str = ""
    sender_name: str = ""
    subject: str = ""
    body_source: str = "plain"
    attachments: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    charset_notes: list[str] = field(default_factory=list)
    raw: bytes | None = None
    content_hash: str = ""
    set_aside: str = ""

    def hash(self, *, now: datetime.datetime) -> str:
        """The given hash (a mail's, over its normalised content and Message-ID), else the
        message's identity on its channel: its id where the channel gives one, otherwise its
        content within the CONTENT_DUPLICATE_WINDOW slot of `now` (so that two copies
        stored at once still meet on the unique column)."""
        if self.content_hash:
            return self.content_hash
        if self.external_id:
            parts = ["id", self.channel, self.external_id]
        else:
            slot = int(now.timestamp() // CONTENT_DUPLICATE_WINDOW.total_seconds())
            parts = [self.channel, self.source, self.sender.lower(), self.subject, self.body_text]
            parts.append(f"slot {slot}")
        return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _mail_caps() -> MailCaps:
    return MailCaps(
        max_bytes=getattr(settings, "CRM_MAIL_MAX_BYTES", MAIL_MAX_BYTES),
        max_parts=getattr(settings, "CRM_MAIL_MAX_PARTS", MAIL_MAX_PARTS),
    )


# What the human queue says of a mail over a cap (crm.mail.MailOverCap.cap).
_OVER_CAP_REASONS = {
    "bytes": gettext_lazy(
        "This mail is %(size)s, over the limit of %(limit)s: it was kept whole but not read."
    ),
    "text_bytes": gettext_lazy(
        "The text of this mail is over %(limit)s: it was kept whole but not read."
    ),
    "parts": gettext_lazy(
        "This mail has more than %(limit)s MIME parts: it was kept whole but not read."
    ),
    "header_fields": gettext_lazy(
        "This mail has more than %(limit)s header lines: it was kept whole but not read."
    ),
    "mime_header_chars": gettext_lazy(
        "A MIME header of this mail is over %(limit)s characters: it was kept whole but not read."
    ),
}


def _over_cap_reason(over: MailOverCap) -> str:
    """Why a person must open a mail over a cap, in the words the human queue shows."""
    in_bytes = over.cap in ("bytes", "text_bytes")
    size = filesizeformat(over.size) if in_bytes else over.size
    limit = filesizeformat(over.limit) if in_bytes else over.limit
    return str(_OVER_CAP_REASONS[over.cap] % {"size": size, "limit": limit})


def inbound_from_mail(
    raw: bytes, *, source: str, received_at: datetime.datetime | None = None
) -> Inbound:
    """A mail as an inbound message; without `received_at` (an import) it arrived when it
    says it was sent, or now. A mail over a cap (CRM_MAIL_MAX_BYTES, CRM_MAIL_MAX_PARTS and
    the crm.mail constants) is set aside for a person, with only its head read."""
    mail = mail_parse(raw, _mail_caps())
    return Inbound(
        channel=InboundMessage.Channel.EMAIL,
        source=source,
        external_id=mail.message_id[:255],
        # The client is who replies go to: a form relay sends from its own address.
        sender=(mail.reply_to_email or mail.sender_email)[:254],
        sender_name=mail.sender_name[:200],
        subject=mail.subject[:500],
        body_text=mail.body_text,
        body_source=mail.body_source,
        attachments=list(mail.attachments),
        received_at=received_at or mail.sent_at or timezone.now(),
        charset_notes=list(mail.charset_notes),
        extra={"from": mail.sender_email} if mail.reply_to_email else {},
        raw=raw,
        content_hash=mail.content_hash,
        set_aside=_over_cap_reason(mail.over_cap) if mail.over_cap else "",
    )


def inbound_mail_set_aside(
    raw: bytes, *, source: str, received_at: datetime.datetime, reason: str
) -> Inbound:
    """A mail kept whole for a person without reading any of it (its reading may be what
    fails): the raw bytes, and why."""
    return Inbound(
        channel=InboundMessage.Channel.EMAIL, source=source, body_text="", body_source="none",
        received_at=received_at, raw=raw, content_hash=raw_content_hash(raw), set_aside=reason,
    )  # fmt: skip


def _existing(inbound: Inbound, content_hash: str, now: datetime.datetime) -> InboundMessage | None:
    """The message already stored as this one: a mail by its hash or Message-ID; another
    message by its channel's id when it has one, else by the same content stored within the
    CONTENT_DUPLICATE_WINDOW."""
    match = Q(content_hash=content_hash)
    if inbound.external_id:
        match |= Q(channel=inbound.channel, external_id=inbound.external_id)
    elif not inbound.content_hash:
        match |= Q(
            channel=inbound.channel,
            source=text_clean(inbound.source)[:100],
            sender__iexact=text_clean(inbound.sender),
            subject=text_clean(inbound.subject),
            body_text=text_clean(inbound.body_text),
            created_at__gte=now - CONTENT_DUPLICATE_WINDOW,
        )
    return InboundMessage.objects.filter(match).order_by("id").first()


def inbound_store(inbound: Inbound) -> tuple[InboundMessage, bool]:
    """Store the message unless it is here already (see `_existing`). Returns (message,
    created). A new message is read on a worker after the commit; one set aside goes
    straight to the human queue."""
    from crm.tasks import inbound_process

    now = timezone.now()
    content_hash = inbound.hash(now=now)
    existing = _existing(inbound, content_hash, now)
    if existing is not None:
        return existing, False
    # The entry points refuse what no column can hold; a mail cannot be refused, so what
    # is left is cleaned here (NULs dropped, lone surrogates replaced), and a time that no
    # reading could convert (year 10000 in UTC) is unknown: the message arrived now.
    received_at = inbound.received_at
    if datetime_problem(received_at):
        received_at = now
    message = InboundMessage(
        channel=inbound.channel, source=text_clean(inbound.source)[:100],
        external_id=text_clean(inbound.external_id), sender=text_clean(inbound.sender),
        sender_name=text_clean(inbound.sender_name), subject=text_clean(inbound.subject),
        body_text=text_clean(inbound.body_text), body_source=inbound.body_source,
        attachments=inbound.attachments, extra=inbound.extra,
        charset_notes=inbound.charset_notes, raw=inbound.raw, content_hash=content_hash,
        received_at=received_at,
    )  # fmt: skip
    if inbound.set_aside:
        message.status = InboundMessage.Status.HUMAN
        message.human_reason = text_clean(inbound.set_aside)[:300]
        message.processed_at = now
    try:
        with transaction.atomic():
            message.save()
            if not inbound.set_aside:
                queue_after_commit(
                    partial(inbound_process.delay, message.pk),
                    what=f"inbound message {message.pk}: reading",
                )
    except IntegrityError:  # the same message, stored by a parallel delivery just now
        existing = _existing(inbound, content_hash, now)
        if existing is None:
            raise
        return existing, False
    return message, True


# --- reading ---------------------------------------------------------------------------------


def inbound_sweep_ids() -> list[int]:
    """Messages stored but never read, or claimed by a worker longer than the lease."""
    now = timezone.now()
    forgotten = now - datetime.timedelta(seconds=60)
    lapsed = lease_lapsed(working=InboundMessage.Status.PROCESSING, lease=message_lease(), now=now)
    return list(
        InboundMessage.objects.filter(
            Q(status=InboundMessage.Status.RECEIVED, created_at__lt=forgotten) | lapsed
        )
        .order_by("id")
        .values_list("id", flat=True)[:1000]
    )


def _language(message: InboundMessage) -> str:
    """The message's language if it is one we write in, else English."""
    language = detect_language(message.body_text, default="ru")
    return language if language in LANGUAGES else "en"


def lead_call_for(message: InboundMessage) -> LeadCall:
    """One message as its reading sees it (also what `crm_score` reads, without storing)."""
    visible, _ = model_input(message.body_text, limit=settings.CRM_MODEL_INPUT_CHARS)
    return LeadCall(
        text=visible,
        full_text=message.body_text,
        language=_language(message),
        # Terms ("by the end of the month") count from the day the message arrived.
        today=timezone.localdate(message.received_at),
        catalogue=lead_catalogue(),
        sender=message.sender,
        sender_name=message.sender_name,
        attachment_names=tuple(
            str(a.get("filename") or "") for a in message.attachments if isinstance(a, dict)
        ),
    )


def _pool_options() -> dict[str, Any]:
    """With LLM_POOLS, the pool of the simple route (by default the first, cheapest one)
    reads leads, recorded under its name: a lead card is one short structured answer, and
    no level-1 verdict exists for a mail to pick another. Without pools, the one chain."""
    pools = llm_pools()
    if pools is None:
        return {}
    pool = pools.route(complexity="simple").pool
    return {"provider": pools.chains[pool], "pool": pool}


def _read(message: InboundMessage) -> tuple[StructuredResult, Any]:
    """One lead-card call through the structured-output engine, recorded (a failure becomes
    a dead letter of this message), at the engine's temperatures like every structured
    call: 0.3, then 0.0 for the retry. Replays of its dead letters read the same way."""
    call = lead_call_for(message)
    prompt = lead_prompt(
        subject=message.subject, text=call.text, sender=message.sender, language=call.language,
        catalogue=call.catalogue,
    )  # fmt: skip
    return structured_run(
        messages=prompt.messages(),
        target=lead_card_model(call.catalogue),
        source_kind=SOURCE_KIND,
        source_id=str(message.pk),
        raw_input=message.body_text,
        validators=[lead_validators(call)],
        language=call.language,
        max_tokens=settings.CRM_MAX_TOKENS,
        prompt_estimate=prompt.token_estimate(),
        rules_responder=lead_rules_responder(call),
        **_pool_options(),
    )


def _nothing_to_read(message: InboundMessage) -> str:
    """Why a message cannot be read at all, or ""."""
    if message.body_text.strip():
        return ""
    if message.attachments:
        names = ", ".join(a.get("filename") or "unnamed" for a in message.attachments[:5])
        return human_reasons.ATTACHMENTS_ONLY % {"names": names}
    return human_reasons.EMPTY


def inbound_read(message_id: int) -> InboundMessage | None:
    """Read one stored message (the worker's task). A message already read is left alone.
    A reading that raises is tried again by the sweep, CRM_MESSAGE_MAX_ATTEMPTS times in
    all (claims lost with their worker count too); then the message is a dead letter, not
    a failure on every sweep."""
    claimed_at = message_claim_row(message_id, statuses=[InboundMessage.Status.RECEIVED])
    if claimed_at is None:
        return None
    try:
        message = InboundMessage.objects.get(pk=message_id)
        if message.attempts > settings.CRM_MESSAGE_MAX_ATTEMPTS:
            lost = message.attempts - 1
            reason = human_reasons.READING_LOST % {"lost": lost}
            if not message_give_up(message_id, claimed_at=claimed_at, reason=reason):
                return None
            message.status = InboundMessage.Status.DEAD_LETTERED
            return message
        return _process(message)
    except ClaimLost:  # another worker took the message over; its result stands
        return None
    except Exception as error:
        if not message_reading_failed(message_id, claimed_at=claimed_at, error=error):
            raise
        logger.exception("inbound message %s dead-lettered: its reading keeps failing", message_id)
        return None


def _process(message: InboundMessage) -> InboundMessage:
    _, note = model_input(message.body_text, limit=settings.CRM_MODEL_INPUT_CHARS)
    reason = _nothing_to_read(message)
    if reason:
        with transaction.atomic():
            message_finish(message, status=InboundMessage.Status.HUMAN, human_reason=reason)
        return message
    result, _ = _read(message)
    with transaction.atomic():
        _settle(message, result, note=note)
    return message


def _settle(message: InboundMessage, result: StructuredResult, *, note: str) -> None:
    if not result.ok:
        message_finish(message, status=InboundMessage.Status.DEAD_LETTERED, model_input_note=note)
        return
    card_apply(message, result.value, by=result.provider or "model", note=note)


def card_apply(
    message: InboundMessage, card: LeadCard, *, by: str, note: str = "", force: bool = False
) -> Lead | None:
    """A valid card for a claimed message: a new or extended lead, or the human queue when
    there is nothing to act on (unless a person made the card: `force`)."""
    card = _storable(card)
    catalogue = lead_catalogue()
    extracted = {**card.model_dump(), "by": by, "lead_type": catalogue.code}
    if card_is_empty(card, catalogue) and not force:
        reason = (
            human_reasons.NOTHING_TO_ACT_ON_INSTRUCTIONS
            if has_instructions(message.body_text)
            else human_reasons.NOTHING_TO_ACT_ON
        )
        message_finish(
            message, status=InboundMessage.Status.HUMAN, human_reason=reason,
            extracted=extracted, model_input_note=note,
        )  # fmt: skip
        return None
    lead = _lead_for(message, card, by=by, catalogue=catalogue)
    message_finish(
        message, status=InboundMessage.Status.LEAD, lead=lead, extracted=extracted,
        model_input_note=note, human_reason="",
    )  # fmt: skip
    return lead


def _storable(card: LeadCard) -> LeadCard:
    """The card's texts as a column holds them (NULs dropped, lone surrogates replaced): a
    model's answer or a person's fix may hold them ("\\u0000" is valid JSON)."""
    texts = {
        name: text_clean(value)
        for name, value in card
        if isinstance(value, str) and text_problem(value)
    }
    return card.model_copy(update=texts) if texts else card


# Addresses of machines, not clients: a lead keyed on one would collect every message that
# passed through the same relay.
_MACHINE_ADDRESS = re.compile(
    r"^(no-?reply|do-?not-?reply|mailer-daemon|postmaster|bounces?|notifications?)[+.@-]",
    re.IGNORECASE,
)


def _client_address(address: str) -> str | None:
    email = normalise_email(address) if address else None
    return email if email and not _MACHINE_ADDRESS.match(email) else None


def _contacts(message: InboundMessage, card: LeadCard) -> list[tuple[str, str]]:
    emails = [e for e in card.emails if _client_address(e)]
    sender = _client_address(message.sender)
    if sender and sender not in emails:
        emails.append(sender)
    return [(LeadContact.Kind.PHONE, p) for p in dict.fromkeys(card.phones)] + [
        (LeadContact.Kind.EMAIL, e) for e in dict.fromkeys(emails)
    ]


def _lead_for(message: InboundMessage, card: LeadCard, *, by: str, catalogue: Catalogue) -> Lead:
    """The lead of a known phone or e-mail, extended with this message, or a new one. The
    contacts' unique constraint settles two messages of one new client racing each other."""
    contacts = _contacts(message, card)
    for attempt in range(2):
        try:
            with transaction.atomic():
                return _lead_upsert(message, card, contacts, by=by, catalogue=catalogue)
        except IntegrityError:
            if attempt:
                raise
    raise AssertionError("unreachable")


def _known_contacts(contacts: list[tuple[str, str]]):
    match = Q(pk__in=[])
    for kind, value in contacts:
        match |= Q(kind=kind, value=value)
    return LeadContact.objects.filter(match)


def _lead_upsert(
    message: InboundMessage,
    card: LeadCard,
    contacts: list[tuple[str, str]],
    *,
    by: str,
    catalogue: Catalogue,
) -> Lead:
    known = _known_contacts(contacts).order_by("lead_id").first()
    lead = (
        Lead.objects.select_for_update().get(pk=known.lead_id)
        if known
        else Lead(channel=message.channel, last_message_at=message.received_at)
    )
    created = lead.pk is None
    fallback = catalogue.fallback.code
    if not lead.pk or card.client_intent != fallback:  # a later "thanks" keeps it
        lead.client_intent = card.client_intent
        lead.lead_type = catalogue.code
    lead.language = _language(message)
    if card.budget_amount is not None:  # an amount and its currency change together
        lead.budget_amount, lead.budget_currency = card.budget_amount, card.budget_currency or ""
    for name in ("client_name", "product_class", "urgency_days"):
        value = getattr(card, name)
        if value not in (None, ""):
            setattr(lead, name, value)
    lead.client_name = lead.client_name or message.sender_name
    lead.needs_call_back = lead.needs_call_back or card.needs_call_back
    if not lead.summary or card.client_intent != fallback:  # as the intent above
        lead.summary = card.summary or lead.summary or message.subject[:200]
    lead.phones = list(dict.fromkeys([*lead.phones, *card.phones]))
    emails = [value for kind, value in contacts if kind == LeadContact.Kind.EMAIL]
    lead.emails = list(dict.fromkeys([*lead.emails, *emails]))
    lead.last_message_at = max(lead.last_message_at, message.received_at)
    evidence = _evidence(message, card, by=by, catalogue=catalogue)
    if lead.client_intent != card.client_intent:
        evidence.pop("client_intent", None)  # kept from an earlier message, with its words
    if lead.product_class and not card.product_class:
        evidence.pop("product_class", None)
    lead.evidence = {**lead.evidence, **evidence}
    lead.save()
    mine = set(LeadContact.objects.filter(lead=lead).values_list("kind", "value"))
    taken = set(_known_contacts(contacts).exclude(lead=lead).values_list("kind", "value"))
    LeadContact.objects.bulk_create(
        LeadContact(lead=lead, kind=kind, value=value)
        for kind, value in contacts
        if (kind, value) not in mine | taken
    )
    if created:  # in this transaction: a lost race (IntegrityError) rolls it back too
        lead_created_emit(lead)
    return lead


def _evidence(
    message: InboundMessage, card: LeadCard, *, by: str, catalogue: Catalogue
) -> dict[str, Any]:
    """Where each value was read: the message, and the words it came from when an extractor
    can point at them. A list's items have their own keys ("phones:+79161234567"), so a
    later message adding a phone keeps the first phone's source."""
    text = message.body_text
    phones = {p.value: p.text for p in find_phones(text)}
    emails = {e.value: e.text for e in find_emails(text)}
    spans: dict[str, str] = {}
    for phone in card.phones:
        spans[f"phones:{phone}"] = phones.get(phone, "")
    for email in card.emails:
        spans[f"emails:{email}"] = emails.get(email, "")
    sender = _client_address(message.sender)
    if sender and sender not in card.emails:
        spans[f"emails:{sender}"] = f"sender: {message.sender}"
    if card.budget_amount is not None:
        budget = budget_find(text, language=_language(message))
        spans["budget_amount"] = (
            budget.text if budget and budget.amount == card.budget_amount else ""
        )
    if card.urgency_days is not None:
        # The term the client set, from their own words ("a week before the release on 12
        # February"), else the first date the calendar finds.
        today = timezone.localdate(message.received_at)
        request = sentences_without_instructions(mail_parts(text, sender=message.sender).new_text)
        term = urgency_find(request, today=today, language=_language(message))
        found = find_deadlines(text, today=today)
        spans["urgency_days"] = term.text if term else found[0].text if found else ""
    whole = [
        name
        for name, value in card.model_dump().items()
        if value not in (None, "", [], False) and name not in ("phones", "emails")
    ]
    entries: dict[str, Any] = {
        name: {"message": message.pk, "by": by, "evidence": spans.get(name, "")}
        for name in [*whole, *[key for key in spans if ":" in key]]
    }
    reading = lead_choices(
        text, catalogue=catalogue, sender=message.sender,
        attachment_names=[str(a.get("filename") or "") for a in message.attachments
                          if isinstance(a, dict)],
    )  # fmt: skip
    for name, choice, value in (
        ("client_intent", reading.intent, card.client_intent),
        ("product_class", reading.product, card.product_class),
    ):
        if value or choice.candidates:
            entries[name] = {
                "message": message.pk, "by": by, **_choice_evidence(choice, value),
            }  # fmt: skip
    return entries


def _choice_evidence(choice: Choice, value: str | None) -> dict[str, Any]:
    """The words the card's intent or product came from and why it won, and every other
    candidate the rules found with its words and why it lost. A model's or a person's value
    the rules did not choose keeps its own words where the rules found them."""
    winner = next((c for c in choice.candidates if c.code == value), None)
    agrees = value == choice.code
    return {
        "evidence": winner.snippet if winner else "",
        "words": winner.mentions[0].words if winner and winner.mentions else "",
        "why": choice.why if agrees else MODEL if value else "",
        "others": [
            {"code": c.code, "evidence": c.snippet,
             "words": c.mentions[0].words if c.mentions else "", "why": c.why}
            for c in choice.candidates
            if c.code != value
        ],
    }  # fmt: skip


# --- people's actions ------------------------------------------------------------------------


def lead_create_by_hand(*, message: InboundMessage, user: Any, data: dict[str, Any]) -> Lead:
    """A manager reads a message of the human queue into a lead. `data` is a lead card,
    parsed like a model's (phones as people type them are normalised; the same field
    errors), but it may be "empty": a person decided it is a lead."""
    target = lead_card_model(lead_catalogue())
    outcome = parse(json.dumps(data, ensure_ascii=False, default=str), target)
    if not outcome.ok:
        fields = [error.as_dict() for error in outcome.errors]
        raise ApplicationError("the card is not valid", extra={"fields": fields})
    card = outcome.value
    with transaction.atomic():
        locked = InboundMessage.objects.select_for_update().get(pk=message.pk)
        if locked.status != InboundMessage.Status.HUMAN:
            raise ApplicationError(
                f"only a message in the human queue can be read by hand; this one is "
                f"{locked.get_status_display()}",
                code=ErrorCode.CONFLICT,
            )
        known = _known_contacts(_contacts(locked, card)).exists()
        message_claim_locked(locked)
        lead = card_apply(locked, card, by=f"manager {user.get_username()}", force=True)
        if not known:  # a lead this made, not one it extended
            Lead.objects.filter(pk=lead.pk).update(created_by=user)
    lead.refresh_from_db()
    return lead


def lead_briefing_title(lead: Lead, *, language: str) -> str:
    """The title of a briefing started from `lead`, which its client reads on their page: in
    the client's language, never the catalogue's product label (the back office's own words)
    nor the lead's summary (a note about the client)."""
    name = " ".join(lead.client_name.split())[:150]
    with translation.override(language):
        if name:
            return gettext("Project brief — %(name)s") % {"name": name}
        return gettext("Project brief")


def lead_start_briefing(*, lead: Lead, user: Any, producer: Any = None):
    """Start a briefing project for the lead, carrying the client's name, contact, language,
    budget and deadline, run by `producer` (the user who starts it by default). Once: a lead
    whose briefing exists gets that one back."""
    from briefing.services import project_create

    with transaction.atomic():
        locked = Lead.objects.select_for_update().get(pk=lead.pk)
        if locked.project_id:
            return locked.project
        contact = (locked.phones or locked.emails or [""])[0]
        language = locked.language if locked.language in LANGUAGES else "ru"
        project = project_create(
            title=lead_briefing_title(locked, language=language), client_name=locked.client_name,
            client_contact=contact, language=language, producer=producer or user,
            known_source="lead",
            known_findings=lead_briefing_findings(locked, today=timezone.localdate()),
        )  # fmt: skip
        locked.project = project
        locked.status = Lead.Status.BRIEFING
        locked.save(update_fields=["project", "status", "updated_at"])
    return project


# --- the catalogue ----------------------------------------------------------------------------


def lead_type_touch(*, lead_type: LeadType) -> None:
    """Mark a lead type changed after its intents or products were (the readers compare its
    time with their copy's)."""
    LeadType.objects.filter(pk=lead_type.pk).update(updated_at=timezone.now())


# --- the dead letter's source ----------------------------------------------------------------


def message_answer_apply(*, message: InboundMessage, card: LeadCard) -> Lead | None:
    """A manager's fix of a dead-lettered message: the card as if the model had given it.
    Only a message still dead-lettered gets one, so a second fix creates nothing."""
    locked = InboundMessage.objects.select_for_update().get(pk=message.pk)
    if locked.status != InboundMessage.Status.DEAD_LETTERED:
        raise ApplicationError(
            f"this message is {locked.get_status_display()}: it has no broken card to fix",
            code=ErrorCode.CONFLICT,
        )
    message_claim_locked(locked)
    return card_apply(locked, card, by="manager fix", note=locked.model_input_note)


def message_replay(*, message: InboundMessage, settle: Callable[[Any, bool], None]) -> None:
    """Read a dead-lettered message again with today's prompt and providers; `settle(call,
    ok)` runs in the transaction that writes the outcome."""
    claimed = message_claim(
        message.pk, statuses=[InboundMessage.Status.DEAD_LETTERED], restart=True
    )
    if claimed is None:
        raise ApplicationError(
            "this message is not dead-lettered any more: nothing to replay",
            code=ErrorCode.CONFLICT,
        )
    result, record = _read(claimed)
    try:
        with transaction.atomic():
            _settle(claimed, result, note=claimed.model_input_note)
            settle(record, result.ok)
    except ClaimLost:
        raise ApplicationError(
            "another worker took the message over during the replay", code=ErrorCode.CONFLICT
        ) from None
