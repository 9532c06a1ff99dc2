"""Local HTTP servers speaking the providers' documented wire formats, with injectable faults."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

# --- the server ------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, str]:
        return dict(urllib.parse.parse_qsl(self.body.decode()))


class Reply(Protocol):
    def send(self, handler: _Handler, server: WireServer) -> None: ...


def free_port() -> int:
    """A port nobody listens on right now (connecting to it is refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WireServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 that answers each path from a reply script.

    `route(path, r1, r2, ...)` answers the first request to `path` with r1, the next with r2,
    and repeats the last one after that. Every request is recorded.
    """

    def __init__(self, *, tls: TestCertificates | None = None) -> None:
        self.requests: list[RecordedRequest] = []
        self.stopping = threading.Event()
        self._routes: dict[str, deque[Reply]] = {}
        self._changed = threading.Condition()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.wire = self
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls.server_cert, tls.server_key)
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    def url(self, path: str = "") -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def route(self, path: str, *replies: Reply) -> None:
        with self._changed:
            self._routes[path] = deque(replies)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._changed:
            return [request for request in self.requests if request.path == path]

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Block until `predicate()` holds (re-checked on every server event) or time runs out."""
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def _next_reply(self, path: str) -> Reply | None:
        with self._changed:
            replies = self._routes.get(path)
            if not replies:
                return None
            return replies.popleft() if len(replies) > 1 else replies[0]

    def _record(self, request: RecordedRequest) -> None:
        with self._changed:
            self.requests.append(request)
            self._changed.notify_all()

    def __enter__(self) -> WireServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()  # releases replies that are sleeping
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


@dataclass(frozen=True)
class TestCertificates:
    """A private root CA (standing in for the Russian Ministry CA) and a server cert it signed."""

    ca_cert: Path
    server_cert: Path
    server_key: Path


def make_test_certificates(folder: Path) -> TestCertificates | None:
    """Issue a CA and a 127.0.0.1 server certificate with the openssl CLI (None without it)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    ca_key, ca_cert = folder / "ca.key", folder / "ca.pem"
    key, csr, cert = folder / "server.key", folder / "server.csr", folder / "server.pem"
    extensions = folder / "server.ext"
    extensions.write_text(
        "subjectAltName=IP:127.0.0.1\n"
        "basicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\n"
        "authorityKeyIdentifier=keyid,issuer\n"
    )
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    commands = [
        [openssl, "req", "-x509", *ec, "-keyout", ca_key, "-out", ca_cert, "-days", "2",
         "-subj", "/CN=Test Ministry Root CA",
         "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
        [openssl, "req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
        [openssl, "x509", "-req", "-in", csr, "-CA", ca_cert, "-CAkey", ca_key,
         "-CAcreateserial", "-out", cert, "-days", "2", "-extfile", extensions],
    ]  # fmt: skip
    for command in commands:
        subprocess.run([str(part) for part in command], check=True, capture_output=True)
    return TestCertificates(ca_cert=ca_cert, server_cert=cert, server_key=key)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    wire: WireServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up mid-answer is what several tests provoke; keep stderr clean.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without this, Nagle's algorithm and
        # delayed ACKs add ~40 ms to every keep-alive request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = urllib.parse.urlsplit(self.path).path
        wire = self.server.wire
        wire._record(
            RecordedRequest(
                method=self.command,
                path=path,
                headers={name.lower(): value for name, value in self.headers.items()},
                body=body,
            )
        )
        reply = wire._next_reply(path)
        if reply is None:
            reply = JsonReply({"error": f"no route for {path}"}, status=404)
        reply.send(self, wire)

    do_POST = _handle
    do_GET = _handle

    def send_whole(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()


# --- replies and faults ------------------------------------------------------------------


@dataclass
class JsonReply:
    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)

    def send(self, handler: _Handler, server: WireServer) -> None:
        payload = json.dumps(self.body, ensure_ascii=False).encode()
        handler.send_whole(
            self.status, payload, {"Content-Type": "application/json", **self.headers}
        )


@dataclass
class RawReply:
    """Any bytes at all, e.g. a garbage body or an HTML error page from a proxy."""

    body: bytes
    status: int = 200
    content_type: str = "text/html"
    headers: dict[str, str] = field(default_factory=dict)

    def send(self, handler: _Handler, server: WireServer) -> None:
        handler.send_whole(
            self.status, self.body, {"Content-Type": self.content_type, **self.headers}
        )


@dataclass
class SlowReply:
    """Sit on the request for `delay_s` (a hung upstream), then send `then` or hang up."""

    delay_s: float
    then: Reply | None = None

    def send(self, handler: _Handler, server: WireServer) -> None:
        server.stopping.wait(self.delay_s)
        if self.then is not None and not server.stopping.is_set():
            self.then.send(handler, server)
        else:
            handler.close_connection = True


@dataclass
class StreamStats:
    """What a streamed reply managed to send, for proving the client stopped reading."""

    total: int = 0
    sent: int = 0
    disconnected: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)


@dataclass
class StreamReply:
    """A chunked streaming body (SSE or NDJSON), one transfer chunk per item.

    `delay_s` between items, an optional long `pause_s` after item number `pause_after`,
    and `truncate=True` to hang up without the final zero-length chunk (a cut connection).
    """

    chunks: Sequence[str]
    content_type: str = "text/event-stream"
    delay_s: float = 0.0
    pause_after: int | None = None
    pause_s: float = 0.0
    truncate: bool = False
    status: int = 200
    stats: StreamStats = field(default_factory=StreamStats)

    def send(self, handler: _Handler, server: WireServer) -> None:
        self.stats.total = len(self.chunks)
        try:
            handler.send_response(self.status)
            handler.send_header("Content-Type", self.content_type)
            handler.send_header("Transfer-Encoding", "chunked")
            handler.send_header("Cache-Control", "no-cache")
            handler.end_headers()
            handler.wfile.flush()
            for index, chunk in enumerate(self.chunks):
                data = chunk.encode()
                handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                handler.wfile.flush()
                self.stats.sent = index + 1
                server.notify()
                if self.pause_after is not None and index + 1 == self.pause_after:
                    server.stopping.wait(self.pause_s)
                elif self.delay_s:
                    server.stopping.wait(self.delay_s)
                if server.stopping.is_set():
                    break
            if self.truncate:
                handler.close_connection = True
            else:
                handler.wfile.write(b"0\r\n\r\n")
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            # The client hung up: exactly what early close is meant to do.
            self.stats.disconnected.set()
            handler.close_connection = True
        finally:
            self.stats.finished.set()
            server.notify()


# --- documented payload shapes -------------------------------------------------------------


def sse(payload: Any) -> str:
    """One server-sent event carrying JSON (or the literal [DONE])."""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {data}\n\n"


def openai_completion(
    content: str,
    *,
    model: str = "gpt-test",
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
    cached_tokens: int = 0,
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }


def openai_usage(*, prompt: int, cached: int, completion: int) -> dict[str, Any]:
    """A chat completions `usage` block with the cached share of the prompt."""
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def openai_stream(
    pieces: Iterable[str],
    *,
    model: str = "gpt-test",
    usage: dict[str, Any] | None = None,
    finish: bool = True,
) -> list[str]:
    """`chat.completion.chunk` events as OpenAI sends them with include_usage, then [DONE]."""

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    events = [sse(chunk({"role": "assistant", "content": ""}))]
    events += [sse(chunk({"content": piece})) for piece in pieces]
    if finish:
        events.append(sse(chunk({}, "stop")))
        if usage is not None:
            events.append(
                sse(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion.chunk",
                        "created": 1_700_000_000,
                        "model": model,
                        "choices": [],
                        "usage": usage,
                    }
                )
            )
        events.append(sse("[DONE]"))
    return events


def gigachat_token(token: str, *, expires_in_s: float = 1800.0) -> dict[str, Any]:
    """The OAuth answer: `expires_at` is Unix time in milliseconds."""
    return {"access_token": token, "expires_at": int((time.time() + expires_in_s) * 1000)}


def gigachat_completion(
    content: str, *, prompt_tokens: int = 20, completion_tokens: int = 9, precached: int = 0
) -> dict[str, Any]:
    return {
        "choices": [
            {
                "message": {"role": "assistant", "content": content},
                "index": 0,
                "finish_reason": "stop",
            }
        ],
        "created": 1_700_000_000,
        "model": "GigaChat:1.0.26.20",
        "object": "chat.completion",
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "precached_prompt_tokens": precached,
        },
    }


def gigachat_usage(*, prompt: int, cached: int, completion: int) -> dict[str, Any]:
    """GigaChat's `usage`: the cached part of the prompt is `precached_prompt_tokens`."""
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "precached_prompt_tokens": cached,
    }


