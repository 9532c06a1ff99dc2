"""Login throttling beyond django-axes' own lock on one user name at one address.

django-axes (config/settings.py) pauses a user name at one address after LOGIN_FAILURE_LIMIT
wrong passwords. This handler adds two counts over axes' log of failed log-ins
(AccessFailureLog, one row per wrong password, with its time):

- per address, whatever the user names (password spraying): LOGIN_ADDRESS_FAILURE_LIMIT
  within the cool-off pause the address until fewer than that are left in the window. A hard
  limit, but one an attacker can only set off for their own address.
- per user name, whatever the address (guessing from many addresses): from
  LOGIN_USERNAME_FAILURE_LIMIT within LOGIN_USERNAME_WINDOW on, the next attempt waits 2^k
  seconds after the latest failure (k = failures past the limit), at most
  LOGIN_USERNAME_MAX_DELAY. A growing delay, not a lock, and none at all from an address the
  name logged in from within LOGIN_KNOWN_ADDRESS_AGE (as Entra ID's smart lockout spares
  familiar locations): an attacker elsewhere cannot keep the real user out.

Refused attempts are not counted (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False), so a
pause ends when the lockout page says it does; a successful login clears that name's failures
from that address, in both axes' count and this log, and nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from axes.models import AccessFailureLog, AccessLog
from axes.signals import user_locked_out
from django.conf import settings
from django.db.models import Count, Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@dataclass(frozen=True)
class LoginPause:
    """Why logging in is refused for now, and until when."""

    reason: Literal["pair", "address", "username"]
    limit: int
    until: datetime


def _over_limit_until(
    failures: Iterable[tuple[datetime, int]], limit: int, window: timedelta
) -> datetime | None:
    """When the count of failures (time and count, newest first, all within the window) falls
    below the limit again; None when it is below already."""
    total = 0
    for time, count in failures:
        total += count
        if total >= limit:
            return time + window
    return None


class LoginThrottleHandler(AxesDatabaseHandler):
    """AXES_HANDLER: axes' database handler, with the per-address and per-user-name counts."""

    def login_pause(
        self, request: HttpRequest, credentials: dict | None = None
    ) -> LoginPause | None:
        """The pause that lasts longest of those this attempt runs into, or None."""
        now = request.axes_attempt_time
        cool_off = get_cool_off(request)
        pauses = []
        # axes' own count (AXES_LOCKOUT_PARAMETERS): this name from this address.
        limit = get_failure_limit(request, credentials)
        for attempts in self.get_user_attempts(request, credentials):
            rows = attempts.order_by("-attempt_time").values_list(
                "attempt_time", "failures_since_start"
            )
            if until := _over_limit_until(rows, limit, cool_off):
                pauses.append(LoginPause("pair", limit, until))
        address = request.axes_ip_address
        if address:
            limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
            times = (
                AccessFailureLog.objects.filter(
                    ip_address=address, attempt_time__gte=now - cool_off
                )
                .order_by("-attempt_time")
                .values_list("attempt_time", flat=True)[:limit]
            )
            if until := _over_limit_until(((time, 1) for time in times), limit, cool_off):
                pauses.append(LoginPause("address", limit, until))
        username = get_client_username(request, credentials)
        if username:
            limit = settings.LOGIN_USERNAME_FAILURE_LIMIT
            failures = AccessFailureLog.objects.filter(
                username=username, attempt_time__gte=now - settings.LOGIN_USERNAME_WINDOW
            ).aggregate(count=Count("id"), latest=Max("attempt_time"))
            if failures["count"] >= limit and not self.is_known_address(request, username):
                past = min(failures["count"] - limit, 30)
                delay = min(timedelta(seconds=2**past), settings.LOGIN_USERNAME_MAX_DELAY)
                pauses.append(LoginPause("username", limit, failures["latest"] + delay))
        return max((p for p in pauses if p.until > now), key=lambda p: p.until, default=None)

    @staticmethod
    def is_known_address(request: HttpRequest, username: str) -> bool:
        """Whether the name logged in from this address lately (axes' AccessLog)."""
        return AccessLog.objects.filter(
            username=username,
            ip_address=request.axes_ip_address,
            attempt_time__gte=request.axes_attempt_time - settings.LOGIN_KNOWN_ADDRESS_AGE,
        ).exists()

    def is_locked(self, request: HttpRequest, credentials: dict | None = None) -> bool:
        if not settings.AXES_LOCK_OUT_AT_FAILURE:
            return False
        request.login_pause = self.login_pause(request, credentials)
        return request.login_pause is not None

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs) -> None:
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is None:
            return
        # The log is read back no further than the longest window.
        horizon = max(get_cool_off(request), settings.LOGIN_USERNAME_WINDOW)
        AccessFailureLog.objects.filter(
            attempt_time__lt=request.axes_attempt_time - horizon
        ).delete()
        if getattr(request, "login_pause", None) or self.is_whitelisted(request, credentials):
            return  # refused before the password was checked, or never throttled
        # A wrong password that takes a count over its limit answers with the pause at once.
        pause = self.login_pause(request, credentials)
        if pause is None or not settings.AXES_LOCK_OUT_AT_FAILURE:
            return
        request.login_pause = pause
        if not request.axes_locked_out:
            request.axes_locked_out = True
            request.axes_credentials = credentials
            user_locked_out.send(
                "axes",
                request=request,
                username=get_client_username(request, credentials),
                ip_address=request.axes_ip_address,
            )

    def user_logged_in(self, sender, request, user, **kwargs) -> None:
        super().user_logged_in(sender, request, user, **kwargs)
        if settings.AXES_RESET_ON_SUCCESS:
            AccessFailureLog.objects.filter(
                username=user.get_username(), ip_address=request.axes_ip_address
            ).delete()


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials=None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the lockout page, saying which count ran over and when to try
    again (also as Retry-After)."""
    if not isinstance(credentials, dict):  # axes' async middleware passes it second
        credentials = getattr(request, "axes_credentials", None)
    pause = getattr(request, "login_pause", None)
    context = {
        "reason": "pair",
        "failure_limit": get_failure_limit(request, credentials),
        "username": get_client_username(request, credentials) or "",
        "cooloff_timedelta": get_cool_off(request),
    }
    if pause:
        wait = max(1, math.ceil((pause.until - request.axes_attempt_time).total_seconds()))
        context |= {
            "reason": pause.reason,
            "failure_limit": pause.limit,
            "retry_at": pause.until,
            "retry_after": wait,
            "retry_minutes": math.ceil(wait / 60),
        }
        if pause.reason == "username":  # a growing wait, not the cool-off
            context["cooloff_timedelta"] = None
    response = render(
        request, settings.AXES_LOCKOUT_TEMPLATE, context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
    if pause:
        response["Retry-After"] = str(context["retry_after"])
    return response
