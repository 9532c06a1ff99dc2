"""A webhook receiver on 127.0.0.1: answers POSTs from a script of status codes, checks every
signature with `webhooks.signing.verify` as a real receiver would, and records what came."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from webhooks.signing import verify

HANG = -1  # a scripted "reply" that never answers (until the receiver stops)


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes
    verified: bool


class Receiver:
    """`Receiver(500, 503, 200)` answers the first POST 500, the second 503, and every later
    one 200. A 3xx answer carries `Location: /elsewhere`, any other failure `error_body`;
    HANG never answers."""

    def __init__(self, *codes: int, secret: str = "", error_body: bytes = b"nope") -> None:
        self.secret = secret
        self.error_body = error_body  # what a non-2xx answer carries
        self.received: list[Received] = []
        self.stopping = threading.Event()
        self._codes = deque(codes or (200,))
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.receiver = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def url(self, path: str = "/hooks") -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{path}"

    @property
    def bodies(self) -> list[bytes]:
        return [r.body for r in self.received]

    def _take(self, received: Received) -> int:
        with self._lock:
            self.received.append(received)
            return self._codes.popleft() if len(self._codes) > 1 else self._codes[0]

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        receiver: Receiver = self.server.receiver  # type: ignore[attr-defined]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        verified = verify(
            receiver.secret,
            headers.get("x-webhook-timestamp"),
            body,
            headers.get("x-webhook-signature"),
        )
        code = receiver._take(Received(self.path, headers, body, verified))
        if code == HANG:
            receiver.stopping.wait(30)
            return
        answer = b'{"ok": true}' if 200 <= code < 300 else receiver.error_body
        self.send_response(code)
        if 300 <= code < 400:
            self.send_header("Location", "/elsewhere")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
