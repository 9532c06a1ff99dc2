"""Build the provider failover chain from environment variables (LLM_PROVIDERS and friends)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from core.env import EnvError, env_bool, env_float, env_int, env_text
from llmkit.failover import CircuitBreaker, FailoverChain
from llmkit.types import Provider

if TYPE_CHECKING:  # the rules module is imported only when the chain is built
    from llmkit.providers.rules import Responder

KNOWN_PROVIDERS = ("gigachat", "yandex", "openai", "local", "rules")
DEFAULT_PROVIDERS = "rules"


def _text(environ: Mapping[str, str], name: str) -> str | None:
    return env_text(name, environ=environ)


def _required(environ: Mapping[str, str], name: str, provider: str) -> str:
    value = env_text(name, environ=environ)
    if value is None:
        raise EnvError(
            f"LLM provider {provider!r} is listed in LLM_PROVIDERS but {name} is not set"
        )
    return value


def _gigachat(environ: Mapping[str, str]) -> Provider:
    from llmkit.providers.gigachat import DEFAULT_BASE_URL, DEFAULT_OAUTH_URL, GigaChatProvider

    return GigaChatProvider(
        auth_key=_required(environ, "GIGACHAT_AUTH_KEY", "gigachat"),
        scope=_text(environ, "GIGACHAT_SCOPE") or "GIGACHAT_API_PERS",
        model=_text(environ, "GIGACHAT_MODEL") or "GigaChat",
        base_url=_text(environ, "GIGACHAT_BASE_URL") or DEFAULT_BASE_URL,
        oauth_url=_text(environ, "GIGACHAT_OAUTH_URL") or DEFAULT_OAUTH_URL,
        ca_bundle=_text(environ, "GIGACHAT_CA_BUNDLE"),
    )


def _yandex(environ: Mapping[str, str]) -> Provider:
    from llmkit.providers.yandex import DEFAULT_BASE_URL, YandexGPTProvider

    folder_id = _required(environ, "YANDEX_FOLDER_ID", "yandex")
    api_key = _text(environ, "YANDEX_API_KEY")
    iam_token = _text(environ, "YANDEX_IAM_TOKEN")
    if api_key is None and iam_token is None:
        raise ValueError(
            "LLM provider 'yandex' is listed in LLM_PROVIDERS but neither YANDEX_API_KEY "
            "nor YANDEX_IAM_TOKEN is set"
        )
    return YandexGPTProvider(
        folder_id=folder_id,
        api_key=api_key,
        iam_token=iam_token,
        model=_text(environ, "YANDEX_MODEL") or "yandexgpt/latest",
        base_url=_text(environ, "YANDEX_BASE_URL") or DEFAULT_BASE_URL,
    )


def _openai(environ: Mapping[str, str]) -> Provider:
    from llmkit.providers.openai_compat import OpenAICompatProvider

    # No default URL or model: this one provider stands for OpenAI, vLLM, Ollama, llama.cpp
    # and more, and guessing which would send prompts somewhere nobody chose.
    return OpenAICompatProvider(
        _required(environ, "OPENAI_BASE_URL", "openai"),
        _text(environ, "OPENAI_API_KEY"),
        model=_required(environ, "OPENAI_MODEL", "openai"),
        # llama.cpp's server answers 500 to `json_schema`; it takes `json_object`.
        schema_format=_text(environ, "OPENAI_SCHEMA_FORMAT") or "json_schema",
    )


def _local(environ: Mapping[str, str]) -> Provider:
    # Imported only when selected: it loads llama_cpp, which a web process must not need.
    from llmkit.providers.local import LocalLlamaProvider

    return LocalLlamaProvider(
        _text(environ, "LOCAL_MODEL_PATH"),
        grammar=env_bool("LOCAL_MODEL_GRAMMAR", False, environ=environ),
        n_ctx=env_int("LOCAL_MODEL_N_CTX", 2048, positive=True, environ=environ),
    )


def _rules(environ: Mapping[str, str]) -> Provider:
    # Replaced in chain_from_env when the caller gives the rules agent a responder.
    from llmkit.providers.rules import RulesProvider

    return RulesProvider()


_BUILDERS: dict[str, Callable[[Mapping[str, str]], Provider]] = {
    "gigachat": _gigachat,
    "yandex": _yandex,
    "openai": _openai,
    "local": _local,
    "rules": _rules,
}


def provider_names(environ: Mapping[str, str]) -> list[str]:
    """The ordered provider names of LLM_PROVIDERS, with "rules" appended when missing."""
    raw = _text(environ, "LLM_PROVIDERS") or DEFAULT_PROVIDERS
    names = [part.strip().lower() for part in raw.split(",") if part.strip()]
    unknown = [name for name in names if name not in _BUILDERS]
    if unknown:
        raise ValueError(
            f"LLM_PROVIDERS names unknown provider(s) {', '.join(unknown)}; "
            f"known: {', '.join(KNOWN_PROVIDERS)}"
        )
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"LLM_PROVIDERS lists {', '.join(duplicates)} more than once")
    if "rules" not in names:
        names.append("rules")  # the last link that always answers: a briefing never stalls
    elif names[-1] != "rules":
        raise ValueError("LLM_PROVIDERS: 'rules' always answers, so it must be the last one")
    return names


def chain_from_env(
    environ: Mapping[str, str], *, rules_responder: Responder | None = None
) -> FailoverChain:
    """The failover chain the environment describes. Raises ValueError on any bad setting.

    `rules_responder` gives the rules agent its caller's logic (the briefing's stage
    questions); the rules agent is always the chain's last link."""
    names = provider_names(environ)
    budget_s = env_float("LLM_CALL_BUDGET_S", 100.0, positive=True, environ=environ)
    failures = env_int("LLM_BREAKER_FAILURES", 3, positive=True, environ=environ)
    cooldown_s = env_float("LLM_BREAKER_COOLDOWN_S", 30.0, positive=True, environ=environ)
    providers = [_BUILDERS[name](environ) for name in names]
    if rules_responder is not None:
        from llmkit.providers.rules import RulesProvider

        providers[-1] = RulesProvider(responder=rules_responder)
    breakers = [
        CircuitBreaker(failure_threshold=failures, cooldown_s=cooldown_s) for _ in providers
    ]
    return FailoverChain(providers, budget_s=budget_s, breakers=breakers)
