"""A local model server with the providers' prefix caches: it speaks the OpenAI-compatible and
GigaChat chat completions wire formats, answers from a scripted model, and reports the cached
part of each prompt by the rule each provider documents.

The rules, as documented (and nothing more generous):
- OpenAI-compatible (OpenAI's automatic prompt caching): a prompt of fewer than 1,024 tokens
  is never cached; otherwise the cached part is the longest prefix computed before (by any
  earlier request: the cache belongs to the organisation, not to a conversation), counted in
  steps of 128 tokens from 1,024 (1,024, 1,152, 1,280, ...). What is tokenised, in order: the
  tool definitions, the structured-output schema, then the messages ("the entire request
  prefix is cacheable: messages, images, tools, structured output schema"). Reported as
  `usage.prompt_tokens_details.cached_tokens`.
- GigaChat: a prompt's prefix is reused only across requests that carry the same
  `X-Session-ID` header ("для повышения вероятности использования сохранённых токенов
  используйте кэширование запросов"); no minimum length and no step are documented, so the
  cached part is the longest common prefix with an earlier request of that session, token by
  token. A request without the header gets nothing cached. Reported as
  `usage.precached_prompt_tokens` (a part of `prompt_tokens`; `total_tokens` is what is billed,
  cached tokens are not).

Tokens are counted approximately: by default with the project's own estimate
(`llmkit.prompt.estimate_tokens`: a word or a punctuation mark is a token), or four characters
to a token (`tokenizer="chars4"`). Both overcount some texts and undercount others against a
real tokenizer; the rules above are applied to whichever is chosen.

A cache entry lives `ttl_s` after its last use (None: forever); OpenAI documents 5-10 minutes
of inactivity, GigaChat documents none (a gateway measured about 30 seconds)."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import traceback
import urllib.parse
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OPENAI_MIN_TOKENS = 1024
OPENAI_STEP_TOKENS = 128

# The same split as llmkit.prompt.estimate_tokens: words and punctuation marks.
_TOKENISH = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def tokens_words(text: str) -> list[str]:
    """The project's estimate (llmkit.prompt.estimate_tokens) as a token sequence."""
    return _TOKENISH.findall(text)


def tokens_chars4(text: str) -> list[str]:
    """Four characters to a token."""
    return [text[i : i + 4] for i in range(0, len(text), 4)]


TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "words": tokens_words,
    "chars4": tokens_chars4,
}


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def request_text(body: dict[str, Any]) -> str:
    """What the provider tokenises, in its order: tool definitions, the response schema, then
    every message (role, content, tool calls and results)."""
    parts = []
    for key in ("tools", "functions"):
        if body.get(key):
            parts.append(f"<|{key}|>{_dump(body[key])}")
    if body.get("response_format"):
        parts.append(f"<|response_format|>{_dump(body['response_format'])}")
    for message in body.get("messages") or []:
        parts.append(f"<|{message.get('role')}|>")
        content = message.get("content")
        if content:
            parts.append(content if isinstance(content, str) else _dump(content))
        for key in ("tool_calls", "function_call", "tool_call_id", "name"):
            if message.get(key):
                parts.append(_dump(message[key]))
    return "\n".join(parts)


def _block_digests(tokens: Sequence[str], step: int, first: int) -> list[tuple[int, bytes]]:
    """(length, digest of tokens[:length]) for length = first, first + step, ... <= len."""
    digests = []
    running = blake2b(digest_size=16)
    done = 0
    for length in range(first, len(tokens) + 1, step):
        running.update("\x00".join(tokens[done:length]).encode() + b"\x01")
        done = length
        digests.append((length, running.copy().digest()))
    return digests


class OpenAIPrefixCache:
    """OpenAI's automatic caching: the organisation's computed prefixes, in 128-token blocks
    from 1,024 tokens; a request is served the longest one it starts with."""

    def __init__(self, *, ttl_s: float | None = None, clock: Callable[[], float] = time.monotonic):
        self.ttl_s = ttl_s
        self.clock = clock
        self._seen: dict[bytes, float] = {}  # prefix digest -> last use

    def _alive(self, digest: bytes, now: float) -> bool:
        used = self._seen.get(digest)
        return used is not None and (self.ttl_s is None or now - used <= self.ttl_s)

    def lookup_and_store(self, tokens: Sequence[str]) -> int:
        """The cached tokens of this prompt; its prefixes are stored for the next ones."""
        now = self.clock()
        digests = _block_digests(tokens, OPENAI_STEP_TOKENS, OPENAI_MIN_TOKENS)
        cached = 0
        for length, digest in digests:
            if not self._alive(digest, now):
                break
            cached = length
        for _length, digest in digests:
            self._seen[digest] = now
        return cached


