"""Signing and verifying deliveries, and the receiver's recipe documented in the module."""

from __future__ import annotations

import hashlib
import hmac
import re
import textwrap

import pytest

import webhooks.signing
from webhooks.signing import sign, verify

SECRET = "whsec-test"
BODY = '{"data":{"name":"Анна"},"id":"e1","kind":"lead.created"}'.encode()
NOW = 1_718_000_000


def test_signature_is_hmac_sha256_of_timestamp_dot_body_in_hex():
    expected = hmac.new(SECRET.encode(), b"1718000000." + BODY, hashlib.sha256).hexdigest()
    assert sign(SECRET, NOW, BODY) == f"v1={expected}"
    assert re.fullmatch(r"v1=[0-9a-f]{64}", sign(SECRET, NOW, BODY))


def test_genuine_delivery_verifies():
    assert verify(SECRET, str(NOW), BODY, sign(SECRET, NOW, BODY), now=NOW + 10)


@pytest.mark.parametrize(
    ("secret", "body", "timestamp_header"),
    [
        pytest.param(SECRET, BODY.replace(b"e1", b"e2"), str(NOW), id="tampered body"),
        pytest.param(SECRET, BODY + b" ", str(NOW), id="one byte more"),
        pytest.param("another-secret", BODY, str(NOW), id="wrong secret"),
        pytest.param(SECRET, BODY, str(NOW + 1), id="timestamp changed after signing"),
    ],
)
def test_anything_changed_after_signing_is_rejected(secret, body, timestamp_header):
    signature = sign(SECRET, NOW, BODY)
    assert not verify(secret, timestamp_header, body, signature, now=NOW)


@pytest.mark.parametrize("age_s", [301, -301, 86_400])
def test_stale_or_future_timestamps_beyond_the_tolerance_are_rejected(age_s):
    signature = sign(SECRET, NOW, BODY)
    assert not verify(SECRET, str(NOW), BODY, signature, now=NOW + age_s)
    # The same delivery a little less old passes, so the tolerance is what refused it.
    assert verify(SECRET, str(NOW), BODY, signature, now=NOW + (300 if age_s > 0 else -300))


def test_tolerance_is_adjustable():
    signature = sign(SECRET, NOW, BODY)
    assert not verify(SECRET, str(NOW), BODY, signature, now=NOW + 31, tolerance_s=30)
    assert verify(SECRET, str(NOW), BODY, signature, now=NOW + 3000, tolerance_s=3600)


def test_any_one_of_several_signatures_is_enough_during_a_secret_rotation():
    old, new = sign("old-secret", NOW, BODY), sign("new-secret", NOW, BODY)
    header = f"{old}, {new}"
    assert verify("new-secret", str(NOW), BODY, header, now=NOW)
    assert verify("old-secret", str(NOW), BODY, header, now=NOW)
    assert not verify("third-secret", str(NOW), BODY, header, now=NOW)


@pytest.mark.parametrize(
    ("timestamp_header", "signature_header"),
    [
        (None, "v1=00"),
        ("", "v1=00"),
        ("yesterday", "v1=00"),
        (str(NOW), None),
        (str(NOW), ""),
        (str(NOW), ","),
        (str(NOW), "v1=не-hex"),
    ],
)
def test_missing_or_malformed_headers_are_rejected_not_raised(timestamp_header, signature_header):
    assert verify(SECRET, timestamp_header, BODY, signature_header, now=NOW) is False


def test_a_bare_hex_digest_without_the_scheme_is_rejected():
    bare = sign(SECRET, NOW, BODY).removeprefix("v1=")
    assert not verify(SECRET, str(NOW), BODY, bare, now=NOW)


def _documented_recipe():
    """The receiver's snippet from the module docstring, run as a receiver would paste it."""
    doc = webhooks.signing.__doc__
    start = doc.index("    import hashlib")
    end = doc.index("Deduplicate on")
    namespace: dict = {}
    exec(textwrap.dedent(doc[start:end]), namespace)  # noqa: S102 - our own documentation
    return namespace["webhook_verified"]


def test_the_documented_receiver_recipe_agrees_with_verify():
    webhook_verified = _documented_recipe()
    import time

    timestamp = int(time.time())
    headers = {
        "X-Webhook-Timestamp": str(timestamp),
        "X-Webhook-Signature": sign(SECRET, timestamp, BODY),
    }
    assert webhook_verified(SECRET, headers, BODY)
    assert not webhook_verified(SECRET, headers, BODY + b"x")
    assert not webhook_verified("other", headers, BODY)
    stale = {**headers, "X-Webhook-Timestamp": str(timestamp - 301)}
    assert not webhook_verified(SECRET, stale, BODY)
    assert not webhook_verified(SECRET, {}, BODY)
    rotated = {**headers, "X-Webhook-Signature": f"v1=0000, {headers['X-Webhook-Signature']}"}
    assert webhook_verified(SECRET, rotated, BODY)
