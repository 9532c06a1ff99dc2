"""The address a login attempt came from, as the login throttling counts it."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind LOGIN_TRUSTED_PROXIES reverse proxies the address the outermost
    one saw: each proxy appends its peer to X-Forwarded-For, so the entry that many places
    from the right is the last one a client cannot forge."""
    proxies = settings.LOGIN_TRUSTED_PROXIES
    if proxies > 0:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        hops = [hop.strip() for hop in forwarded if hop.strip()]
        if len(hops) >= proxies:
            return hops[-proxies]
    return request.META.get("REMOTE_ADDR", "")
