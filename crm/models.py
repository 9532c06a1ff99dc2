"""Inbound messages, stored before anything else, the lead cards read from them, and the
catalogue of lead types (why people write, what they ask for) the cards are read with."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from crm.catalogue import shown_label

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

    code = models.SlugField(_("code"), max_length=50, unique=True)
    name = models.CharField(_("name"), max_length=200)
    business = models.CharField(
        _("business"), max_length=300,
        help_text="Who the messages are written to, for the model's prompt: "
        "\"a video and content production studio\"."
    )  # fmt: skip
    # Any change of the catalogue moves it (the admin saves the type with its terms), so
    # the readers' cached copy is renewed.
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("lead type")
        verbose_name_plural = _("lead types")
        ordering = ["code"]

    def __str__(self) -> str:
        return shown_label(self.name)


class LeadTerm(models.Model):
    """What an intent and a product have in common: a code (the card's value), a label,
    a description for the model, and the words that name it for the rules agent."""

    code = models.CharField(_("code"), max_length=50, validators=[code_validator])
    label = models.CharField(_("label"), max_length=100)
    description = models.CharField(_("description"), max_length=300, blank=True)
    words_ru = models.TextField(_("words (Russian)"), blank=True, help_text=WORDS_HELP)
    words_uk = models.TextField(_("words (Ukrainian)"), blank=True, help_text=WORDS_HELP)
    words_en = models.TextField(_("words (English)"), blank=True, help_text=WORDS_HELP)
    position = models.PositiveSmallIntegerField(
        _("position"),
        default=0,
        help_text="Tried in this order: the first that matches a message wins.",
    )

    class Meta:
        abstract = True
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return shown_label(self.label)


class LeadIntent(LeadTerm):
    """Why a client writes (new project, quote request, complaint, ...)."""

    lead_type = models.ForeignKey(
        LeadType, on_delete=models.CASCADE, related_name="intents", verbose_name=_("lead type")
    )
    fallback = models.BooleanField(
        _("fallback"), default=False,
        help_text="Read when nothing else is; with nothing else to act on, "
        "the message goes to the human queue. One per lead type."
    )  # fmt: skip
    product_only = models.BooleanField(
        _("when only a product is named"), default=False,
        help_text="Read when a message names a product and no intent's words. One per type.",
    )  # fmt: skip
    reads_product = models.BooleanField(
        _("reads the product"), default=True,
        help_text="Off where a product named is not what the client asks for "
        "(a job applicant's skill, a spammer's offer)."
    )  # fmt: skip
    is_request = models.BooleanField(
        _("a request to the business"), default=True,
        help_text="Off for messages that sell to the business (spam, a supplier's pitch): "
        "no budget, term or call-back is read from them.",
    )  # fmt: skip

    class Meta(LeadTerm.Meta):
        verbose_name = _("lead intent")
        verbose_name_plural = _("lead intents")
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

    lead_type = models.ForeignKey(
        LeadType, on_delete=models.CASCADE, related_name="products", verbose_name=_("lead type")
    )

    class Meta(LeadTerm.Meta):
        verbose_name = _("lead product")
        verbose_name_plural = _("lead products")
        constraints = [
            models.UniqueConstraint(fields=["lead_type", "code"], name="lead_product_code_unique"),
        ]


class Channel(models.TextChoices):
    """Where a message came from; a lead's channel is its first message's."""

    EMAIL = "email", _("e-mail")
    FORM = "form", _("web form")
    MESSENGER = "messenger", _("messenger")


class Lead(models.Model):
    """A client who wrote in, with what the machine (or a manager) read from their messages.
    New messages from the same phone or e-mail attach here, so the card has a history."""

    class Status(models.TextChoices):
        NEW = "new", _("new")
        IN_PROGRESS = "in_progress", _("in progress")
        BRIEFING = "briefing", _("briefing started")
        CLOSED = "closed", _("closed")

    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    last_message_at = models.DateTimeField(_("last message"), db_index=True)
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.NEW, db_index=True
    )
    # Of the first message.
    channel = models.CharField(_("channel"), max_length=20, choices=Channel.choices, db_index=True)
    client_name = models.CharField(_("client's name"), max_length=200, blank=True)
    language = models.CharField(_("language"), max_length=2, default="ru")
    # The lead type's codes (LeadIntent, LeadProduct) at the time of reading.
    lead_type = models.CharField(_("lead type"), max_length=50, blank=True)
    client_intent = models.CharField(_("intent"), max_length=50, db_index=True)
    product_class = models.CharField(_("product"), max_length=200, blank=True, db_index=True)
    # The budget as the client gave it: an amount in its currency (ISO 4217). Leads are
    # compared across currencies only through CRM_CURRENCY_RATES, never by a guessed rate.
    budget_amount = models.PositiveBigIntegerField(_("budget"), null=True, blank=True)
    budget_currency = models.CharField(_("currency"), max_length=3, blank=True, db_index=True)
    urgency_days = models.PositiveSmallIntegerField(
        _("days until the deadline"), null=True, blank=True, db_index=True
    )
    needs_call_back = models.BooleanField(_("call back"), default=False, db_index=True)
    phones = models.JSONField(_("phones"), default=list, blank=True)
    emails = models.JSONField(_("e-mails"), default=list, blank=True)
    summary = models.CharField(_("summary"), max_length=200, blank=True)
    # Field → where its value came from: {"message": id, "evidence": text, "by": "model"|...}.
    evidence = models.JSONField(_("evidence"), default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("created by"),
    )  # fmt: skip
    project = models.OneToOneField(
        "briefing.Project", on_delete=models.SET_NULL, null=True, blank=True, related_name="lead",
        verbose_name=_("briefing"),
    )  # fmt: skip

    class Meta:
        verbose_name = _("lead")
        verbose_name_plural = _("leads")
        ordering = ["-last_message_at", "-id"]

    def __str__(self) -> str:
        from crm.selectors import lead_labels

        who = self.client_name or (self.phones or self.emails or ["?"])[0]
        return f"{who}: {lead_labels([self])[0].intent_label}"


class LeadContact(models.Model):
    """One phone (E.164) or e-mail of a lead: unique, so two messages of one client racing
    each other still make one lead."""

    class Kind(models.TextChoices):
        PHONE = "phone", _("phone")
        EMAIL = "email", _("e-mail")

    lead = models.ForeignKey(
        Lead, on_delete=models.CASCADE, related_name="contacts", verbose_name=_("lead")
    )
    kind = models.CharField(_("kind"), max_length=5, choices=Kind.choices)
    value = models.CharField(_("value"), max_length=254)

    class Meta:
        verbose_name = _("lead contact")
        verbose_name_plural = _("lead contacts")
        constraints = [
            models.UniqueConstraint(fields=["kind", "value"], name="lead_contact_unique"),
        ]

    def __str__(self) -> str:
        return self.value


class InboundMessage(models.Model):
    """A message as it arrived, whole. Its status says what became of it."""

    Channel = Channel

    class Status(models.TextChoices):
        RECEIVED = "received", _("received")
        PROCESSING = "processing", _("processing")
        LEAD = "lead", _("read into a lead")
        HUMAN = "human", _("needs a person")
        DEAD_LETTERED = "dead_lettered", _("dead-lettered")

    created_at = models.DateTimeField(_("stored"), auto_now_add=True, db_index=True)
    received_at = models.DateTimeField(_("received"), db_index=True)
    channel = models.CharField(_("channel"), max_length=20, choices=Channel.choices, db_index=True)
    # The messenger's name for it ("telegram", "whatsapp", ...) or the mailbox/import source.
    source = models.CharField(_("source"), max_length=100, blank=True)
    external_id = models.CharField(_("external ID"), max_length=255, blank=True)
    sender = models.CharField(_("sender"), max_length=254, blank=True)
    sender_name = models.CharField(_("sender's name"), max_length=200, blank=True)
    subject = models.CharField(_("subject"), max_length=500, blank=True)
    body_text = models.TextField(_("text"), blank=True)
    # plain | html | none
    body_source = models.CharField(_("text taken from"), max_length=5, blank=True)
    attachments = models.JSONField(_("attachments"), default=list, blank=True)
    # Form fields or messenger payload beyond the text, as they came.
    extra = models.JSONField(_("other fields"), default=dict, blank=True)
    charset_notes = models.JSONField(_("encoding notes"), default=list, blank=True)
    raw = models.BinaryField(null=True, blank=True)  # the e-mail as received
    content_hash = models.CharField(_("content hash"), max_length=64, unique=True)
    status = models.CharField(
        _("status"), max_length=13, choices=Status.choices, default=Status.RECEIVED, db_index=True
    )
    claimed_at = models.DateTimeField(_("claimed"), null=True, blank=True)
    # Claims for reading since it was stored (or replayed): past CRM_MESSAGE_MAX_ATTEMPTS it
    # is dead-lettered instead of being read again.
    attempts = models.PositiveSmallIntegerField(_("readings tried"), default=0)
    processed_at = models.DateTimeField(_("processed"), null=True, blank=True)
    # Why a person must read it (the human queue), or what was cut before the model saw it.
    human_reason = models.CharField(_("why a person reads it"), max_length=300, blank=True)
    model_input_note = models.CharField(_("cut before reading"), max_length=300, blank=True)
    lead = models.ForeignKey(
        Lead, on_delete=models.SET_NULL, null=True, blank=True, related_name="messages",
        verbose_name=_("lead"),
    )  # fmt: skip
    # What was extracted from this message (the card as read), for the lead's history.
    extracted = models.JSONField(_("read from it"), default=dict, blank=True)

    class Meta:
        verbose_name = _("inbound message")
        verbose_name_plural = _("inbound messages")
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
        return _("%(channel)s from %(sender)s: %(subject)s") % {
            "channel": self.get_channel_display(),
            "sender": self.sender or "?",
            "subject": self.subject[:60],
        }


class MailboxPoll(models.Model):
    """One IMAP mailbox's poll lock: a poll claims this row with a conditional UPDATE (a
    lease, renewed before each mail) before it reads the mailbox, so that two polls of one
    mailbox never overlap. A poll that died is taken over once its lease has run out."""

    IDLE = "idle"
    POLLING = "polling"

    mailbox = models.CharField(_("mailbox"), max_length=300, unique=True)  # user@host:port/folder
    status = models.CharField(
        _("status"), max_length=10, default=IDLE,
        choices=[(IDLE, _("idle")), (POLLING, _("polling"))],
    )  # fmt: skip
    claimed_at = models.DateTimeField(_("claimed"), null=True, blank=True)

    class Meta:
        verbose_name = _("mailbox poll")
        verbose_name_plural = _("mailbox polls")

    def __str__(self) -> str:
        return f"{self.mailbox} ({self.get_status_display()})"


class MailboxAttempt(models.Model):
    """A mailbox's mail whose storing was begun and has not finished, counted before each
    try: one that keeps failing, or keeps cutting its poll short, is set aside for a person
    instead of holding up the mail behind it. Deleted once the mail is stored."""

    mailbox = models.CharField(_("mailbox"), max_length=300)
    raw_sha256 = models.CharField(_("mail's SHA-256"), max_length=64)
    attempts = models.PositiveSmallIntegerField(_("tries"), default=0)
    last_error = models.CharField(_("last failure"), max_length=500, blank=True)
    first_at = models.DateTimeField(_("first tried"), auto_now_add=True)

    class Meta:
        verbose_name = _("failed mail")
        verbose_name_plural = _("failed mails")
        constraints = [
            models.UniqueConstraint(
                fields=["mailbox", "raw_sha256"], name="mailbox_attempt_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.mailbox}: {self.raw_sha256[:12]} x{self.attempts}"
