"""Shared httpx plumbing for the HTTP providers: deadlines, TLS, body reading, error kinds."""

from __future__ import annotations

import email.utils
import json
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from llmkit.types import ProviderError

# A corporate proxy cuts connections at 100 s; a call without its own budget gets that much.
DEFAULT_TIMEOUT_S = 100.0
# Enough of an error body to classify it and show it in a dead letter, never megabytes.
_ERROR_BODY_CHARS = 2000

_SCHEMA_WORDS = re.compile(r"schema|grammar|response_format|json_object|structured", re.IGNORECASE)
_REJECTION_WORDS = re.compile(
    r"too (large|long|big|complex|deep|many)|unsupported|not supported|exceed|limit|"
    r"invalid|not allowed|cannot|can't|failed to (compile|parse|convert)",
    re.IGNORECASE,
)


class Deadline:
    """The whole-call time budget: one clock for the token exchange, the request and the body."""

    def __init__(
        self,
        timeout_s: float | None,
        *,
        default_s: float = DEFAULT_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._clock = clock
        self.started = clock()
        self.total_s = default_s if timeout_s is None else timeout_s
        self.expires = self.started + self.total_s

    def remaining(self) -> float:
        return self.expires - self._clock()

    def elapsed(self) -> float:
        return self._clock() - self.started

    def check(self, provider: str) -> float:
        """Return the seconds left, or raise a timeout error when the budget is spent."""
        left = self.remaining()
        if left <= 0:
            raise ProviderError(
                "timeout", f"call budget of {self.total_s:.2f}s ran out", provider=provider
            )
        return left


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP-date (RFC 9110)."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0) if seconds == seconds else None  # NaN is not a wait
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max((when - now).total_seconds(), 0.0)


def error_for_status(
    provider: str, status: int, body: str, headers: Mapping[str, str] | None = None
) -> ProviderError:
    """Classify a non-2xx answer into the ProviderError kind the failover chain acts on."""
    snippet = body[:_ERROR_BODY_CHARS].strip() or "(empty body)"
    message = f"HTTP {status}: {snippet}"
    if status in (401, 403):
        return ProviderError("auth", message, provider=provider, status=status)
    if status == 429:
        retry_after = parse_retry_after((headers or {}).get("retry-after"))
        return ProviderError(
            "rate_limited", message, provider=provider, status=status, retry_after=retry_after
        )
    if status >= 500:
        return ProviderError("server", message, provider=provider, status=status)
    if status in (400, 413, 422) and _says_schema_rejected(body):
        return ProviderError("schema_rejected", message, provider=provider, status=status)
    if 400 <= status < 500:
        return ProviderError("client", message, provider=provider, status=status)
    # 1xx/3xx here means a proxy or redirect we were not told to follow: not an answer.
    return ProviderError("bad_response", message, provider=provider, status=status)


def _says_schema_rejected(body: str) -> bool:
    return bool(_SCHEMA_WORDS.search(body) and _REJECTION_WORDS.search(body))


def build_verify(verify: bool | str | Path = True, ca_bundle: str | Path | None = None) -> Any:
    """TLS verification for httpx: the system trust store plus an extra CA bundle if given.

    The extra bundle is added to, not substituted for, the usual roots, so one client can
    reach a host signed by the Russian Ministry CA and a proxy signed by a public CA.
    """
    if verify is False:
        return False
    extra = (
        ca_bundle if ca_bundle is not None else (verify if not isinstance(verify, bool) else None)
    )
    if extra is None:
        return True
    path = Path(extra)
    if not path.exists():
        raise ValueError(f"CA bundle {path} does not exist")
    context = httpx.create_ssl_context()
    if path.is_dir():
        context.load_verify_locations(capath=str(path))
    else:
        context.load_verify_locations(cafile=str(path))
    return context


class HttpTransport:
    """One provider's httpx client, with every failure turned into a ProviderError."""

    def __init__(self, provider: str, *, verify: Any = True) -> None:
        self.provider = provider
        self._verify = verify
        self._client: httpx.Client | None = None
        self._client_pid: int | None = None
        self._lock = threading.Lock()

    def client(self) -> httpx.Client:
        # One pooled client per process: a client inherited over fork (Celery prefork) would
        # share sockets with the parent, so a new process builds its own.
        pid = os.getpid()
        with self._lock:
            if self._client is None or self._client_pid != pid:
                self._client = httpx.Client(verify=self._verify, follow_redirects=False)
                self._client_pid = pid
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None and self._client_pid == os.getpid():
                self._client.close()
            self._client = None

    def _send(
        self,
        url: str,
        *,
        deadline: Deadline,
        json_body: Any = None,
        form: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        left = deadline.check(self.provider)
        client = self.client()
        request = client.build_request(
            "POST",
            url,
            json=json_body,
            data=form,
            headers=headers,
            # Every phase gets at most what is left of the call; the body readers below check
            # the deadline between chunks, so a trickling server cannot stretch the call.
            timeout=httpx.Timeout(left),
        )
        try:
            return client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise ProviderError(
                "timeout", f"{type(exc).__name__}: {exc}", provider=self.provider
            ) from exc
        except httpx.TransportError as exc:
            raise ProviderError(
                "connection", f"{type(exc).__name__}: {exc}", provider=self.provider
            ) from exc

    def read_body(self, response: httpx.Response, deadline: Deadline) -> bytes:
        """Read the whole body, minding the deadline between chunks."""
        parts: list[bytes] = []
        for chunk in self._guarded(response.iter_bytes(), deadline):
            parts.append(chunk)
        return b"".join(parts)

    def raise_for_status(self, response: httpx.Response, deadline: Deadline) -> None:
        if response.is_success:
            return
        try:
            body = self.read_body(response, deadline).decode("utf-8", "replace")
        except ProviderError:
            body = ""
        raise error_for_status(self.provider, response.status_code, body, response.headers)

    def post_json(
        self,
        url: str,
        *,
        deadline: Deadline,
        json_body: Any = None,
        form: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """POST and return the decoded JSON answer."""
        response = self._send(
            url, deadline=deadline, json_body=json_body, form=form, headers=headers
        )
        try:
            self.raise_for_status(response, deadline)
            return self.decode_json(self.read_body(response, deadline))
        finally:
            response.close()

    @contextmanager
    def open_stream(
        self,
        url: str,
        *,
        deadline: Deadline,
        json_body: Any,
        headers: Mapping[str, str] | None = None,
    ) -> Iterator[httpx.Response]:
        """POST and hand over the response unread; leaving the block closes the connection.

        Closing an unread HTTP/1.1 response drops the socket instead of returning it to the
        pool, which is what tells the server to stop generating (early close).
        """
        response = self._send(url, deadline=deadline, json_body=json_body, headers=headers)
        try:
            self.raise_for_status(response, deadline)
            yield response
        finally:
            response.close()

    @contextmanager
    def hang_up_after(self, response: httpx.Response, seconds: float) -> Iterator[None]:
        """Cut `response`'s connection `seconds` from now unless the block has ended first.

        httpx fixes a stream's read timeout when the request is sent, so a read already
        waiting cannot be given a shorter one; shutting the socket down from a timer wakes
        that read (it sees the stream end, which the reader reports as a bad_response) over
        plain TCP and TLS alike. Without a socket to reach (another transport), the block
        is bounded by the call's deadline alone.
        """
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            yield
            return
        lock = threading.Lock()
        ended = False

        def hang_up() -> None:
            with lock:
                if ended:
                    return
                with suppress(OSError):
                    # The plain socket's shutdown, not SSLSocket's, which would also drop the
                    # TLS state that the reading thread is using.
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

        timer = threading.Timer(max(seconds, 0.0), hang_up)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            # Under the lock: once this block is left the timer can no longer touch the
            # socket, which the caller is about to close or give back to the pool.
            with lock:
                ended = True
            timer.cancel()

    def iter_lines(self, response: httpx.Response, deadline: Deadline) -> Iterator[str]:
        return self._guarded(response.iter_lines(), deadline)

    def iter_text(self, response: httpx.Response, deadline: Deadline) -> Iterator[str]:
        return self._guarded(response.iter_text(), deadline)

    def _guarded(self, items: Iterator[Any], deadline: Deadline) -> Iterator[Any]:
        # Failures while reading a body mean the answer arrived incomplete: once the status
        # line is in, a reset or a protocol error is a broken answer rather than a dead host.
        try:
            for item in items:
                yield item
                deadline.check(self.provider)
        except httpx.TimeoutException as exc:
            raise ProviderError(
                "timeout",
                f"reading the answer: {type(exc).__name__}: {exc}",
                provider=self.provider,
            ) from exc
        except (httpx.TransportError, httpx.StreamError) as exc:
            raise ProviderError(
                "bad_response",
                f"answer ended early: {type(exc).__name__}: {exc}",
                provider=self.provider,
            ) from exc

    def decode_json(self, body: bytes | str) -> Any:
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            shown = body[:200] if isinstance(body, str) else body[:200].decode("utf-8", "replace")
            raise ProviderError(
                "bad_response", f"answer is not JSON: {shown!r}", provider=self.provider
            ) from exc


def is_event_stream(response: httpx.Response) -> bool:
    return "text/event-stream" in response.headers.get("content-type", "")


def as_int(value: Any) -> int:
    """Token counts as ints; Yandex sends them as strings, a missing count is 0."""
    if value is None or value == "":
        return 0
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return 0
