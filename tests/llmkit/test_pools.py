"""LLM_POOLS: parsing, pool members with variants, routing by complexity and escalation, and
the per-turn meter's caps."""

from __future__ import annotations

import pytest

from llmkit.pools import (
    DEFAULT_CALL_CAPS,
    TurnMeter,
    member_build,
    parse_levels,
    parse_pools,
    parse_routes,
    pools_from_env,
)
from llmkit.structured import Attempt, StructuredResult
from llmkit.types import Completion, ProviderError, Usage

SPEC = "fast=yandex-lite,gigachat-lite,local,rules; strong=gigachat-max,yandex-pro,rules"
KEYS = {
    "GIGACHAT_AUTH_KEY": "a2V5",
    "YANDEX_FOLDER_ID": "b1g",
    "YANDEX_API_KEY": "key",
}


def test_pools_keep_their_order_and_end_with_the_rules_agent():
    assert parse_pools(SPEC) == {
        "fast": ["yandex-lite", "gigachat-lite", "local", "rules"],
        "strong": ["gigachat-max", "yandex-pro", "rules"],
    }
    assert parse_pools("cheap=openai") == {"cheap": ["openai", "rules"]}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("fast=mistral", "unknown provider 'mistral'"),
        ("fast=rules,openai", "'rules' must be the last one"),
        ("fast=openai,openai", "lists a provider twice"),
        ("fast=openai; fast=local", "names the pool 'fast' twice"),
        ("fast", "is not name=provider"),
        (" ; ", "names no pool"),
        ("fast=rules-x", "no variants"),
    ],
)
def test_a_bad_pool_spec_says_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_pools(spec)


def test_known_variants_name_their_model_and_read_their_own_settings():
    environ = {**KEYS, "GIGACHAT_MODEL": "GigaChat", "YANDEX_PRO_MODEL": "yandexgpt/rc"}
    assert member_build("gigachat-max", environ).model == "GigaChat-Max"
    assert member_build("gigachat", environ).model == "GigaChat"
    assert member_build("yandex-lite", environ).model == "yandexgpt-lite/latest"
    assert member_build("yandex-pro", environ).model == "yandexgpt/rc"  # its own setting wins
    provider = member_build("yandex-lite", environ)
    assert provider.name == "yandex-lite"
    assert provider._http.provider == "yandex-lite"  # its errors name the member


def test_an_openai_variant_reads_its_own_url_and_falls_back_to_the_shared_key():
    environ = {
        "OPENAI_API_KEY": "shared",
        "OPENAI_FAST_BASE_URL": "http://127.0.0.1:1/v1",
        "OPENAI_FAST_MODEL": "small",
    }
    provider = member_build("openai-fast", environ)
    assert (provider.base_url, provider.model, provider.api_key) == (
        "http://127.0.0.1:1/v1",
        "small",
        "shared",
    )
    with pytest.raises(ValueError, match="OPENAI_BASE_URL is not set"):
        member_build("openai-strong", environ)


def test_without_llm_pools_there_are_none():
    assert pools_from_env({}) is None


def test_complexity_picks_the_pool_and_an_escalation_raises_it():
    pools = pools_from_env({**KEYS, "LLM_POOLS": "fast=yandex-lite; strong=gigachat-max"})
    assert list(pools.chains) == ["fast", "strong"]
    assert [p.name for p in pools.chains["strong"].providers] == ["gigachat-max", "rules"]
    simple = pools.route(complexity="simple")
    assert (simple.pool, simple.max_calls, simple.reasons) == ("fast", 4, ("complexity:simple",))
    assert pools.route(complexity="medium").pool == "fast"
    assert pools.route(complexity="medium").max_calls == 6
    assert pools.route(complexity="complex").pool == "strong"
    escalated = pools.route(complexity="simple", escalations=["producer_switch", "complaint"])
    assert escalated.pool == "strong"
    assert escalated.max_calls == 8  # an expert case gets the complex level's caps
    assert escalated.reasons == ("complexity:simple", "complaint", "producer_switch")
    assert [p.name for p in pools.models_chain().providers] == ["yandex-lite"]


def test_routes_and_caps_are_configurable():
    pools = pools_from_env(
        {
            **KEYS,
            "LLM_POOLS": "fast=yandex-lite; mid=yandex-pro; strong=gigachat-max",
            "LLM_POOL_ROUTES": "medium=mid",
            "LLM_TURN_CALL_CAPS": "simple=2",
        }
    )
    assert pools.route(complexity="medium").pool == "mid"
    assert pools.route(complexity="simple").max_calls == 2
    with pytest.raises(ValueError, match="LLM_POOLS lacks"):
        parse_routes("complex=huge", ["fast"])
    with pytest.raises(ValueError, match="is not simple"):
        parse_levels("trivial=1", DEFAULT_CALL_CAPS, name="LLM_TURN_CALL_CAPS")
    with pytest.raises(ValueError, match="at least 1"):
        parse_levels("simple=0", DEFAULT_CALL_CAPS, name="LLM_TURN_CALL_CAPS")


def _result(*completions_or_errors) -> StructuredResult:
    result = StructuredResult("X", [])
    for item in completions_or_errors:
        attempt = Attempt(temperature=0.3)
        if isinstance(item, ProviderError):
            attempt.provider_error = item
        else:
            attempt.completion = item
        result.attempts.append(attempt)
    return result


def test_the_meter_counts_model_requests_and_output_tokens_not_the_rules_agent():
    pools = pools_from_env({**KEYS, "LLM_POOLS": "fast=yandex-lite"})
    meter = TurnMeter(pools.route(complexity="simple"))  # 4 calls, 1200 tokens
    meter.record(
        _result(
            Completion("{}", "yandex-lite", "m", Usage(completion_tokens=30)),
            Completion("x" * 400, "yandex-lite", "m"),  # no usage reported: ~chars / 4
        )
    )
    meter.record(_result(Completion("{}", "rules", "rules", Usage(completion_tokens=999))))
    assert (meter.calls, meter.output_tokens) == (2, 130)
    assert meter.allows()  # 2 used + a call with its retry = 4
    meter.record(_result(ProviderError("timeout", "slow")))
    assert not meter.allows()
    assert meter.capped == "calls"
    assert meter.max_tokens(400) == 400


def test_the_meter_stops_when_too_few_output_tokens_are_left():
    pools = pools_from_env(
        {**KEYS, "LLM_POOLS": "fast=yandex-lite", "LLM_TURN_TOKEN_CAPS": "simple=100"}
    )
    meter = TurnMeter(pools.route(complexity="simple"))
    meter.record(_result(Completion("{}", "yandex-lite", "m", Usage(completion_tokens=30))))
    assert meter.max_tokens(400) == 70
    assert meter.allows()
    meter.record(_result(Completion("{}", "yandex-lite", "m", Usage(completion_tokens=10))))
    assert not meter.allows()
    assert meter.capped == "output_tokens"
