"""Admin of webhooks: subscriptions are set up here; deliveries and their attempts are the
delivery log, read (never edited) and sent again through webhooks.services."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from core.admin_mixins import NoEditMixin
from core.errors import ApplicationError
from webhooks.models import (
    EVENT_KINDS,
    WebhookAttempt,
    WebhookDelivery,
    WebhookSubscription,
    webhook_secret_new,
)
from webhooks.services import webhook_redeliver


class WebhookSubscriptionForm(forms.ModelForm):
    url = forms.URLField(max_length=500, assume_scheme="https")
    event_kinds = forms.MultipleChoiceField(
        choices=[(kind, kind) for kind in EVENT_KINDS], widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = WebhookSubscription
        fields = ("name", "url", "event_kinds", "secret", "active")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "secret" in self.fields:
            self.fields["secret"].required = False
            self.fields["secret"].help_text = "Left blank, a random secret is generated."

    def clean_secret(self) -> str:
        return self.cleaned_data.get("secret") or webhook_secret_new()


@admin.register(WebhookSubscription)
class WebhookSubscriptionAdmin(admin.ModelAdmin):
    form = WebhookSubscriptionForm
    list_display = ("name", "url", "kinds", "active", "created_at")
    list_filter = ("active",)
    search_fields = ("name", "url")

    def get_readonly_fields(self, request, obj=None):
        # The secret is shown once, on the page that creates it; after that only its end.
        return ("secret_hint", "created_at") if obj else ()

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("name", "url", "event_kinds", "secret", "active")
        return ("name", "url", "event_kinds", "active", "secret_hint", "created_at")

    @admin.display(description="event kinds")
    def kinds(self, obj: WebhookSubscription) -> str:
        return ", ".join(obj.event_kinds)

    @admin.display(description="secret")
    def secret_hint(self, obj: WebhookSubscription) -> str:
        return f"…{obj.secret[-4:]}"

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if not change:
            messages.info(
                request,
                f"The secret of {obj} is {obj.secret} — give it to the receiver now: it is not "
                f"shown again.",
            )


class WebhookAttemptInline(NoEditMixin, admin.TabularInline):
    """The delivery log, read-only."""

    model = WebhookAttempt
    extra = 0
    can_delete = False
    fields = readonly_fields = ("at", "status_code", "error", "duration_ms")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(NoEditMixin, admin.ModelAdmin):
    inlines = [WebhookAttemptInline]
    list_display = (
        "created_at", "kind", "subscription", "event_id", "status", "attempts",
        "last_status_code", "next_attempt_at", "delivered_at",
    )  # fmt: skip
    list_filter = ("status", "kind", "subscription")
    search_fields = ("event_id", "last_error")
    date_hierarchy = "created_at"
    list_select_related = ("subscription",)
    readonly_fields = (
        "subscription", "event_id", "kind", "payload", "status", "attempts",
        "last_status_code", "last_error", "next_attempt_at", "claimed_at", "delivered_at",
        "created_at", "redelivered_by", "redelivered_at",
    )  # fmt: skip
    actions = ["deliver_again"]

    def has_redeliver_permission(self, request) -> bool:
        # Who may change a delivery may send it again: through its service (which says who).
        return admin.ModelAdmin.has_change_permission(self, request)

    @admin.action(description="Deliver again", permissions=["redeliver"])
    def deliver_again(self, request, queryset) -> None:
        queued, refused = 0, []
        for delivery in queryset:
            try:
                webhook_redeliver(delivery=delivery, user=request.user)
            except ApplicationError as error:
                refused.append(f"{delivery.pk}: {error.message}")
            else:
                queued += 1
        if queued:
            messages.success(request, f"{queued} deliveries queued to be sent again.")
        for note in refused:
            messages.warning(request, note)


@admin.register(WebhookAttempt)
class WebhookAttemptAdmin(NoEditMixin, admin.ModelAdmin):
    """Every attempt across all deliveries; nothing here is edited."""

    list_display = ("at", "delivery", "status_code", "error", "duration_ms")
    list_filter = ("status_code",)
    search_fields = ("error", "delivery__event_id")
    date_hierarchy = "at"
    list_select_related = ("delivery__subscription",)
    readonly_fields = ("delivery", "at", "status_code", "error", "duration_ms")
