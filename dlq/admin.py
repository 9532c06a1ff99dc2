from django.contrib import admin

from dlq.models import DeadLetter, DeadLetterAction, StructuredCall


@admin.register(StructuredCall)
class StructuredCallAdmin(admin.ModelAdmin):
    list_display = (
        "created_at", "schema_name", "provider", "model", "outcome", "retry_used",
        "latency_ms", "prompt_tokens", "cached_tokens", "completion_tokens", "source_kind",
    )  # fmt: skip
    list_filter = ("outcome", "retry_used", "schema_name", "provider")
    search_fields = ("schema_name", "provider", "model", "source_id")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in StructuredCall._meta.fields]


class DeadLetterActionInline(admin.TabularInline):
    """The audit trail, read-only: actions are taken on the review pages, never edited."""

    model = DeadLetterAction
    extra = 0
    can_delete = False
    readonly_fields = ("at", "kind", "user", "note", "data")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(DeadLetter)
class DeadLetterAdmin(admin.ModelAdmin):
    inlines = [DeadLetterActionInline]
    list_display = (
        "created_at", "schema_name", "error_signature", "provider", "source_kind", "source_id",
        "status",
    )  # fmt: skip
    list_filter = ("status", "schema_name", "provider", "source_kind")
    search_fields = ("raw_input", "error_signature", "source_id")
    date_hierarchy = "created_at"
    readonly_fields = (
        "call", "created_at", "source_kind", "source_id", "schema_name", "provider", "model",
        "raw_input", "prompt_messages", "raw_responses", "errors", "error_signature", "usage",
        "replay_of", "replay_requested_at",
    )  # fmt: skip


@admin.register(DeadLetterAction)
class DeadLetterActionAdmin(admin.ModelAdmin):
    """The audit trail across all dead letters; nothing here is edited."""

    list_display = ("at", "dead_letter", "kind", "user", "note")
    list_filter = ("kind",)
    search_fields = ("note", "dead_letter__error_signature")
    date_hierarchy = "at"
    readonly_fields = ("dead_letter", "kind", "at", "user", "note", "data")

    def has_add_permission(self, request) -> bool:
        return False
