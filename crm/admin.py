"""The CRM's admin: leads and inbound messages as the services wrote them (shown, never
edited here: a lead's every value says where it came from), and the lead types' catalogues
(intents and products with their words), which administrators edit."""

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from core.admin_mixins import BackOfficeLinkMixin, NoEditMixin, code_shown, labelled_filter
from crm.models import (
    InboundMessage,
    Lead,
    LeadContact,
    LeadIntent,
    LeadProduct,
    LeadType,
    MailboxAttempt,
    MailboxPoll,
)
from crm.selectors import lead_catalogue, lead_labels
from crm.services import lead_type_touch


@admin.display(description=_("code"), ordering="code")
def code(obj) -> str:
    return code_shown(obj.code)


def _lead_type_name(code: str) -> str:
    return next((str(row) for row in LeadType.objects.filter(code=code)), code)


LeadTypeFilter = labelled_filter("lead_type", _("lead type"), _lead_type_name)
# Today's catalogue's labels (the lead's own page shows each lead's under its own type's).
IntentFilter = labelled_filter(
    "client_intent", _("intent"), lambda c: lead_catalogue().intent_label(c)
)
ProductFilter = labelled_filter(
    "product_class", _("product"), lambda c: lead_catalogue().product_label(c)
)


class LeadIntentFormSet(BaseInlineFormSet):
    """A lead type reads every message into one of its intents: exactly one is the
    fallback (the database allows at most one; at least one is checked here)."""

    def clean(self) -> None:
        super().clean()
        kept = [
            form.cleaned_data
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE")
        ]
        if not kept:
            raise ValidationError("A lead type needs at least one intent.")
        if sum(1 for data in kept if data.get("fallback")) != 1:
            raise ValidationError(
                "Mark exactly one intent as the fallback (read when nothing else is)."
            )


class LeadIntentInline(admin.StackedInline):
    model = LeadIntent
    formset = LeadIntentFormSet
    extra = 0
    fields = (
        ("code", "label", "position"), "description", ("words_ru", "words_uk", "words_en"),
        ("fallback", "product_only", "reads_product", "is_request"),
    )  # fmt: skip


class LeadProductInline(admin.StackedInline):
    model = LeadProduct
    extra = 0
    fields = (("code", "label", "position"), "description", ("words_ru", "words_uk", "words_en"))


@admin.register(LeadType)
class LeadTypeAdmin(admin.ModelAdmin):
    """A business's catalogue; CRM_LEAD_TYPE names the one cards are read with."""

    # The business is the model's prompt, in its language: read on the change page.
    list_display = (code, "__str__", "updated_at")
    search_fields = ("code", "name")
    inlines = [LeadIntentInline, LeadProductInline]

    def save_related(self, request, form, formsets, change) -> None:
        super().save_related(request, form, formsets, change)
        # After the intents and products: readers renew their copy when the type moves.
        lead_type_touch(lead_type=form.instance)


class LeadContactInline(NoEditMixin, admin.TabularInline):
    model = LeadContact
    extra = 0


class InboundMessageInline(NoEditMixin, admin.TabularInline):
    model = InboundMessage
    fields = ("received_at", "channel", "sender", "subject", "status")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


class LeadTermAdmin(admin.ModelAdmin):
    """One intent or product on its own (usually edited among its type's, on the type's
    page); a change moves its type, so readers renew their copy."""

    # The description is the model's prompt, in its language: read on the change page.
    list_display = ("lead_type", "position", code, "__str__")
    list_filter = ("lead_type",)
    search_fields = ("code", "label", "words_ru", "words_uk", "words_en")
    list_select_related = ("lead_type",)

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        lead_type_touch(lead_type=obj.lead_type)

    def delete_model(self, request, obj) -> None:
        super().delete_model(request, obj)
        lead_type_touch(lead_type=obj.lead_type)

    def delete_queryset(self, request, queryset) -> None:
        types = {term.lead_type for term in queryset.select_related("lead_type")}
        super().delete_queryset(request, queryset)
        for lead_type in types:
            lead_type_touch(lead_type=lead_type)


@admin.register(LeadIntent)
class LeadIntentAdmin(LeadTermAdmin):
    list_display = (
        *LeadTermAdmin.list_display,
        "fallback",
        "product_only",
        "reads_product",
        "is_request",
    )


@admin.register(LeadProduct)
class LeadProductAdmin(LeadTermAdmin):
    pass


@admin.register(Lead)
class LeadAdmin(BackOfficeLinkMixin, NoEditMixin, admin.ModelAdmin):
    """A card as the reading (or a manager's form) made it, each value with its evidence."""

    back_office_text = _("The lead's page")
    list_display = (
        "last_message_at", "client_name", "intent", "product", "budget_amount",
        "budget_currency", "urgency_days", "needs_call_back", "channel", "status",
    )  # fmt: skip
    list_filter = (
        "status", LeadTypeFilter, IntentFilter, ProductFilter, "needs_call_back", "channel",
    )  # fmt: skip
    search_fields = ("client_name", "summary", "contacts__value")
    date_hierarchy = "last_message_at"
    inlines = [LeadContactInline, InboundMessageInline]
    raw_id_fields = ("project", "created_by")

    def back_office_url(self, obj: Lead) -> str:
        return reverse("crm:lead_detail", args=[obj.pk])

    def get_changelist_instance(self, request):
        changelist = super().get_changelist_instance(request)
        # One catalogue read for the page rather than one a row.
        lead_labels(list(changelist.result_list))
        return changelist

    @admin.display(description=_("intent"), ordering="client_intent")
    def intent(self, obj: Lead) -> str:
        return getattr(obj, "intent_label", None) or lead_labels([obj])[0].intent_label

    @admin.display(description=_("product"), ordering="product_class")
    def product(self, obj: Lead) -> str:
        if not hasattr(obj, "product_label"):
            lead_labels([obj])
        return obj.product_label or "—"


@admin.register(InboundMessage)
class InboundMessageAdmin(BackOfficeLinkMixin, NoEditMixin, admin.ModelAdmin):
    back_office_text = _("The message's page")

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

    def back_office_url(self, obj: InboundMessage) -> str:
        return reverse("crm:message_detail", args=[obj.pk])


@admin.register(LeadContact)
class LeadContactAdmin(NoEditMixin, admin.ModelAdmin):
    """A lead's phones and e-mails, as its messages gave them (new messages find the lead by
    them): not edited here."""

    list_display = ("value", "kind", "lead")
    list_filter = ("kind",)
    search_fields = ("value",)
    raw_id_fields = ("lead",)


@admin.register(MailboxPoll)
class MailboxPollAdmin(NoEditMixin, admin.ModelAdmin):
    """The IMAP poll's lock of each mailbox, to look at: a claim of a poll that died lapses
    by itself (crm.mailbox_poll)."""

    list_display = ("mailbox", "status", "claimed_at")
    search_fields = ("mailbox",)
    readonly_fields = list_display


@admin.register(MailboxAttempt)
class MailboxAttemptAdmin(NoEditMixin, admin.ModelAdmin):
    """Mails of a mailbox whose storing failed and will be tried again (deleting a row starts
    its count afresh)."""

    list_display = ("mailbox", "raw_sha256", "attempts", "last_error", "first_at")
    search_fields = ("mailbox", "raw_sha256", "last_error")
    readonly_fields = list_display
