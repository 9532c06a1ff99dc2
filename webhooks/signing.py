"""HMAC-SHA256 signatures of webhook deliveries (no Django: a receiver may copy this file).

Every delivery is an HTTP POST of a JSON body (UTF-8, `Content-Type: application/json`)
with these headers:

    X-Webhook-Id: 0b8f3c1e-...          the event id; a redelivery carries the same id
    X-Webhook-Event: brief.completed    the event kind
    X-Webhook-Timestamp: 1718000000     unix seconds when this attempt was signed
    X-Webhook-Signature: v1=5d41...     "v1=" + hex HMAC-SHA256(secret, f"{timestamp}." + body)

The signature covers the timestamp and the raw body bytes exactly as received: verify
before parsing the JSON. The header may hold several comma-separated signatures (during a
secret rotation); one that matches is enough. Any 2xx answer counts as delivered; anything
else (a redirect too, which is never followed) is retried with exponential backoff.

The receiver's check, with the standard library only:

    import hashlib
    import hmac
    import time

    def webhook_verified(secret: str, headers, body: bytes, tolerance_s: int = 300) -> bool:
        # headers: the request's headers (case-insensitive in most frameworks);
        # body: the raw request body, before any JSON parsing.
        try:
            timestamp = int(headers["X-Webhook-Timestamp"])
        except (KeyError, ValueError):
            return False
        if abs(time.time() - timestamp) > tolerance_s:
            return False  # stale (or replayed) delivery
        expected = "v1=" + hmac.new(
            secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256
        ).hexdigest()
        given = headers.get("X-Webhook-Signature", "")
        return any(
            hmac.compare_digest(expected.encode(), candidate.strip().encode())
            for candidate in given.split(",")
        )

Deduplicate on X-Webhook-Id: a delivery whose answer was lost is sent again.
"""

from __future__ import annotations

import hashlib
import hmac
import time

SCHEME = "v1"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The X-Webhook-Signature value of `body` sent at `timestamp` (unix seconds)."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"{SCHEME}={digest.hexdigest()}"


def verify(
    secret: str,
    timestamp_header: str | None,
    body: bytes,
    signature_header: str | None,
    *,
    tolerance_s: int = 300,
    now: float | None = None,
) -> bool:
    """Whether a delivery is genuine: the timestamp is within `tolerance_s` of `now` (either
    way) and one of the header's comma-separated signatures matches, compared in constant
    time."""
    try:
        timestamp = int((timestamp_header or "").strip())
    except ValueError:
        return False
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance_s:
        return False
    expected = sign(secret, timestamp, body).encode()
    candidates = [c.strip() for c in (signature_header or "").split(",") if c.strip()]
    # Every candidate is compared, so the time taken does not say which one matched.
    matches = [hmac.compare_digest(expected, c.encode()) for c in candidates]
    return any(matches)
