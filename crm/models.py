"""Inbound messages, stored before anything else, the lead cards read from them, and the
catalogue of lead types (why people write, what they ask for) the cards are read with."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

# A code is a value of the card's enums: a model writes it back, so no quotes or newlines.
code_validator = RegexValidator(
    r"^[\w][\w .-]*$", "letters, digits, spaces, dots, hyphens and underscores only"
)
WORDS_HELP = (
    'One word or phrase a line, in its dictionary form ("ролик" also finds "ролика"); '
    'a word ending in * is a stem ("анимаци*"); a word in capitals matches only capitals '
    '("КП").'
)


class LeadType(models.Model):
    """A business's lead catalogue: what its clients write about. CRM_LEAD_TYPE picks the
    one the cards are read with."""

    code = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=200)
    business = models.CharField(
        max_length=300, help_text="Who the messages are written to, for the model's prompt: "
        "\"a video and content production studio\"."
    )  # fmt: skip
    # Any change of the catalogue moves it (the admin saves the type with its terms), so
    # the readers' cached copy is renewed.
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class LeadTerm(models.Model):
    """What an intent and a product have in common: a code (the card's value), a label,
    a description for the model, and the words that name it for the rules agent."""

    code = models.CharField(max_length=50, validators=[code_validator])
    label = models.CharField(max_length=100)
    description = models.CharField(max_length=300, blank=True)
    words_ru = models.TextField("words (Russian)", blank=True, help_text=WORDS_HELP)
    words_uk = models.TextField("words (Ukrainian)", blank=True, help_text=WORDS_HELP)
    words_en = models.TextField("words (English)", blank=True, help_text=WORDS_HELP)
    position = models.PositiveSmallIntegerField(
        default=0, help_text="Tried in this order: the first that matches a message wins."
    )

    class Meta:
        abstract = True
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return f"{self.label} ({self.code})"


class LeadIntent(LeadTerm):
    """Why a client writes (new project, quote request, complaint, ...)."""

    lead_type = models.ForeignKey(LeadType, on_delete=models.CASCADE, related_name="intents")
    fallback = models.BooleanField(
        default=False, help_text="Read when nothing else is; with nothing else to act on, "
        "the message goes to the human queue. One per lead type."
    )  # fmt: skip
    product_only = models.BooleanField(
        "when only a product is named", default=False,
        help_text="Read when a message names a product and no intent's words. One per type.",
    )  # fmt: skip
    reads_product = models.BooleanField(
        default=True, help_text="Off where a product named is not what the client asks for "
        "(a job applicant's skill, a spammer's offer)."
    )  # fmt: skip
    is_request = models.BooleanField(
        "a request to the business", default=True,
        help_text="Off for messages that sell to the business (spam, a supplier's pitch): "
        "no budget, term or call-back is read from them.",
    )  # fmt: skip

    class Meta(LeadTerm.Meta):
        constraints = [
            models.UniqueConstraint(fields=["lead_type", "code"], name="lead_intent_code_unique"),
            models.UniqueConstraint(
                fields=["lead_type"], condition=models.Q(fallback=True),
                name="lead_intent_one_fallback",
            ),
            models.UniqueConstraint(
                fields=["lead_type"], condition=models.Q(product_only=True),
                name="lead_intent_one_product_only",
            ),
        ]  # fmt: skip


class LeadProduct(LeadTerm):
    """What a client asks for (video, animation, photo, ...)."""

    lead_type = models.ForeignKey(LeadType, on_delete=models.CASCADE, related_name="products")

    class Meta(LeadTerm.Meta):
        constraints = [
            models.UniqueConstraint(fields=["lead_type", "code"], name="lead_product_code_unique"),
        ]


class Lead(models.Model):
    """A client who wrote in, with what the machine (or a manager) read from their messages.
    New messages from the same phone or e-mail attach here, so the card has a history."""

    class Status(models.TextChoices):
        NEW = "new", _("new")
        IN_PROGRESS = "in_progress", _("in progress")
        BRIEFING = "briefing", _("briefing started")
        CLOSED = "closed", _("closed")

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_message_at = models.DateTimeField(db_index=True)
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.NEW, db_index=True
    )
    channel = models.CharField(max_length=20, db_index=True)  # of the first message
    client_name = models.CharField(max_length=200, blank=True)
    language = models.CharField(max_length=2, default="ru")
    # The lead type's codes (LeadIntent, LeadProduct) at the time of reading.
    lead_type = models.CharField(max_length=50, blank=True)
    client_intent = models.CharField(max_length=50, db_index=True)
    product_class = models.CharField(max_length=200, blank=True, db_index=True)
    # The budget as the client gave it: an amount in its currency (ISO 4217). Leads are
    # compared across currencies only through CRM_CURRENCY_RATES, never by a guessed rate.
    budget_amount = models.PositiveBigIntegerField(null=True, blank=True)
    budget_currency = models.CharField(max_length=3, blank=True, db_index=True)
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
        return f"{who}: {self.client_intent}"


class LeadContact(models.Model):
    """One phone (E.164) or e-mail of a lead: unique, so two messages of one client racing
    each other still make one lead."""

    class Kind(models.TextChoices):
        PHONE = "phone", _("phone")
        EMAIL = "email", _("e-mail")

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
        EMAIL = "email", _("e-mail")
        FORM = "form", _("web form")
        MESSENGER = "messenger", _("messenger")

    class Status(models.TextChoices):
        RECEIVED = "received", _("received")
        PROCESSING = "processing", _("processing")
        LEAD = "lead", _("read into a lead")
        HUMAN = "human", _("needs a person")
        DEAD_LETTERED = "dead_lettered", _("dead-lettered")

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
        # The human queue's keyset pages (crm.selectors.human_queue_page) and its count.
        indexes = [
            models.Index(
                fields=["received_at", "id"],
                condition=models.Q(status="human"),
                name="inbound_human_queue",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["channel", "external_id"],
                condition=~models.Q(external_id=""),
                name="inbound_external_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_channel_display()} from {self.sender or '?'}: {self.subject[:60]}"


class MailboxPoll(models.Model):
    """One IMAP mailbox's poll lock: a poll claims this row with a conditional UPDATE (a
    lease, renewed before each mail) before it reads the mailbox, so that two polls of one
    mailbox never overlap. A poll that died is taken over once its lease has run out."""

    IDLE = "idle"
    POLLING = "polling"

    mailbox = models.CharField(max_length=300, unique=True)  # user@host:port/folder
    status = models.CharField(max_length=10, default=IDLE)
    claimed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.mailbox} ({self.status})"


class MailboxAttempt(models.Model):
    """A mailbox's mail whose storing was begun and has not finished, counted before each
    try: one that keeps failing, or keeps cutting its poll short, is set aside for a person
    instead of holding up the mail behind it. Deleted once the mail is stored."""

    mailbox = models.CharField(max_length=300)
    raw_sha256 = models.CharField(max_length=64)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    first_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["mailbox", "raw_sha256"], name="mailbox_attempt_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.mailbox}: {self.raw_sha256[:12]} x{self.attempts}"
