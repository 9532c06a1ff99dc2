"""The child process that holds a llama.cpp model for `LocalLlamaProvider`.

Run as `python -m llmkit.providers.local_worker MODEL_PATH N_CTX N_THREADS`. It speaks JSON
lines: requests on stdin (`{"op": "chat", "id", "kwargs", "schema"}` or
`{"op": "cancel", "id"}`), answers on stdout (`{"ready"}` once loaded, then per request
`{"id", "piece"}` per sampled token and one `{"id", "done", ...usage}` or
`{"id", "error": {"kind", "message"}}`). A native crash here (SIGILL, SIGSEGV) ends only this
process; the parent turns it into a provider error and starts a new one on the next call.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from collections.abc import Sequence
from typing import Any, TextIO


def _common_prefix_length(before: Sequence[int], after: Sequence[int]) -> int:
    length = 0
    for a, b in zip(before, after, strict=False):
        if a != b:
            break
        length += 1
    return length


class _Channel:
    """Protocol lines out on a private copy of stdout; anything a native library prints to
    fd 1 goes to stderr instead, so it can never corrupt the protocol."""

    def __init__(self) -> None:
        self._out: TextIO = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
        os.dup2(2, 1)
        self._lock = threading.Lock()

    def send(self, **message: Any) -> None:
        line = json.dumps(message, ensure_ascii=False)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()


class _Requests:
    """Reads stdin on a thread so a cancel can arrive while a request is generating."""

    def __init__(self) -> None:
        self.pending: queue.Queue[dict | None] = queue.Queue()
        self.cancelled: set[int] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            try:
                request = json.loads(line)
            except json.JSONDecodeError:
                continue
            if request.get("op") == "cancel":
                with self._lock:
                    self.cancelled.add(request["id"])
            else:
                self.pending.put(request)
        self.pending.put(None)  # the parent closed our stdin: exit

    def is_cancelled(self, request_id: int) -> bool:
        with self._lock:
            return request_id in self.cancelled

    def forget(self, request_id: int) -> None:
        with self._lock:
            self.cancelled.discard(request_id)


def _error_for(exc: Exception, n_ctx: int) -> dict[str, str]:
    message = str(exc)
    if isinstance(exc, ValueError) and "exceed context window" in message:
        return {
            "kind": "client",
            "message": f"the prompt does not fit the local model's context ({message}); "
            f"shorten the conversation or raise n_ctx (now {n_ctx})",
        }
    if isinstance(exc, ValueError):
        return {"kind": "bad_response", "message": f"llama.cpp rejected the request: {message}"}
    return {
        "kind": "bad_response",
        "message": f"llama.cpp failed while generating: {type(exc).__name__}: {message}",
    }


def _chat(llama: Any, request: dict, requests: _Requests, channel: _Channel, n_ctx: int) -> None:
    request_id = request["id"]
    kwargs = dict(request["kwargs"])
    if request.get("schema") is not None:
        from llama_cpp import LlamaGrammar

        # Built here rather than through response_format: llama-cpp-python silently falls
        # back to "any JSON" when the converter fails, and failover must know it was refused.
        try:
            kwargs["grammar"] = LlamaGrammar.from_json_schema(
                json.dumps(request["schema"]), verbose=False
            )
        except Exception as exc:
            channel.send(
                id=request_id,
                error={
                    "kind": "schema_rejected",
                    "message": f"llama.cpp cannot build a grammar from this JSON schema: {exc}",
                },
            )
            return
    tokens_before = list(llama.input_ids)
    completion_tokens = 0
    finish_reason = None
    cancelled = False
    try:
        chunks = llama.create_chat_completion(**kwargs, stream=True)
        try:
            for chunk in chunks:
                choice = chunk["choices"][0]
                finish_reason = choice.get("finish_reason") or finish_reason
                piece = choice["delta"].get("content") or ""
                if piece:
                    # One chunk per sampled token (multi-byte characters may merge a few).
                    completion_tokens += 1
                    channel.send(id=request_id, piece=piece)
                if requests.is_cancelled(request_id):
                    cancelled = True
                    break
        finally:
            # Closing the generator stops llama.cpp from sampling further tokens.
            chunks.close()
    except Exception as exc:
        channel.send(id=request_id, error=_error_for(exc, n_ctx))
        return
    finally:
        requests.forget(request_id)
    # Streamed chunks carry no usage. The context now holds the prompt and the generated
    # tokens fed back to the model: all of them when the model ended with its end token, all
    # but the last sampled one when the answer was cut short.
    ended_by_model = finish_reason == "stop" and not cancelled
    fed_back = completion_tokens if ended_by_model else completion_tokens - 1
    prompt_tokens = max(0, llama.n_tokens - max(fed_back, 0))
    # llama.cpp re-uses the KV cache for the prefix shared with the previous call (the stable
    # prompt blocks); it always re-evaluates at least the last prompt token.
    cached = min(
        _common_prefix_length(tokens_before, list(llama.input_ids)), max(prompt_tokens - 1, 0)
    )
    channel.send(
        id=request_id,
        done=True,
        prompt_tokens=prompt_tokens,
        cached_tokens=cached,
        completion_tokens=completion_tokens,
        finish_reason=finish_reason,
    )


def main(argv: Sequence[str]) -> int:
    model_path, n_ctx_text, n_threads_text = argv
    n_ctx = int(n_ctx_text)
    channel = _Channel()
    try:
        import llama_cpp

        llama = llama_cpp.Llama(
            model_path=model_path,
            n_ctx=n_ctx,
            n_threads=int(n_threads_text) if n_threads_text != "auto" else None,
            verbose=False,
        )
    except Exception as exc:
        channel.send(ready=False, error=f"could not load model {model_path}: {exc}")
        return 1
    channel.send(ready=True)
    requests = _Requests()
    while (request := requests.pending.get()) is not None:
        _chat(llama, request, requests, channel, n_ctx)
    llama.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
