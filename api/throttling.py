"""Rate limits per caller: per API token, per logged-in user, else per address."""

from __future__ import annotations

from rest_framework.throttling import SimpleRateThrottle

from api.models import ApiToken


class PerCallerThrottle(SimpleRateThrottle):
    scope = "api"

    def get_cache_key(self, request, view) -> str:
        if isinstance(request.auth, ApiToken):
            ident = f"token-{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user-{request.user.pk}"
        else:
            ident = f"addr-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