def gigachat_stream(
    pieces: Iterable[str], *, usage: dict[str, Any] | None = None, finish: bool = True
) -> list[str]:
    """GigaChat's SSE: deltas, a last chunk with finish_reason and usage, then [DONE]."""

    def chunk(delta: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {
            "choices": [{"delta": delta, "index": 0, **extra}],
            "created": 1_700_000_000,
            "model": "GigaChat:1.0.26.20",
            "object": "chat.completion",
        }

    events = [sse(chunk({"content": piece, "role": "assistant"})) for piece in pieces]
    if finish:
        last = chunk({"content": ""}, finish_reason="stop")
        if usage is not None:
            last["usage"] = usage
        events.append(sse(last))
        events.append(sse("[DONE]"))
    return events


def yandex_usage(*, prompt: int, completion: int, cached: int | None = None) -> dict[str, Any]:
    """A /completion `usage`: int64 counts travel as strings; cached ones only on some models."""
    usage: dict[str, Any] = {
        "inputTextTokens": str(prompt),
        "completionTokens": str(completion),
        "totalTokens": str(prompt + completion),
        "completionTokensDetails": {"reasoningTokens": "0"},
    }
    if cached is not None:
        usage["inputTextTokensDetails"] = {"cachedTokens": str(cached)}
    return usage


def yandex_result(
    text: str,
    *,
    status: str = "ALTERNATIVE_STATUS_FINAL",
    input_tokens: str = "25",
    completion_tokens: str = "8",
    usage: dict[str, Any] | None = None,
    with_usage: bool = True,
) -> dict[str, Any]:
    """A /completion answer: note the token counts are strings, as Yandex sends int64.

    `usage` replaces the counts built from `input_tokens` and `completion_tokens`;
    `with_usage=False` leaves the block out (a server that reports none)."""
    if usage is None:
        usage = yandex_usage(prompt=int(input_tokens), completion=int(completion_tokens))
    result: dict[str, Any] = {
        "alternatives": [{"message": {"role": "assistant", "text": text}, "status": status}],
        "modelVersion": "23.10.2024",
    }
    if with_usage:
        result["usage"] = usage
    return {"result": result}


def yandex_stream(
    pieces: Sequence[str],
    *,
    finish: bool = True,
    input_tokens: str = "25",
    partial_usage: bool = True,
    separate_final: bool = False,
    final_usage: dict[str, Any] | None = None,
) -> list[str]:
    """Newline-delimited results, each carrying the whole text so far and the token counts
    so far (the completion count grows by one a piece).

    With `separate_final` the pieces are all partial and one more result, the text unchanged
    and final, ends the stream carrying `final_usage` (none when None): the shape of an
    answer whose last piece came before the model stopped. `partial_usage=False` sends no
    counts with the pieces.
    """
    lines = []
    text = ""
    for index, piece in enumerate(pieces):
        text += piece
        last = finish and not separate_final and index == len(pieces) - 1
        status = "ALTERNATIVE_STATUS_FINAL" if last else "ALTERNATIVE_STATUS_PARTIAL"
        result = yandex_result(
            text,
            status=status,
            input_tokens=input_tokens,
            completion_tokens=str(index + 1),
            with_usage=partial_usage or last,
        )
        lines.append(json.dumps(result, ensure_ascii=False) + "\n")
    if finish and separate_final:
        final = yandex_result(text, usage=final_usage, with_usage=final_usage is not None)
        lines.append(json.dumps(final, ensure_ascii=False) + "\n")
    return lines
