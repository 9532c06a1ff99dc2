"""Inbound messages, stored before anything else, and the lead cards read from them."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Lead(models.Model):
    """A client who wrote in, with what the machine (or a manager) read from their messages.
    New messages from the same phone or e-mail attach here, so the card has a history."""

    class Intent(models.TextChoices):
        PURCHASE = "purchase"
        SERVICE = "service"
        INFO = "info"
        COMPLAINT = "complaint"

    class Status(models.TextChoices):
        NEW = "new"
        IN_PROGRESS = "in_progress", "in progress"
        BRIEFING = "briefing", "briefing started"
        CLOSED = "closed"

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_message_at = models.DateTimeField(db_index=True)
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.NEW, db_index=True
    )
    channel = models.CharField(max_length=20, db_index=True)  # of the first message
    client_name = models.CharField(max_length=200, blank=True)
    language = models.CharField(max_length=2, default="ru")
    client_intent = models.CharField(max_length=10, choices=Intent.choices, db_index=True)
    product_class = models.CharField(max_length=200, blank=True)
    budget_rub = models.PositiveBigIntegerField(null=True, blank=True)
    urgency_days = models.PositiveSmallIntegerField(null=True, blank=True, db_index=True)
    needs_call_back = models.BooleanField(default=False, db_index=True)
    phones = models.JSONField(default=list, blank=True)
    emails = models.JSONField(default=list, blank=True)
    summary = models.CharField(max_length=200, blank=True)
    # Field → where its value came from: {"message": id, "evidence": text, "by": "model"|...}.
    evidence = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    project = models.OneToOneField(
        "briefing.Project", on_delete=models.SET_NULL, null=True, blank=True, related_name="lead"
    )

    class Meta:
        ordering = ["-last_message_at", "-id"]

    def __str__(self) -> str:
        who = self.client_name or (self.phones or self.emails or ["?"])[0]
        return f"{who}: {self.get_client_intent_display()}"


class LeadContact(models.Model):
    """One phone (E.164) or e-mail of a lead: unique, so two messages of one client racing
    each other still make one lead."""

    class Kind(models.TextChoices):
        PHONE = "phone"
        EMAIL = "email"

    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="contacts")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    value = models.CharField(max_length=254)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "value"], name="lead_contact_unique"),
        ]

    def __str__(self) -> str:
        return self.value


class InboundMessage(models.Model):
    """A message as it arrived, whole. Its status says what became of it."""

    class Channel(models.TextChoices):
        EMAIL = "email", "e-mail"
        FORM = "form", "web form"
        MESSENGER = "messenger"

    class Status(models.TextChoices):
        RECEIVED = "received"
        PROCESSING = "processing"
        LEAD = "lead", "read into a lead"
        HUMAN = "human", "needs a person"
        DEAD_LETTERED = "dead_lettered", "dead-lettered"

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    received_at = models.DateTimeField(db_index=True)
    channel = models.CharField(max_length=20, choices=Channel.choices, db_index=True)
    # The messenger's name for it ("telegram", "whatsapp", ...) or the mailbox/import source.
    source = models.CharField(max_length=100, blank=True)
    external_id = models.CharField(max_length=255, blank=True)
    sender = models.CharField(max_length=254, blank=True)
    sender_name = models.CharField(max_length=200, blank=True)
    subject = models.CharField(max_length=500, blank=True)
    body_text = models.TextField(blank=True)
    body_source = models.CharField(max_length=5, blank=True)  # plain | html | none
    attachments = models.JSONField(default=list, blank=True)
    # Form fields or messenger payload beyond the text, as they came.
    extra = models.JSONField(default=dict, blank=True)
    charset_notes = models.JSONField(default=list, blank=True)
    raw = models.BinaryField(null=True, blank=True)  # the e-mail as received
    content_hash = models.CharField(max_length=64, unique=True)
    status = models.CharField(
        max_length=13, choices=Status.choices, default=Status.RECEIVED, db_index=True
    )
    claimed_at = models.DateTimeField(null=True, blank=True)
    # Claims for reading since it was stored (or replayed): past CRM_MESSAGE_MAX_ATTEMPTS it
    # is dead-lettered instead of being read again.
    attempts = models.PositiveSmallIntegerField(default=0)
    processed_at = models.DateTimeField(null=True, blank=True)
    # Why a person must read it (the human queue), or what was cut before the model saw it.
    human_reason = models.CharField(max_length=300, blank=True)
    model_input_note = models.CharField(max_length=300, blank=True)
    lead = models.ForeignKey(
        Lead, on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    # What was extracted from this message (the card as read), for the lead's history.
    extracted = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["channel", "external_id"],
                condition=~models.Q(external_id=""),
                name="inbound_external_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_channel_display()} from {self.sender or '?'}: {self.subject[:60]}"
