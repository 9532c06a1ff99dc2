"""The dlq app's admin: the calls, dead letters and their actions are shown, never edited
(a dead letter is fixed, replayed or discarded on its review page, which records the action
and keeps the briefings' inbox counts right); the price table is edited here."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from core.admin_mixins import (
    BackOfficeLinkMixin,
    NoEditMixin,
    ReadOnlyMixin,
    labelled_column,
    labelled_filter,
)
from dlq.error_labels import error_kind_label, signature_kind
from dlq.models import (
    CallLatency,
    CallRollup,
    ClassifierDisagreement,
    DeadLetter,
    DeadLetterAction,
    ModelPrice,
    StructuredCall,
)
from dlq.sources import dead_letter_kind_label

# Source kinds under the names the dead letters' review shows them by.
source_column = labelled_column("source_kind", _("source kind"), dead_letter_kind_label)
source_filter = labelled_filter("source_kind", _("source kind"), dead_letter_kind_label)


@admin.display(description=_("error"), ordering="error_signature")
def error(letter) -> str:
    """The error's kind in words, with its signature quoted as the review quotes it."""
    kind = error_kind_label(signature_kind(letter.error_signature))
    return format_html("{} <code>{}</code>", kind, letter.error_signature)


DEAD_LETTER_PAGE_TEXT = _(
    "The dead letter's review page: it is fixed, replayed or discarded there, with a record"
)


class DeadLetterPageLinkMixin(BackOfficeLinkMixin):
    back_office_text = DEAD_LETTER_PAGE_TEXT

    def dead_letter_id(self, obj) -> int:
        return obj.pk

    def back_office_url(self, obj) -> str:
        return reverse("dlq:dead_letter_detail", args=[self.dead_letter_id(obj)])


@admin.register(StructuredCall)
class StructuredCallAdmin(NoEditMixin, admin.ModelAdmin):
    """The cost ledger and the parse-quality figures' source: recorded per call, not edited."""

    list_display = (
        "created_at", "schema_name", "provider", "model", "outcome", "retry_used",
        "latency_ms", "prompt_tokens", "cached_tokens", "completion_tokens", "cost", "pool",
        source_column,
    )  # fmt: skip
    list_filter = ("outcome", "retry_used", "schema_name", "provider", "pool")
    search_fields = ("schema_name", "provider", "model", "source_id", "session")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in StructuredCall._meta.fields]


class DeadLetterActionInline(NoEditMixin, admin.TabularInline):
    """The audit trail, read-only: actions are taken on the review pages, never edited."""

    model = DeadLetterAction
    extra = 0
    can_delete = False
    readonly_fields = ("at", "kind", "user", "note", "data")


@admin.register(DeadLetter)
class DeadLetterAdmin(DeadLetterPageLinkMixin, ReadOnlyMixin, admin.ModelAdmin):
    """Shown here; its status moves on the review page only (an action says who and why)."""

    inlines = [DeadLetterActionInline]
    list_display = (
        "created_at", "schema_name", error, "provider", source_column, "source_id", "status",
    )  # fmt: skip
    list_filter = ("status", "schema_name", "provider", source_filter)
    search_fields = ("raw_input", "error_signature", "source_id")
    date_hierarchy = "created_at"
    readonly_fields = (
        "call", "created_at", "source_kind", "source_id", "schema_name", "provider", "model",
        "raw_input", "prompt_messages", "raw_responses", "errors", "error_signature", "usage",
        "replay_of", "replay_requested_at",
    )  # fmt: skip


@admin.register(DeadLetterAction)
class DeadLetterActionAdmin(DeadLetterPageLinkMixin, ReadOnlyMixin, admin.ModelAdmin):
    """The audit trail across all dead letters; nothing here is edited."""

    list_display = ("at", "dead_letter", "kind", "user", "note")
    list_filter = ("kind",)
    search_fields = ("note", "dead_letter__error_signature")
    date_hierarchy = "at"
    readonly_fields = ("dead_letter", "kind", "at", "user", "note", "data")

    def dead_letter_id(self, obj: DeadLetterAction) -> int:
        return obj.dead_letter_id


@admin.register(ModelPrice)
class ModelPriceAdmin(admin.ModelAdmin):
    """The cost ledger's price table, per provider (as calls record it: a pool member such
    as "gigachat-max") and model; a call is priced when it is made, so a change here prices
    the calls from now on and leaves the ledger's history as it was."""

    list_display = (
        "provider", "model", "currency", "prompt_per_million", "cached_per_million",
        "completion_per_million", "updated_at",
    )  # fmt: skip
    list_filter = ("provider", "currency")
    search_fields = ("provider", "model")


@admin.register(ClassifierDisagreement)
class ClassifierDisagreementAdmin(NoEditMixin, admin.ModelAdmin):
    """Messages on which level 1's model and the shipped classifier disagreed (read-only)."""

    list_display = ("created_at", source_column, "source_id", "fields", "text")
    search_fields = ("text", "source_id")
    date_hierarchy = "created_at"
    readonly_fields = (
        "created_at", "call", "source_kind", "source_id", "text", "fields", "model_verdict",
        "classifier_verdict",
    )  # fmt: skip


class _ReadOnlyAdmin(NoEditMixin, admin.ModelAdmin):
    """Figures folded by code from the recorded calls: looked at, never edited by hand."""


@admin.register(CallRollup)
class CallRollupAdmin(_ReadOnlyAdmin):
    """Per-day and per-hour totals of the model calls, which the quality figures read."""

    list_display = ("grain", "start", "schema_name", "provider", "pool", "outcome", "calls")
    list_filter = ("grain", "outcome", "provider", "pool")
    date_hierarchy = "start"


@admin.register(CallLatency)
class CallLatencyAdmin(_ReadOnlyAdmin):
    """The latency histograms the percentiles are read from."""

    list_display = ("grain", "start", "schema_name", "provider", "updated_at")
    list_filter = ("grain", "provider")
    date_hierarchy = "start"
