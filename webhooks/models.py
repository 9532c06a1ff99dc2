"""Webhook subscriptions, the deliveries of each event to each of them, and every attempt."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from webhooks.targets import validate_webhook_target

# The domain events a subscription can ask for.
EVENT_KINDS = ("brief.completed", "lead.created", "dead_letter.created")


def webhook_secret_new() -> str:
    return secrets.token_urlsafe(32)


def validate_event_kinds(value: object) -> None:
    if not isinstance(value, list) or not value:
        raise ValidationError("choose at least one event kind")
    unknown = [kind for kind in value if kind not in EVENT_KINDS]
    if unknown:
        raise ValidationError(
            f"unknown event kind(s): {', '.join(map(str, unknown))}; known: "
            f"{', '.join(EVENT_KINDS)}"
        )


class WebhookSubscription(models.Model):
    """An endpoint that receives the chosen kinds of events, signed with its own secret."""

    name = models.CharField(_("name"), max_length=200)
    # Never into the platform's own network, unless the host is allowed by name (targets.py).
    url = models.URLField(
        _("URL"),
        max_length=500,
        validators=[URLValidator(schemes=["http", "https"]), validate_webhook_target],
    )
    event_kinds = models.JSONField(default=list, validators=[validate_event_kinds])
    # The HMAC key the receiver checks X-Webhook-Signature with.
    secret = models.CharField(max_length=200, default=webhook_secret_new)
    active = models.BooleanField(_("active"), default=True, db_index=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook subscription")
        verbose_name_plural = _("webhook subscriptions")
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def wants(self, kind: str) -> bool:
        return self.active and kind in self.event_kinds


class WebhookDelivery(models.Model):
    """One event sent to one subscription: retried with backoff until it is answered 2xx or
    runs out of attempts. The payload is the envelope exactly as it is sent."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting to be sent")
        SENDING = "sending", _("being sent")
        RETRYING = "retrying", _("waiting to retry")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed, no more retries")

    subscription = models.ForeignKey(
        WebhookSubscription,
        on_delete=models.CASCADE,
        related_name="deliveries",
        verbose_name=_("subscription"),
    )
    event_id = models.CharField(_("event ID"), max_length=64)
    kind = models.CharField(_("event"), max_length=40, db_index=True)
    payload = models.JSONField(
        _("payload"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_status_code = models.PositiveSmallIntegerField(
        _("last HTTP status"), null=True, blank=True
    )
    last_error = models.TextField(_("last error"), blank=True)
    # When it may be sent (again); a worker claims it only from then on.
    next_attempt_at = models.DateTimeField(_("next attempt"), default=timezone.now, db_index=True)
    # When a worker took it for sending; a claim older than the lease is taken over.
    claimed_at = models.DateTimeField(_("claimed"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    # The last person who asked for it to be sent again, and when.
    redelivered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("redelivered by"),
    )
    redelivered_at = models.DateTimeField(_("redelivered"), null=True, blank=True)

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ["-created_at", "-id"]
        constraints = [
            # One event reaches one subscription once, however often it is emitted.
            models.UniqueConstraint(
                fields=["subscription", "event_id"], name="webhook_delivery_unique_event"
            ),
            models.CheckConstraint(
                condition=models.Q(status="delivered", delivered_at__isnull=False)
                | (~models.Q(status="delivered") & models.Q(delivered_at__isnull=True)),
                name="webhook_delivery_delivered_iff_delivered_at",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="sending") | models.Q(claimed_at__isnull=False),
                name="webhook_delivery_sending_has_claim",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.event_id} → {self.subscription_id} ({self.status})"


class WebhookAttempt(models.Model):
    """One HTTP POST of a delivery and what came back: the delivery log."""

    delivery = models.ForeignKey(
        WebhookDelivery,
        on_delete=models.CASCADE,
        related_name="attempt_log",
        verbose_name=_("delivery"),
    )
    at = models.DateTimeField(_("when"), default=timezone.now, db_index=True)
    status_code = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    duration_ms = models.PositiveIntegerField(_("duration, ms"), default=0)

    class Meta:
        verbose_name = _("webhook attempt")
        verbose_name_plural = _("webhook attempts")
        ordering = ["delivery", "at", "id"]

    def __str__(self) -> str:
        return (
            f"{self.delivery_id} at {self.at:%Y-%m-%d %H:%M:%S}: {self.status_code or self.error}"
        )

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
