"""Briefing projects, their stages, the transcript, locked entities and domain events."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from llmkit.language import LANGUAGES

LANGUAGE_CHOICES = sorted(LANGUAGES.items())


def _client_token() -> str:
    return secrets.token_urlsafe(24)


class Project(models.Model):
    """One client's briefing. `profile` holds every stage's fields (stage key → fields),
    read and written through `briefing.turn.brief` models, never as loose dicts elsewhere."""

    class Status(models.TextChoices):
        # Labels translated for the back office (lazy, so the migrations see the same text).
        ACTIVE = "active", _("Active")
        PAUSED = "paused", _("Paused")
        COMPLETED = "completed", _("Completed")

    title = models.CharField(_("title"), max_length=200)
    client_name = models.CharField(_("client's name"), max_length=200, blank=True)
    client_contact = models.CharField(_("client's contact"), max_length=200, blank=True)
    briefing_type = models.CharField(_("briefing type"), max_length=40, default="production")
    # The languages the engine detects and can force a reply in (llmkit.language).
    language = models.CharField(_("language"), max_length=8, default="ru", choices=LANGUAGE_CHOICES)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.ACTIVE, db_index=True
    )
    producer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="briefing_projects",
        verbose_name=_("producer"),
    )
    taken_over_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("taken over by"),
    )
    # The client's link; None once revoked (a rotated link gets a new token, the old one 404s).
    client_token = models.CharField(
        _("client's link token"),
        max_length=64,
        unique=True,
        null=True,
        blank=True,
        default=_client_token,
    )
    profile = models.JSONField(default=dict, blank=True)
    brief = models.JSONField(null=True, blank=True)
    summary_markdown = models.TextField(blank=True)
    # The number of the briefing's last turn, taken with the row's lock (briefing.common.inbox's
    # project_lock): the next writer, once it has the row, sees the number the one before it
    # committed, which a MAX(seq) in the locking statement does not (its snapshot is older).
    last_seq = models.PositiveIntegerField(default=0)
    # The client's memory keys (studio.memory) as the last processed turn left the profile: a
    # turn asks for the client's snapshots only when one exists under them (a stale key costs
    # a query, never a wrong answer; a key longer than any snapshot's is left blank).
    memory_contact_key = models.CharField(max_length=220, blank=True)
    memory_company_key = models.CharField(max_length=220, blank=True)
    # The producer's "use the strong model" switch: every turn goes to the escalation pool.
    strong_model = models.BooleanField(default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    completed_at = models.DateTimeField(_("completed"), null=True, blank=True)
    # A briefing is never deleted: it is archived (briefing.upkeep.retention, an event says who and
    # when), and only forgetting its client erases what the client wrote.
    archived_at = models.DateTimeField(_("archived"), null=True, blank=True)
    # The inbox's facts (briefing.common.inbox), rewritten in the transaction of every change, so
    # the dashboard reads one page of rows instead of aggregating turns and events.
    waiting_for = models.CharField(max_length=10, default="client")
    needs_reason = models.CharField(max_length=24, blank=True)  # why a person is needed now
    needs_since = models.DateTimeField(null=True, blank=True)
    last_activity_at = models.DateTimeField(null=True, blank=True)
    read_seq = models.PositiveIntegerField(default=0)  # the last turn its producer opened
    unread_count = models.PositiveIntegerField(default=0)  # client turns after read_seq
    # The inbox order: rank 0 needs a person (key: since when, oldest first), 1 in progress,
    # 2 completed (key: minus the last activity, newest first); in microseconds.
    inbox_rank = models.PositiveSmallIntegerField(default=1)
    inbox_key = models.BigIntegerField(default=0)
    inbox_changed_at = models.DateTimeField(null=True, blank=True)
    # What a dashboard row flags, kept in the transactions that change it (briefing.common.inbox):
    # open dead letters of its turns (and the newest one, the row's link), blocked renames of a
    # locked entity and holding replies sent.
    open_dead_letters = models.PositiveIntegerField(default=0)
    open_dead_letter_id = models.BigIntegerField(null=True, blank=True)
    lock_violations = models.PositiveIntegerField(default=0)
    holding_replies = models.PositiveIntegerField(default=0)
    # The conversation's state in the inbox (briefing.common.inbox), apart from the briefing's own:
    # resolved by a producer, or snoozed until a time; the client's next message ends both.
    resolved_at = models.DateTimeField(null=True, blank=True)
    snoozed_until = models.DateTimeField(null=True, blank=True)
    # When someone on the staff last had the briefing's page open (its poll stamps it), and
    # when its producer was last e-mailed about a client message nobody saw: once per wait.
    seen_at = models.DateTimeField(null=True, blank=True)
    unseen_alerted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("briefing")
        verbose_name_plural = _("briefings")
        ordering = ["-updated_at", "-id"]
        permissions = [("view_all_projects", "Can see and act on every producer's briefings")]
        indexes = [
            models.Index(fields=["inbox_rank", "inbox_key", "id"], name="project_inbox_order"),
            models.Index(
                fields=["producer", "inbox_rank", "inbox_key", "id"],
                name="project_inbox_producer_order",
            ),
            models.Index(fields=["inbox_changed_at"], name="project_inbox_changed"),
            models.Index(
                fields=["producer", "inbox_changed_at"], name="project_inbox_producer_changed"
            ),
            models.Index(
                fields=["producer"],
                condition=models.Q(unread_count__gt=0),
                name="project_unread_by_producer",
            ),
            # The API's keyset pages: briefings newest first, briefs by completion.
            models.Index(fields=["created_at", "id"], name="project_created"),
            models.Index(fields=["completed_at", "id"], name="project_completed"),
            # The sweep that wakes snoozed briefings reads only those.
            models.Index(
                fields=["snoozed_until"],
                condition=models.Q(snoozed_until__isnull=False),
                name="project_snoozed",
            ),
        ]

    def __str__(self) -> str:
        return self.title


class StageRun(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    class ClosedBy(models.TextChoices):
        AGENT = "agent", _("Agent")
        PREFILL = "prefill", _("pre-parse")
        PRODUCER = "producer", _("Producer")

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="stages", verbose_name=_("briefing")
    )
    key = models.CharField(_("stage"), max_length=40)
    order = models.PositiveSmallIntegerField(
        _("order"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    fields = models.JSONField(default=dict, blank=True)
    # Field names a producer set: the pre-parse and the agents never overwrite them.
    producer_fields = models.JSONField(default=list, blank=True)
    summary = models.TextField(_("summary"), blank=True)
    closed_by = models.CharField(
        _("closed by"), max_length=10, choices=ClosedBy.choices, blank=True
    )
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    # The conversation went past it once the pre-parse had closed it (its stage_skipped event
    # is recorded, once): kept on the row so that a turn does not search the events for it.
    skipped = models.BooleanField(default=False)
    # What the dialogue knows of each field beyond its value (briefing.turn.field_states): how
    # often the agent asked for it, and whether it is left for the producer or to be checked.
    dialogue = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = _("briefing stage")
        verbose_name_plural = _("briefing stages")
        ordering = ["project", "order"]
        constraints = [
            models.UniqueConstraint(fields=["project", "key"], name="stage_run_unique_key"),
            models.UniqueConstraint(fields=["project", "order"], name="stage_run_unique_order"),
            models.CheckConstraint(
                condition=models.Q(status="closed", closed_at__isnull=False)
                | (~models.Q(status="closed") & models.Q(closed_at__isnull=True)),
                name="stage_run_closed_iff_closed_at",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.project_id}:{self.key} ({self.status})"


class Turn(models.Model):
    """One line of the transcript. Client turns carry a processing status; the others are
    written already done."""

    class Role(models.TextChoices):
        CLIENT = "client", _("Client")
        AGENT = "agent", _("Agent")
        PRODUCER = "producer", _("Producer")
        SYSTEM = "system", _("System")

    class Status(models.TextChoices):
        RECEIVED = "received", _("Received")
        PROCESSING = "processing", _("Processing")
        DONE = "done", _("Done")
        WAITING_PRODUCER = "waiting_producer", _("waiting for the producer")
        FAILED = "failed", _("Failed")

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="turns", verbose_name=_("briefing")
    )
    seq = models.PositiveIntegerField(
        _("number"),
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices)
    text = models.TextField(_("text"), blank=True)
    stage_key = models.CharField(_("stage"), max_length=40, blank=True)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.DONE, db_index=True
    )
    claimed_at = models.DateTimeField(null=True, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    reply_to = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="replies"
    )
    call = models.ForeignKey(
        "dlq.StructuredCall", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    # What the agent asked (the rules agent reads the next answer against it), and the like.
    meta = models.JSONField(default=dict, blank=True)
    # The client's key for this message (the chat form's hidden token, the API's
    # Idempotency-Key header): a repeated submission finds this turn instead of adding one.
    idempotency_key = models.CharField(max_length=100, blank=True, default="", editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("turn")
        verbose_name_plural = _("turns")
        ordering = ["project", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["project", "seq"], name="turn_unique_seq"),
            # Messages without a key (and every other role's turns) never collide.
            models.UniqueConstraint(
                fields=["project", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="turn_unique_idempotency_key",
            ),
        ]
        indexes = [models.Index(fields=["project", "status", "seq"])]

    def __str__(self) -> str:
        return f"{self.project_id}#{self.seq} {self.role}"


class LockedEntity(models.Model):
    """A value that must not drift between stages (client name, product name, tone)."""

    class Source(models.TextChoices):
        CLIENT = "client", _("Client")
        PREFILL = "prefill", _("pre-parse")
        PRODUCER = "producer", _("Producer")
        LEAD = "lead", _("Lead")

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="locks", verbose_name=_("briefing")
    )
    key = models.CharField(_("field"), max_length=40)
    value = models.CharField(_("value"), max_length=300)
    source = models.CharField(_("source"), max_length=10, choices=Source.choices)
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        verbose_name=_("set by"),
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("locked entity")
        verbose_name_plural = _("locked entities")
        ordering = ["project", "key"]
        constraints = [
            models.UniqueConstraint(fields=["project", "key"], name="locked_entity_one_per_key"),
        ]

    def __str__(self) -> str:
        return f"{self.key} = {self.value}"


class BriefingEvent(models.Model):
    """A typed domain event: what the live view, the audit and every status line read."""

    class Kind(models.TextChoices):
        TURN_RECEIVED = "turn_received", _("the client's message received")
        GUARD_ANSWERED = "guard_answered", _("guard answered without a model")
        LANGUAGE_DETECTED = "language_detected", _("language switched")
        PREFILL_FILLED = "prefill_filled", _("field filled by the pre-parse")
        STAGE_STARTED = "stage_started", _("stage started")
        AGENT_REPLIED = "agent_replied", _("agent replied")
        GATE_HELD = "gate_held", _("stage held open")
        STAGE_CLOSED = "stage_closed", _("stage closed")
        STAGE_SKIPPED = "stage_skipped", _("stage skipped")
        STAGE_REOPENED = "stage_reopened", _("stage reopened")
        RETRY_USED = "retry_used", _("retry used")
        DEAD_LETTERED = "dead_lettered", _("answer dead-lettered")
        HOLDING_REPLY_SENT = "holding_reply_sent", _("holding reply sent")
        PROVIDER_FAILOVER = "provider_failover", _("served by another provider after failover")
        LOCK_SET = "lock_set", _("lock set")
        LOCK_REMOVED = "lock_removed", _("lock removed")
        LOCK_VIOLATION_BLOCKED = "lock_violation_blocked", _("rename of a locked entity blocked")
        FIELD_CORRECTED = "field_corrected", _("field corrected")
        # The client restated a field: the latest explicit value replaced the earlier one.
        FIELD_CORRECTED_BY_CLIENT = "field_corrected_by_client", _("field corrected by the client")
        # The client restated a locked value: a producer accepts or rejects the change.
        LOCK_CHANGE_PROPOSED = "lock_change_proposed", _("the client proposes to change a lock")
        LOCK_CHANGE_ACCEPTED = "lock_change_accepted", _("proposed lock change accepted")
        LOCK_CHANGE_REJECTED = "lock_change_rejected", _("proposed lock change rejected")
        PRODUCER_TAKEOVER = "producer_takeover", _("taken over by the producer")
        PRODUCER_RELEASED = "producer_released", _("handed back to the agents")
        PRODUCER_MESSAGE = "producer_message", _("producer wrote to the client")
        TURN_WAITING = "turn_waiting", _("client message waits for the producer")
        PROJECT_PAUSED = "project_paused", _("briefing paused")
        PROJECT_RESUMED = "project_resumed", _("briefing resumed")
        CLIENT_LINK_ROTATED = "client_link_rotated", _("new client link made")
        CLIENT_LINK_REVOKED = "client_link_revoked", _("client link revoked")
        CLIENT_RATE_LIMITED = (
            "client_rate_limited",
            _("client messages refused over the rate limit"),
        )
        BRIEF_COMPLETED = "brief_completed", _("brief completed")
        # Model pools and the cost ledger (issue 13).
        TURN_CAPPED = "turn_capped", _("model calls capped for the turn")
        COST_BUDGET_EXCEEDED = "cost_budget_exceeded", _("model cost over the budget")
        STRONG_MODEL_SET = "strong_model_set", _("strong model switched")
        # The client wrote after completion: appended to the brief, the producer told.
        ADDITIONAL_REQUEST = "additional_request", _("the client asked for more after completion")
        # A stage agent's call of a studio tool (briefing.turn.tool_use): name, arguments, size.
        TOOL_CALLED = "tool_called", _("studio data looked up")
        # Level 1 found a request for a person or a complaint: the producer should answer.
        ATTENTION_REQUESTED = "attention_requested", _("the client asks for a person")
        # A holding reply not followed up within BRIEFING_HOLDING_FOLLOW_UP_S: the producer.
        FOLLOW_UP_REQUESTED = "follow_up_requested", _("holding reply not followed up in time")
        # A producer corrected what memory holds about the client (studio.memory): the fact's
        # kind, the old line and the new one (empty when removed).
        MEMORY_CORRECTED = "memory_corrected", _("client memory corrected")
        # A required field asked twice without an answer, or declined by the client: the
        # conversation goes on without it and the producer fills it (briefing.turn.field_states).
        FIELD_LEFT_FOR_PRODUCER = "field_left_for_producer", _("field left for the producer")
        # The reply to a question asked twice, taken as its answer: the producer checks it.
        FIELD_TO_CHECK = "field_to_check", _("field to check")
        # The brief read back to the client by code before completion (`given`: 1, or 2
        # after a correction), whichever agent holds the conversation.
        READ_BACK = "read_back", _("the brief read back to the client")
        # Archived instead of deleted (briefing.upkeep.retention); who did it is the actor.
        PROJECT_ARCHIVED = "project_archived", _("briefing archived")
        # The client was forgotten: their data erased from this briefing, its dead letters
        # and calls; the data holds only how many rows were erased.
        CLIENT_FORGOTTEN = "client_forgotten", _("the client's data erased")
        # The inbox's producer actions (briefing.services): who it is assigned to (old and new
        # producer), resolved and reopened, snoozed (until when) and woken, marked unread, and
        # a staff-only note added (its id only: the text never leaves the producer's page).
        PRODUCER_ASSIGNED = "producer_assigned", _("producer assigned")
        BRIEFING_RESOLVED = "briefing_resolved", _("conversation resolved")
        BRIEFING_REOPENED = "briefing_reopened", _("conversation reopened")
        BRIEFING_SNOOZED = "briefing_snoozed", _("conversation snoozed")
        BRIEFING_WOKEN = "briefing_woken", _("snooze ended by the producer")
        MARKED_UNREAD = "marked_unread", _("marked unread")
        NOTE_ADDED = "note_added", _("internal note added")

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="events", verbose_name=_("briefing")
    )
    turn = models.ForeignKey(Turn, on_delete=models.SET_NULL, null=True, blank=True)
    kind = models.CharField(_("kind"), max_length=40, choices=Kind.choices, db_index=True)
    stage_key = models.CharField(_("stage"), max_length=40, blank=True)
    data = models.JSONField(default=dict, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        verbose_name=_("who"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("briefing event")
        verbose_name_plural = _("briefing events")
        ordering = ["project", "id"]
        # One briefing's events newest first (its last activity, the page) without a scan.
        indexes = [models.Index(fields=["project", "id"], name="briefing_event_project_id")]

    def __str__(self) -> str:
        return f"{self.project_id} {self.kind}"


class RevokedClientLink(models.Model):
    """A client link that was rotated or revoked, kept so the client who opens it learns the
    link is gone (410, in the briefing's language) instead of a bare 404."""

    token = models.CharField(_("token"), max_length=64, unique=True)
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="+", verbose_name=_("briefing")
    )
    revoked_at = models.DateTimeField(_("revoked"), auto_now_add=True)

    class Meta:
        verbose_name = _("revoked client link")
        verbose_name_plural = _("revoked client links")

    def __str__(self) -> str:
        return f"{self.project_id} link revoked {self.revoked_at:%Y-%m-%d}"


