"""API tokens: one per integration, with scopes. Only a hash of the secret is stored; the
token itself is shown once, when it is made."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

SCOPES = {
    "briefs:read": "read finished briefs",
    "briefings:read": "read the briefings this token created: transcript, stages, events",
    "briefings:write": "create briefings and post client messages",
    "leads:read": "read leads",
    "dlq:read": "read dead letters",
    "studio:read": "read the studio's rate card, portfolio and production calendar",
    "calendar:write": "push and remove production calendar periods",
}
TOKEN_PREFIX = "bp_"  # noqa: S105 (what every token starts with, not a secret)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class ApiToken(models.Model):
    name = models.CharField(_("name"), max_length=100, help_text="The integration it is for")
    # The first characters of the token, to tell tokens apart in lists and logs.
    prefix = models.CharField(_("key prefix"), max_length=12, db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    scopes = models.JSONField(_("permissions"), default=list)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        unknown = (
            [s for s in self.scopes or [] if s not in SCOPES]
            if isinstance(self.scopes, list)
            else ["(not a list)"]
        )
        if unknown:
            raise ValidationError(
                {"scopes": f"unknown scopes {unknown}; known: {', '.join(SCOPES)}"}
            )

    def issue(self) -> str:
        """A new secret for this token (before saving it); the caller shows it once."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        self.prefix = token[:10]
        self.key_hash = token_hash(token)
        return token

    def has_scope(self, scope: str) -> bool:
        return self.revoked_at is None and scope in (self.scopes or [])


class TokenProject(models.Model):
    """A briefing an integration created: the token may read and write it (and only it)."""

    token = models.ForeignKey(
        ApiToken, on_delete=models.CASCADE, related_name="projects", verbose_name=_("token")
    )
    project = models.OneToOneField(
        "briefing.Project",
        on_delete=models.CASCADE,
        related_name="api_link",
        verbose_name=_("briefing"),
    )

    class Meta:
        verbose_name = _("token's briefing")
        verbose_name_plural = _("tokens' briefings")

    def __str__(self) -> str:
        return f"{self.token} → {self.project_id}"
