"""Who is calling: an integration by its API token (`Authorization: Bearer bp_…`), or a
logged-in person through the browsable API (session). Scopes say what either may do."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions

from api.models import ApiToken, token_hash

# A person's Django permissions grant the matching scopes in the browsable API.
SCOPE_PERMISSIONS = {
    "briefs:read": "briefing.view_project",
    "briefings:read": "briefing.view_project",
    "briefings:write": "briefing.add_turn",
    "leads:read": "crm.view_lead",
    "dlq:read": "dlq.view_deadletter",
    "studio:read": "studio.view_ratecarditem",
    "calendar:write": "studio.change_calendarperiod",
}
# How often last_used_at is written: not on every request.
LAST_USED_RESOLUTION_S = 60


@dataclass(frozen=True)
class TokenUser:
    """request.user of a token request: an integration, not a person."""

    token: ApiToken
    is_authenticated: bool = True
    is_anonymous: bool = False
    is_active: bool = True
    is_staff: bool = False
    is_superuser: bool = False

    @property
    def pk(self) -> None:
        return None

    def get_username(self) -> str:
        return f"token:{self.token.name}"

    def has_perm(self, perm: str, obj: object = None) -> bool:
        return False


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode("latin-1").lower() != self.keyword.lower():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "Give the token as: Authorization: Bearer <token>"
            )
        try:
            key = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("The token is not valid.") from None
        token = ApiToken.objects.filter(key_hash=token_hash(key), revoked_at__isnull=True).first()
        if token is None:
            raise exceptions.AuthenticationFailed("The token is not valid or was revoked.")
        now = timezone.now()
        stale = token.last_used_at is None or (
            (now - token.last_used_at).total_seconds() > LAST_USED_RESOLUTION_S
        )
        if stale:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return TokenUser(token), token

    def authenticate_header(self, request) -> str:
        return self.keyword


def request_has_scope(request, scope: str) -> bool:
    if isinstance(request.auth, ApiToken):
        return request.auth.has_scope(scope)
    user = request.user
    return bool(user and user.is_authenticated and user.has_perm(SCOPE_PERMISSIONS[scope]))


class HasScope(permissions.BasePermission):
    """The view's `scopes` maps "read"/"write" to the scope a request needs."""

    message = "This token (or user) lacks the scope this endpoint needs."

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        kind = "read" if request.method in permissions.SAFE_METHODS else "write"
        scope = view.scopes.get(kind)
        if scope is None:
            return False
        if not request_has_scope(request, scope):
            self.message = f"This endpoint needs the {scope!r} scope."
            return False
        return True


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token made by an admin (scopes: briefs:read, "
            "briefings:read, briefings:write, leads:read, dlq:read, studio:read, calendar:write).",
        }
