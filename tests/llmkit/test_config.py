"""chain_from_env: provider order, per-provider variables, budget and breaker settings, errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from llmkit.config import chain_from_env, provider_names
from llmkit.providers.gigachat import GigaChatProvider
from llmkit.providers.openai_compat import OpenAICompatProvider
from llmkit.providers.rules import RulesProvider
from llmkit.providers.yandex import YandexGPTProvider
from tests.llmkit.wire_servers import make_test_certificates

REPO_ROOT = Path(__file__).resolve().parents[2]

FULL_ENV = {
    "LLM_PROVIDERS": "gigachat, Yandex,openai,local",
    "GIGACHAT_AUTH_KEY": "Z2lnYQ==",
    "GIGACHAT_SCOPE": "GIGACHAT_API_CORP",
    "GIGACHAT_MODEL": "GigaChat-2-Pro",
    "GIGACHAT_BASE_URL": "https://giga.example/api/v1",
    "GIGACHAT_OAUTH_URL": "https://ngw.example/api/v2/oauth",
    "YANDEX_FOLDER_ID": "b1gfolder",
    "YANDEX_IAM_TOKEN": "t1.iam",
    "YANDEX_MODEL": "yandexgpt-lite/latest",
    "YANDEX_BASE_URL": "https://llm.gateway.example/foundationModels/v1/",
    "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1",
    "OPENAI_MODEL": "smollm2",
    "OPENAI_SCHEMA_FORMAT": "json_object",
    "LOCAL_MODEL_PATH": "/models/x.gguf",
    "LOCAL_MODEL_GRAMMAR": "true",
    "LOCAL_MODEL_N_CTX": "4096",
    "LLM_CALL_BUDGET_S": "45.5",
    "LLM_BREAKER_FAILURES": "5",
    "LLM_BREAKER_COOLDOWN_S": "12",
}


class FakeLocalProvider:
    def __init__(self, model_path=None, *, grammar=False, n_ctx=2048):
        self.name, self.model = "local", "fake-local"
        self.model_path, self.grammar, self.n_ctx = model_path, grammar, n_ctx

    def chat(self, messages, **kwargs):
        raise NotImplementedError


@pytest.fixture(autouse=True)
def fake_model_modules(monkeypatch):
    """A stand-in for the local module: this tests the wiring without loading a model."""
    local = types.ModuleType("llmkit.providers.local")
    local.LocalLlamaProvider = FakeLocalProvider
    monkeypatch.setitem(sys.modules, "llmkit.providers.local", local)


def test_without_settings_the_chain_is_the_rules_agent_alone():
    chain = chain_from_env({})
    assert [p.name for p in chain.providers] == ["rules"]
    assert chain.budget_s == 100.0
    assert chain.providers[0].needs_budget is False


def test_full_environment_builds_the_ordered_chain_with_rules_last():
    chain = chain_from_env(FULL_ENV)

    giga, yandex, openai, local, rules = chain.providers
    assert [p.name for p in chain.providers] == ["gigachat", "yandex", "openai", "local", "rules"]
    assert isinstance(giga, GigaChatProvider)
    assert (giga.auth_key, giga.scope, giga.model) == (
        "Z2lnYQ==",
        "GIGACHAT_API_CORP",
        "GigaChat-2-Pro",
    )
    assert (giga.base_url, giga.oauth_url) == (
        "https://giga.example/api/v1",
        "https://ngw.example/api/v2/oauth",
    )
    assert isinstance(yandex, YandexGPTProvider)
    assert (yandex.iam_token, yandex.api_key) == ("t1.iam", None)
    assert yandex.model_uri == "gpt://b1gfolder/yandexgpt-lite/latest"
    assert yandex.base_url == "https://llm.gateway.example/foundationModels/v1"
    assert isinstance(openai, OpenAICompatProvider)
    assert (openai.base_url, openai.model, openai.api_key) == (
        "http://127.0.0.1:8080/v1",
        "smollm2",
        None,
    )
    assert openai.schema_format == "json_object"
    assert isinstance(local, FakeLocalProvider)
    assert (local.model_path, local.grammar, local.n_ctx) == ("/models/x.gguf", True, 4096)
    assert isinstance(rules, RulesProvider)
    assert chain.budget_s == 45.5
    assert {(b.failure_threshold, b.cooldown_s) for b in chain.breakers} == {(5, 12.0)}


def test_defaults_for_optional_variables():
    chain = chain_from_env(
        {
            "LLM_PROVIDERS": "gigachat,yandex,local",
            "GIGACHAT_AUTH_KEY": "k",
            "YANDEX_FOLDER_ID": "f",
            "YANDEX_API_KEY": "key",
        }
    )
    giga, yandex, local, _rules = chain.providers
    assert (giga.scope, giga.model) == ("GIGACHAT_API_PERS", "GigaChat")
    assert giga.base_url == "https://gigachat.devices.sberbank.ru/api/v1"
    assert yandex.model_uri == "gpt://f/yandexgpt/latest"
    assert yandex.base_url == "https://llm.api.cloud.yandex.net/foundationModels/v1"
    assert (local.model_path, local.grammar, local.n_ctx) == (None, False, 2048)
    assert {(b.failure_threshold, b.cooldown_s) for b in chain.breakers} == {(3, 30.0)}


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({"LLM_PROVIDERS": "gigachat"}, "GIGACHAT_AUTH_KEY"),
        ({"LLM_PROVIDERS": "gigachat", "GIGACHAT_AUTH_KEY": "  "}, "GIGACHAT_AUTH_KEY"),
        ({"LLM_PROVIDERS": "yandex", "YANDEX_API_KEY": "k"}, "YANDEX_FOLDER_ID"),
        ({"LLM_PROVIDERS": "yandex", "YANDEX_FOLDER_ID": "f"}, "YANDEX_API_KEY"),
        ({"LLM_PROVIDERS": "yandex", "YANDEX_FOLDER_ID": "f"}, "YANDEX_IAM_TOKEN"),
        ({"LLM_PROVIDERS": "openai", "OPENAI_MODEL": "m"}, "OPENAI_BASE_URL"),
        ({"LLM_PROVIDERS": "openai", "OPENAI_BASE_URL": "http://x/v1"}, "OPENAI_MODEL"),
    ],
)
def test_a_listed_provider_without_its_variables_names_what_is_missing(env, missing):
    with pytest.raises(ValueError, match=missing):
        chain_from_env(env)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"LLM_PROVIDERS": "gigachat,claude"}, "unknown provider.*claude"),
        ({"LLM_PROVIDERS": "rules,rules"}, "more than once"),
        ({"LLM_PROVIDERS": "rules,openai"}, "last"),
        ({"LOCAL_MODEL_GRAMMAR": "yes", "LLM_PROVIDERS": "local"}, "LOCAL_MODEL_GRAMMAR"),
        ({"LOCAL_MODEL_N_CTX": "2k", "LLM_PROVIDERS": "local"}, "LOCAL_MODEL_N_CTX"),
        ({"LLM_CALL_BUDGET_S": "soon"}, "LLM_CALL_BUDGET_S"),
        ({"LLM_CALL_BUDGET_S": "0"}, "LLM_CALL_BUDGET_S"),
        ({"LLM_BREAKER_FAILURES": "2.5"}, "LLM_BREAKER_FAILURES"),
        ({"LLM_BREAKER_COOLDOWN_S": "-1"}, "LLM_BREAKER_COOLDOWN_S"),
        (
            {"LLM_PROVIDERS": "gigachat", "GIGACHAT_AUTH_KEY": "k", "GIGACHAT_SCOPE": "FREE"},
            "GIGACHAT_API_PERS",
        ),
    ],
)
def test_bad_settings_are_clear_errors(env, message):
    with pytest.raises(ValueError, match=message):
        chain_from_env(env)


def test_a_rules_responder_is_given_to_the_last_link():
    def responder(turn):
        return {"message": "stage question"}

    chain = chain_from_env({}, rules_responder=responder)
    assert isinstance(chain.providers[-1], RulesProvider)
    assert chain.providers[-1].responder is responder


def test_rules_is_appended_only_when_absent():
    assert provider_names({"LLM_PROVIDERS": "openai"}) == ["openai", "rules"]
    assert provider_names({"LLM_PROVIDERS": "openai,rules"}) == ["openai", "rules"]
    assert provider_names({"LLM_PROVIDERS": " , "}) == ["rules"]


def test_gigachat_ca_bundle_must_exist_and_is_used(tmp_path):
    env = {"LLM_PROVIDERS": "gigachat", "GIGACHAT_AUTH_KEY": "k"}
    with pytest.raises(ValueError, match="does not exist"):
        chain_from_env({**env, "GIGACHAT_CA_BUNDLE": str(tmp_path / "russian_trusted_root_ca.cer")})
    certificates = make_test_certificates(tmp_path)
    if certificates is None:
        pytest.skip("the openssl command is needed to issue a test CA")
    chain = chain_from_env({**env, "GIGACHAT_CA_BUNDLE": str(certificates.ca_cert)})
    assert isinstance(chain.providers[0], GigaChatProvider)


def test_building_a_chain_without_local_does_not_import_llama_cpp():
    # A fresh interpreter: other tests in this process may have loaded llama_cpp already.
    script = textwrap.dedent(
        """
        import sys
        from llmkit.config import chain_from_env
        chain = chain_from_env({"LLM_PROVIDERS": "openai,gigachat",
                                "OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_MODEL": "m",
                                "GIGACHAT_AUTH_KEY": "k"})
        assert [p.name for p in chain.providers] == ["openai", "gigachat", "rules"]
        unwanted = ("llama_cpp", "llmkit.providers.local", "django")
        loaded = sorted(m for m in sys.modules if m.startswith(unwanted))
        print("LOADED", loaded)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout
