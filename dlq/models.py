"""Dead letters (model answers that stayed broken after the retry) and the record of every
structured call, from which the share of successful parses is measured."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class StructuredCall(models.Model):
    """One call of the structured-output engine, successful or not."""

    class Outcome(models.TextChoices):
        FAST = "fast", _("fast path")
        EXTRACTED = "extracted", _("after extraction")
        REPAIRED = "repaired", _("after repair")
        COERCED = "coerced", _("after coercion")
        FAILED = "failed", _("dead-lettered")

    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    schema_name = models.CharField(_("schema"), max_length=100, db_index=True)
    provider = models.CharField(_("provider"), max_length=50, blank=True, db_index=True)
    model = models.CharField(_("model"), max_length=200, blank=True)
    # Every provider that answered, in order (more than one when the retry failed over).
    providers = models.JSONField(_("providers tried"), default=list, blank=True)
    outcome = models.CharField(_("outcome"), max_length=12, choices=Outcome.choices, db_index=True)
    retry_used = models.BooleanField(_("retried"), default=False)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=1)
    latency_ms = models.PositiveIntegerField(_("latency, ms"), default=0)
    prompt_tokens = models.PositiveIntegerField(_("input tokens"), default=0)
    cached_tokens = models.PositiveIntegerField(_("cached tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(_("answer tokens"), default=0)
    # Our own estimate of the prompt (llmkit.prompt.estimate_tokens) and of its cacheable
    # prefix, comparable across providers, including the rules agent that reports none.
    prompt_tokens_estimate = models.PositiveIntegerField(_("input tokens (estimate)"), default=0)
    cacheable_tokens_estimate = models.PositiveIntegerField(
        _("cacheable tokens (estimate)"), default=0
    )
    coercions = models.JSONField(_("values corrected"), default=list, blank=True)
    # What the model saw and said, per attempt: the per-turn detail a producer opens.
    prompt_messages = models.JSONField(_("prompt messages"), default=list, blank=True)
    raw_responses = models.JSONField(_("model's answers"), default=list, blank=True)
    source_kind = models.CharField(_("source kind"), max_length=40, blank=True)
    source_id = models.CharField(_("source ID"), max_length=64, blank=True)
    # The cost ledger: the pool that served the call (empty with one chain, LLM_PROVIDERS),
    # the conversation it belongs to ("briefing:<id>": GigaChat's X-Session-ID and the
    # briefing's total), and its money at the price table's rates when it was made.
    pool = models.CharField(_("model pool"), max_length=40, blank=True, db_index=True)
    session = models.CharField(_("session"), max_length=64, blank=True, db_index=True)
    cost = models.DecimalField(_("cost"), max_digits=14, decimal_places=6, default=0)
    # True when the provider reported no prompt tokens and the cost used our estimate.
    cost_estimated = models.BooleanField(_("cost estimated"), default=False)
    # Folded into CallRollup (dlq.rollups): set in the fold's own transaction, so a call is
    # counted once, and a folded call may be deleted without changing the figures.
    rolled_up = models.BooleanField(_("in the totals"), default=False)

    class Meta:
        verbose_name = _("model call")
        verbose_name_plural = _("model calls")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["source_kind", "source_id"]),
            # The calls not yet folded: a few minutes' worth, read by the fold and the figures.
            models.Index(
                fields=["created_at", "id"],
                condition=models.Q(rolled_up=False),
                name="structured_call_unfolded",
            ),
            # The nightly prune of prompts and answers: only calls that still hold them.
            models.Index(
                fields=["created_at"],
                condition=~models.Q(outcome="failed")
                & ~models.Q(prompt_messages=[], raw_responses=[]),
                name="structured_call_details_kept",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(attempts__gte=1, attempts__lte=2),
                name="structured_call_at_most_one_retry",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.schema_name} via {self.provider or '-'}: {self.get_outcome_display()}"


class DeadLetter(models.Model):
    """A structured answer that stayed invalid after the one retry, kept whole for review."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        FIXED = "fixed", _("Fixed")
        REPLAYED = "replayed", _("Replayed")
        DISCARDED = "discarded", _("Discarded")

    call = models.OneToOneField(
        StructuredCall,
        on_delete=models.PROTECT,
        related_name="dead_letter",
        null=True,
        verbose_name=_("model call"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    source_kind = models.CharField(_("source kind"), max_length=40, blank=True, db_index=True)
    source_id = models.CharField(_("source ID"), max_length=64, blank=True)
    schema_name = models.CharField(_("schema"), max_length=100, db_index=True)
    provider = models.CharField(_("provider"), max_length=50, blank=True, db_index=True)
    model = models.CharField(_("model"), max_length=200, blank=True)
    # The text the client (or the mail) wrote; the prompts of each attempt are kept apart.
    raw_input = models.TextField(_("input"), blank=True)
    prompt_messages = models.JSONField(_("prompt messages"), default=list, blank=True)
    raw_responses = models.JSONField(_("model's answers"), default=list, blank=True)
    errors = models.JSONField(_("errors"), default=list)
    error_signature = models.CharField(_("error"), max_length=200, db_index=True)
    usage = models.JSONField(_("token usage"), default=dict, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Why it was resolved (the reason given for a discard), with resolved_by/at its record.
    resolution_note = models.TextField(blank=True)
    # Set while a replay is queued or running; a replay that failed again made a new letter
    # that points back here.
    replay_requested_at = models.DateTimeField(_("replay requested"), null=True, blank=True)
    replay_of = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="replays",
        verbose_name=_("replay of"),
    )

    class Meta:
        verbose_name = _("dead letter")
        verbose_name_plural = _("dead letters")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["source_kind", "source_id"]),
            # The review's groups of open letters (count, schemas, providers, newest, trend)
            # read from this index alone, never from the rows: 50,000 open letters in ~7 ms.
            models.Index(
                fields=["error_signature", "schema_name", "provider", "created_at"],
                condition=models.Q(status="open"),
                name="dead_letter_open_groups",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status="open", resolved_at__isnull=True)
                | (~models.Q(status="open") & models.Q(resolved_at__isnull=False)),
                name="dead_letter_resolved_iff_not_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.schema_name}: {self.error_signature} ({self.status})"


class DeadLetterAction(models.Model):
    """The audit trail of a dead letter: every action a manager took on it, and what a
    replay came back with."""

    class Kind(models.TextChoices):
        FIXED = "fixed", _("fixed")
        DISCARDED = "discarded", _("discarded")
        REPLAY_REQUESTED = "replay_requested", _("replay requested")
        REPLAYED = "replayed", _("replayed")
        REPLAY_REFUSED = "replay_refused", _("replay refused")
        HELP_REQUESTED = "help_requested", _("a producer asked a manager to fix it")

    dead_letter = models.ForeignKey(
        DeadLetter, on_delete=models.CASCADE, related_name="actions", verbose_name=_("dead letter")
    )
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    at = models.DateTimeField(_("when"), auto_now_add=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("user"),
    )
    note = models.TextField(_("note"), blank=True)
    data = models.JSONField(_("details"), default=dict, blank=True)

    class Meta:
        verbose_name = _("dead letter action")
        verbose_name_plural = _("dead letter actions")
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.dead_letter_id}: {self.kind}"


