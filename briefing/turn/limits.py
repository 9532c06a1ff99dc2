"""Rate limits on client messages, per link and per sender address, counted in Django's cache
(fixed windows aligned to the period; a shared cache, CACHE_URL, makes them hold across web
processes)."""

from __future__ import annotations

import contextlib
import math
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.cache import cache

PERIODS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600,
           "hour": 3600, "d": 86400, "day": 86400}  # fmt: skip
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([a-z]+)\s*$")


@dataclass(frozen=True)
class Rate:
    """At most `count` messages in each window of `period_s` seconds."""

    count: int
    period_s: int
    text: str

    @classmethod
    def parse(cls, text: str) -> Rate:
        """A rate as written in the settings: 10/min, 120/hour, 5/10s (DRF's notation, with
        an optional number of units)."""
        match = _RATE.match(text.lower())
        unit = match[3] if match else ""
        if unit.endswith("s") and len(unit) > 2 and unit[:-1] in PERIODS:
            unit = unit[:-1]  # "mins", "hours" (but "ms" is no minute)
        if not match or unit not in PERIODS or match[2] == "0":
            raise ValueError(
                f"{text!r} is not a rate: write <count>/<period>, e.g. 10/min or 120/hour "
                f"(periods: {', '.join(sorted(set(PERIODS)))})"
            )
        return cls(int(match[1]), int(match[2] or 1) * PERIODS[unit], text.strip())


def rates_parse(texts: Iterable[str]) -> list[Rate]:
    return [Rate.parse(text) for text in texts]


@dataclass(frozen=True)
class Refusal:
    """Which limit refused a message, and for how long."""

    scope: str
    rate: Rate
    retry_after_s: int
    window_key: str

    def first_for(self, subject: str) -> bool:
        """Whether this is the first refusal of its window for `subject` (a producer hears
        of each window once, not of every refused message)."""
        return cache.add(f"{self.window_key}:noted:{subject}", 1, timeout=self.rate.period_s + 1)


def _now() -> float:
    return time.time()


def limits_hit(limits: Iterable[tuple[str, str, Rate]]) -> Refusal | None:
    """Count one message against each (scope, subject, rate); None when every limit has room,
    else the refusal. A refused message is taken back from the counters it passed, so a
    message refused by one limit does not use up another."""
    now, counted = _now(), []
    for scope, subject, rate in limits:
        window = int(now // rate.period_s)
        key = f"chat-rate:{scope}:{subject}:{rate.period_s}:{window}"
        # add then incr: both atomic in Redis and in the in-process cache.
        cache.add(key, 0, timeout=rate.period_s + 1)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between the two calls: a new window
            cache.add(key, 1, timeout=rate.period_s + 1)
            count = 1
        if count > rate.count:
            for taken in [key, *counted]:
                with contextlib.suppress(ValueError):  # its window ended meanwhile
                    cache.decr(taken)
            return Refusal(
                scope=scope,
                rate=rate,
                retry_after_s=max(1, math.ceil((window + 1) * rate.period_s - now)),
                window_key=key,
            )
        counted.append(key)
    return None


def rates_check(app_configs=None, **kwargs) -> list:
    """A system check: a mistyped rate stops `manage.py check` and the server's start instead
    of failing every chat message."""
    from django.conf import settings
    from django.core.checks import Error

    errors = []
    for name in ("CLIENT_CHAT_RATE_PER_LINK", "CLIENT_CHAT_RATE_PER_IP"):
        try:
            rates_parse(getattr(settings, name))
        except ValueError as error:
            errors.append(Error(f"{name}: {error}", id="briefing.E001"))
    return errors
