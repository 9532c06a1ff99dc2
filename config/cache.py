"""The shared cache (CACHE_URL) without a hard dependency on Redis: when Redis does not answer,
each operation falls back for a while instead of raising, so a client's message is still
stored and answered during an outage (issue 25: a Redis outage made every chat POST a 500).

Two fallbacks, set per cache alias by OPTIONS["FALLBACK"]:
- "local" (the default alias: rate limits, API throttles): an in-process cache of bounded
  size, so limits still hold per process until Redis is back;
- "miss" (the sessions alias): every read misses and writes are dropped, so sessions come
  from the database, the only store all processes agree on.

After a failure Redis is not asked again for RETRY_AFTER_S seconds, so a Redis that hangs
instead of refusing costs one socket timeout per process per interval, not one per request.
Each outage is logged once per process (a warning when it starts, an info when it ends).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RETRY_AFTER_S = 5.0
# The connection options every alias gets unless its OPTIONS say otherwise: an unreachable
# Redis must cost a request well under a second, not the operating system's TCP timeout.
SOCKET_OPTIONS = {"socket_connect_timeout": 0.5, "socket_timeout": 1.0}
_OPERATIONS = ("add", "get", "set", "touch", "delete", "get_many", "has_key", "incr",
               "set_many", "delete_many", "clear")  # fmt: skip


class ResilientRedisCache(RedisCache):
    """Django's Redis cache that falls back (see the module) instead of raising RedisError."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS", {}))
        self.fallback = options.pop("FALLBACK", "local")
        if self.fallback not in ("local", "miss"):
            raise ValueError(
                f"OPTIONS['FALLBACK'] must be 'local' or 'miss', not {self.fallback!r}"
            )
        super().__init__(server, {**params, "OPTIONS": {**SOCKET_OPTIONS, **options}})
        self._local = LocMemCache(f"fallback-{id(self)}", {"OPTIONS": {"MAX_ENTRIES": 10_000}})
        self._down_since: float | None = None
        self._retry_at = 0.0

    def _outage_started(self, operation: str, error: RedisError) -> None:
        now = time.monotonic()
        self._retry_at = now + RETRY_AFTER_S
        if self._down_since is None:
            self._down_since = now
            logger.warning(
                "Redis cache unreachable (%s failed: %s); falling back to %s until it answers",
                operation, error,
                "an in-process cache" if self.fallback == "local" else "cache misses",
            )  # fmt: skip

    def _outage_ended(self) -> None:
        if self._down_since is not None:
            logger.info(
                "Redis cache answers again after %.0f s", time.monotonic() - self._down_since
            )
            self._down_since = None

    def _fallen_back(self, operation: str, args: tuple, kwargs: dict) -> Any:
        if self.fallback == "local":
            return getattr(self._local, operation)(*args, **kwargs)
        if operation == "get":
            return kwargs.get("default", args[1] if len(args) > 1 else None)
        if operation == "get_many":
            return {}
        if operation == "incr":
            raise ValueError("the key is not in the cache")  # as for any missing key
        if operation == "set_many":
            return list(args[0]) if args else list(kwargs.get("data", {}))
        return False if operation in ("add", "touch", "delete", "has_key") else None


def _resilient(operation: str):
    redis_operation = getattr(RedisCache, operation)

    def method(self: ResilientRedisCache, *args: Any, **kwargs: Any) -> Any:
        if self._down_since is not None and time.monotonic() < self._retry_at:
            return self._fallen_back(operation, args, kwargs)
        try:
            result = redis_operation(self, *args, **kwargs)
        except RedisError as error:
            self._outage_started(operation, error)
            return self._fallen_back(operation, args, kwargs)
        self._outage_ended()
        return result

    method.__name__ = operation
    method.__doc__ = redis_operation.__doc__
    return method


for _operation in _OPERATIONS:
    setattr(ResilientRedisCache, _operation, _resilient(_operation))