class ModelPrice(models.Model):
    """What one provider's model costs, per million tokens, as an administrator set it.

    `provider` is the name a call records (a pool member such as "gigachat-max", or
    "openai"); an empty `model` prices every model of that provider that has no row of its
    own. Cached prompt tokens are priced apart: providers bill them at a discount."""

    provider = models.CharField(_("provider"), max_length=50)
    model = models.CharField(_("model"), max_length=200, blank=True)
    currency = models.CharField(_("currency"), max_length=3, default="RUB")
    prompt_per_million = models.DecimalField(
        _("input tokens, per million"), max_digits=12, decimal_places=4, default=0
    )
    cached_per_million = models.DecimalField(
        _("cached tokens, per million"), max_digits=12, decimal_places=4, default=0
    )
    completion_per_million = models.DecimalField(
        _("answer tokens, per million"), max_digits=12, decimal_places=4, default=0
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("model price")
        verbose_name_plural = _("model prices")
        ordering = ["provider", "model"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "model"], name="model_price_unique"),
            models.CheckConstraint(
                condition=models.Q(
                    prompt_per_million__gte=0,
                    cached_per_million__gte=0,
                    completion_per_million__gte=0,
                ),
                name="model_price_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.model or '(any model)'}"


class ClassifierDisagreement(models.Model):
    """A client message on which level 1's model and the shipped classifier disagreed:
    where the learned model is weak, for managers to review (and to retrain on)."""

    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    call = models.ForeignKey(
        StructuredCall,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        verbose_name=_("model call"),
    )
    source_kind = models.CharField(_("source kind"), max_length=40, blank=True)
    source_id = models.CharField(_("source ID"), max_length=64, blank=True)
    text = models.TextField(
        _("text"),
    )
    # The contract's fields that differ ("intent", "risk", "language", "complexity").
    fields = models.JSONField(_("fields"), default=list)
    model_verdict = models.JSONField(_("model's verdict"), default=dict)
    classifier_verdict = models.JSONField(_("classifier's verdict"), default=dict)

    class Meta:
        verbose_name = _("classifier disagreement")
        verbose_name_plural = _("classifier disagreements")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.source_kind} {self.source_id}: {', '.join(self.fields)}"