class StaffProfile(models.Model):
    """What the back office remembers of one of its users: the language they chose, which
    wins over the browser's on any device they log in from."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="staff_profile",
        verbose_name=_("user"),
    )
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, blank=True)

    class Meta:
        verbose_name = _("staff profile")
        verbose_name_plural = _("staff profiles")

    def __str__(self) -> str:
        return f"{self.user_id} {self.language or '-'}"


class BriefingNote(models.Model):
    """A note on a briefing for the staff only: shown on the producer's page, never to the
    client, in an export, a brief, a webhook or the API."""

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="notes", verbose_name=_("briefing")
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        verbose_name=_("author"),
    )
    text = models.TextField()
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("briefing note")
        verbose_name_plural = _("briefing notes")
        ordering = ["project", "id"]

    def __str__(self) -> str:
        return f"{self.project_id} note {self.pk}"


class CannedReply(models.Model):
    """A ready answer the studio's producers insert into a message to a client: shared by the
    studio, written in one language (a briefing offers those of its client's language)."""

    title = models.CharField(_("title"), max_length=120)
    language = models.CharField(_("language"), max_length=8, choices=LANGUAGE_CHOICES)
    text = models.TextField(
        _("text"),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("canned reply")
        verbose_name_plural = _("canned replies")
        ordering = ["language", "title", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["language", "title"], name="canned_reply_one_title_per_language"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.language}: {self.title}"


class CannedReplyChange(models.Model):
    """The audit trail of the canned replies: who added, edited or removed one, when, and
    its old and new content (kept after the reply itself is removed)."""

    class Kind(models.TextChoices):
        ADDED = "added", _("added")
        EDITED = "edited", _("edited")
        REMOVED = "removed", _("removed")

    reply = models.ForeignKey(
        CannedReply,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="changes",
        verbose_name=_("canned reply"),
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        verbose_name=_("who"),
    )
    old = models.JSONField(null=True, blank=True)
    new = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("canned reply change")
        verbose_name_plural = _("canned reply changes")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"canned reply {self.reply_id} {self.kind}"