def common_prefix(first: Sequence[str], second: Sequence[str]) -> int:
    """How many tokens the two sequences share from their start."""
    shared = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        shared += 1
    return shared


class SessionPrefixCache:
    """GigaChat's caching: within one X-Session-ID, the longest common prefix with an earlier
    request, token by token; nothing without a session."""

    def __init__(self, *, ttl_s: float | None = None, clock: Callable[[], float] = time.monotonic):
        self.ttl_s = ttl_s
        self.clock = clock
        self._sessions: dict[str, list[tuple[float, list[str]]]] = {}

    def lookup_and_store(self, tokens: Sequence[str], session: str | None) -> int:
        if not session:
            return 0
        now = self.clock()
        earlier = [
            (used, seen)
            for used, seen in self._sessions.get(session, [])
            if self.ttl_s is None or now - used <= self.ttl_s
        ]
        cached = max((common_prefix(seen, tokens) for _, seen in earlier), default=0)
        self._sessions[session] = [*earlier, (now, list(tokens))]
        return cached


# --- the scripted model ----------------------------------------------------------------------


@dataclass(frozen=True)
class ModelRequest:
    """One chat completions request as the scripted model sees it."""

    provider: str  # "openai" | "gigachat"
    body: dict[str, Any]

    @property
    def tool_names(self) -> list[str]:
        """The tools offered (OpenAI `tools` or GigaChat `functions`)."""
        if self.body.get("tools"):
            return [t["function"]["name"] for t in self.body["tools"]]
        return [f["name"] for f in self.body.get("functions") or []]

    @property
    def tool_results(self) -> int:
        """How many tool results the request carries (earlier steps of a tool loop)."""
        return sum(
            1 for m in self.body.get("messages") or [] if m.get("role") in ("tool", "function")
        )

    @property
    def system(self) -> str:
        messages = self.body.get("messages") or []
        first = messages[0] if messages else {}
        return str(first.get("content") or "") if first.get("role") == "system" else ""


@dataclass(frozen=True)
class ModelAnswer:
    """Text, or one tool call (name, arguments)."""

    text: str = ""
    tool_call: tuple[str, dict[str, Any]] | None = None


def answer_ok(_request: ModelRequest) -> ModelAnswer:
    return ModelAnswer(text='{"message": "ok"}')


@dataclass
class ServedCall:
    """One request the server answered, with the usage it reported."""

    provider: str
    session: str | None
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    streamed: bool
    request: ModelRequest


# --- the server ------------------------------------------------------------------------------


