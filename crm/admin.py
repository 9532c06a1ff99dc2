from django.contrib import admin

from crm.models import InboundMessage, Lead, LeadContact


class LeadContactInline(admin.TabularInline):
    model = LeadContact
    extra = 0


class InboundMessageInline(admin.TabularInline):
    model = InboundMessage
    fields = ("received_at", "channel", "sender", "subject", "status")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Lead)
class LeadAdmin(admin.ModelAdmin):
    list_display = (
        "last_message_at", "client_name", "client_intent", "product_class", "budget_rub",
        "urgency_days", "needs_call_back", "channel", "status",
    )  # fmt: skip
    list_filter = ("status", "client_intent", "needs_call_back", "channel")
    search_fields = ("client_name", "summary", "contacts__value")
    date_hierarchy = "last_message_at"
    inlines = [LeadContactInline, InboundMessageInline]
    raw_id_fields = ("project", "created_by")


@admin.register(InboundMessage)
class InboundMessageAdmin(admin.ModelAdmin):
    list_display = ("received_at", "channel", "source", "sender", "subject", "status", "lead")
    list_filter = ("status", "channel")
    search_fields = ("sender", "subject", "body_text", "external_id")
    date_hierarchy = "received_at"
    # Messages are stored as they came: the record of what arrived is not edited here.
    readonly_fields = (
        "created_at", "received_at", "channel", "source", "external_id", "sender",
        "sender_name", "subject", "body_text", "body_source", "attachments", "extra",
        "charset_notes", "content_hash", "claimed_at", "processed_at", "model_input_note",
        "extracted",
    )  # fmt: skip
    exclude = ("raw",)
    raw_id_fields = ("lead",)


@admin.register(LeadContact)
class LeadContactAdmin(admin.ModelAdmin):
    list_display = ("value", "kind", "lead")
    list_filter = ("kind",)
    search_fields = ("value",)
    raw_id_fields = ("lead",)