class CallRollup(models.Model):
    """The structured calls of one local day (or one hour) with one schema, provider, pool
    and outcome, summed: what the parse-quality figures, the digest and the cost ledger's
    sums are read from, so a page costs the same at a million calls as at a thousand.

    Folded in by dlq.rollups.call_rollups_fold; the latencies' histograms are CallLatency's,
    by schema and provider only: a few rows a day to merge instead of every cell's."""

    class Grain(models.TextChoices):
        DAY = "day"
        HOUR = "hour"

    grain = models.CharField(_("period"), max_length=4, choices=Grain.choices)
    # Local midnight of the day, or the start of the hour.
    start = models.DateTimeField(
        _("from"),
    )
    schema_name = models.CharField(_("schema"), max_length=100)
    provider = models.CharField(_("provider"), max_length=50, blank=True)
    pool = models.CharField(_("model pool"), max_length=40, blank=True)
    outcome = models.CharField(_("outcome"), max_length=12, choices=StructuredCall.Outcome.choices)
    calls = models.PositiveIntegerField(_("calls"), default=0)
    retried = models.PositiveIntegerField(default=0)
    failovers = models.PositiveIntegerField(default=0)
    latency_ms_sum = models.BigIntegerField(default=0)
    prompt_tokens = models.BigIntegerField(default=0)
    cached_tokens = models.BigIntegerField(default=0)
    completion_tokens = models.BigIntegerField(default=0)
    # Our estimates, summed over the calls that have one (prompt estimate > 0).
    prompt_tokens_estimate = models.BigIntegerField(default=0)
    cacheable_tokens_estimate = models.BigIntegerField(default=0)
    cost = models.DecimalField(max_digits=20, decimal_places=6, default=0)
    cost_estimated = models.PositiveIntegerField(default=0)
    # Client turns first seen in this day and pool (the ledger's "turns served").
    turns = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("call rollup")
        verbose_name_plural = _("call rollups")
        constraints = [
            models.UniqueConstraint(
                fields=["grain", "start", "schema_name", "provider", "pool", "outcome"],
                name="call_rollup_unique_cell",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.grain} {self.start:%Y-%m-%d %H:%M} {self.schema_name}: {self.calls}"


class CallLatency(models.Model):
    """The latencies of one local day's (or hour's) calls with one schema and provider, as
    a histogram: bucket → [count, smallest, largest ms] (see dlq.rollups.latency_bucket for
    its precision). Each call also counts in the cells of schema "*", provider "*" and both
    (dlq.rollups.ANY), so a range's percentiles read one row a day, filtered or not."""

    grain = models.CharField(_("period"), max_length=4, choices=CallRollup.Grain.choices)
    start = models.DateTimeField(
        _("from"),
    )
    schema_name = models.CharField(_("schema"), max_length=100)
    provider = models.CharField(_("provider"), max_length=50, blank=True)
    histogram = models.JSONField(default=dict)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("call latency")
        verbose_name_plural = _("call latencies")
        constraints = [
            models.UniqueConstraint(
                fields=["grain", "start", "schema_name", "provider"],
                name="call_latency_unique_cell",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.grain} {self.start:%Y-%m-%d %H:%M} {self.schema_name} {self.provider}"