class CachingServer:
    """Both providers' endpoints on one 127.0.0.1 port, each with its own cache:
    OpenAI-compatible at `openai_base_url` (POST /v1/chat/completions), GigaChat at
    `gigachat_base_url` (POST /api/v1/chat/completions) with its OAuth at `gigachat_oauth_url`.
    Every answered request is in `calls`."""

    def __init__(
        self,
        *,
        model: Callable[[ModelRequest], ModelAnswer] = answer_ok,
        tokenizer: str = "words",
        openai_ttl_s: float | None = None,
        gigachat_ttl_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model = model
        self.tokenize = TOKENIZERS[tokenizer]
        self.openai_cache = OpenAIPrefixCache(ttl_s=openai_ttl_s, clock=clock)
        self.gigachat_cache = SessionPrefixCache(ttl_s=gigachat_ttl_s, clock=clock)
        self.calls: list[ServedCall] = []
        self.errors: list[str] = []  # the scripted model's failures (each answered with a 500)
        self._lock = threading.Lock()  # one request at a time touches the caches
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.caching = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def gigachat_base_url(self) -> str:
        return f"{self.url}/api/v1"

    @property
    def gigachat_oauth_url(self) -> str:
        return f"{self.url}/api/v2/oauth"

    def __enter__(self) -> CachingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def serve(self, provider: str, body: dict[str, Any], session: str | None) -> dict[str, Any]:
        """Answer one chat completions request: the scripted model's answer and the usage,
        cached tokens by the provider's rule. Returns the pieces the wire format needs."""
        request = ModelRequest(provider, body)
        answer = self.model(request)
        tokens = self.tokenize(request_text(body))
        with self._lock:
            if provider == "openai":
                cached = self.openai_cache.lookup_and_store(tokens)
            else:
                cached = self.gigachat_cache.lookup_and_store(tokens, session)
            completion = len(self.tokenize(answer.text or _dump(answer.tool_call)))
            self.calls.append(
                ServedCall(provider, session, len(tokens), cached, completion,
                           bool(body.get("stream")), request)
            )  # fmt: skip
        return {"answer": answer, "prompt": len(tokens), "cached": cached, "completion": completion}


def openai_usage_block(prompt: int, cached: int, completion: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def gigachat_usage_block(prompt: int, cached: int, completion: int) -> dict[str, Any]:
    # Cached tokens are not billed: total_tokens is what is.
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt - cached + completion,
        "precached_prompt_tokens": cached,
    }


def _openai_message(answer: ModelAnswer) -> tuple[dict[str, Any], str]:
    if answer.tool_call is None:
        return {"role": "assistant", "content": answer.text, "refusal": None}, "stop"
    name, arguments = answer.tool_call
    call = {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
            "function": {"name": name, "arguments": _dump(arguments)}}  # fmt: skip
    return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"


def _gigachat_message(answer: ModelAnswer) -> tuple[dict[str, Any], str]:
    if answer.tool_call is None:
        return {"role": "assistant", "content": answer.text}, "stop"
    name, arguments = answer.tool_call
    message = {"role": "assistant", "content": "",
               "function_call": {"name": name, "arguments": arguments},
               "functions_state_id": str(uuid.uuid4())}  # fmt: skip
    return message, "function_call"


def _pieces(text: str, size: int = 16) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    caching: CachingServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A streaming client hangs up once it has the usage: not a failure worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        caching = self.server.caching  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = urllib.parse.urlsplit(self.path).path
        if path == "/api/v2/oauth":
            expires_at = int((time.time() + 1800) * 1000)  # Unix milliseconds, as Sber sends
            self._json({"access_token": "caching-token", "expires_at": expires_at})
            return
        provider = {"/v1/chat/completions": "openai", "/api/v1/chat/completions": "gigachat"}
        if path not in provider:
            self._json({"error": f"no route for {path}"}, status=404)
            return
        body = json.loads(raw or b"{}")
        session = self.headers.get("X-Session-ID") if provider[path] == "gigachat" else None
        try:
            served = caching.serve(provider[path], body, session)
        except Exception:
            caching.errors.append(traceback.format_exc())
            self._json({"error": {"message": "the scripted model failed"}}, status=500)
            return
        usage_of = openai_usage_block if provider[path] == "openai" else gigachat_usage_block
        usage = usage_of(served["prompt"], served["cached"], served["completion"])
        message_of = _openai_message if provider[path] == "openai" else _gigachat_message
        message, finish = message_of(served["answer"])
        if body.get("stream") and served["answer"].tool_call is None:
            self._stream(provider[path], message["content"], usage)
            return
        self._json(
            {
                "id": "chatcmpl-caching",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(body.get("model") or "scripted"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
        )

    def _json(self, payload: Any, status: int = 200) -> None:
        data = _dump(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, provider: str, text: str, usage: dict[str, Any]) -> None:
        """SSE as each provider sends it: OpenAI's usage in a chunk of its own after the
        last one (stream_options.include_usage), GigaChat's in the chunk that finishes."""

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "chatcmpl-caching", "object": "chat.completion.chunk",
                    "created": int(time.time()), "model": "scripted",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip

        events = [chunk({"role": "assistant", "content": piece}) for piece in _pieces(text)]
        last = chunk({"content": ""}, "stop")
        if provider == "openai":
            events += [last, {**chunk({}), "choices": [], "usage": usage}]
        else:
            events.append({**last, "usage": usage})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for event in [*(f"data: {_dump(e)}\n\n" for e in events), "data: [DONE]\n\n"]:
                data = event.encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            # A client that closes once the JSON object closed and stops waiting for usage.
            self.close_connection = True
