"""Model pools (LLM_POOLS): named failover chains, the route a turn takes through them, and
the per-turn meter that caps its model calls and output tokens."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from core.env import env_float, env_int, env_text
from llmkit.failover import CircuitBreaker, FailoverChain
from llmkit.structured import StructuredResult
from llmkit.types import Provider

COMPLEXITIES = ("simple", "medium", "complex")
# Why a turn went to the escalation pool whatever its complexity.
ESCALATIONS = ("complaint", "gate_failed_twice", "producer_switch")
ROUTE_KEYS = ("simple", "medium", "complex", "escalated")

DEFAULT_CALL_CAPS = {"simple": 4, "medium": 6, "complex": 8}
DEFAULT_TOKEN_CAPS = {"simple": 1200, "medium": 2400, "complex": 4000}

# A pool member is a provider kind, optionally with a variant ("gigachat-max"): the variant
# reads its settings from <KIND>_<VARIANT>_<NAME> first, then from <KIND>_<NAME>. The
# well-known variants name their model without any setting.
KNOWN_VARIANT_MODELS = {
    ("gigachat", "lite"): "GigaChat",
    ("gigachat", "pro"): "GigaChat-Pro",
    ("gigachat", "max"): "GigaChat-Max",
    ("yandex", "lite"): "yandexgpt-lite/latest",
    ("yandex", "pro"): "yandexgpt/latest",
}
_MODEL_SETTING = {"gigachat": "GIGACHAT_MODEL", "yandex": "YANDEX_MODEL", "openai": "OPENAI_MODEL"}


class _VariantEnviron(Mapping[str, str]):
    """The environment as one variant's provider sees it: KIND_VARIANT_X stands for KIND_X."""

    def __init__(self, environ: Mapping[str, str], kind: str, variant: str) -> None:
        self._environ = environ
        self._prefix = f"{kind.upper()}_"
        self._variant_prefix = f"{kind.upper()}_{variant.upper().replace('-', '_')}_"
        self._defaults: dict[str, str] = {}
        model = KNOWN_VARIANT_MODELS.get((kind, variant))
        if model is not None and kind in _MODEL_SETTING:
            self._defaults[_MODEL_SETTING[kind]] = model

    def __getitem__(self, name: str) -> str:
        if name.startswith(self._prefix):
            own = self._variant_prefix + name[len(self._prefix) :]
            if (self._environ.get(own) or "").strip():
                return self._environ[own]
            if name in self._defaults:
                return self._defaults[name]
        return self._environ[name]

    def __iter__(self) -> Iterator[str]:
        return iter({*self._environ, *self._defaults})

    def __len__(self) -> int:
        return len({*self._environ, *self._defaults})


def _split_member(member: str) -> tuple[str, str]:
    from llmkit.config import KNOWN_PROVIDERS

    kind, _, variant = member.partition("-")
    if kind not in KNOWN_PROVIDERS:
        raise ValueError(
            f"LLM_POOLS names unknown provider {member!r}; a member is one of "
            f"{', '.join(KNOWN_PROVIDERS)}, optionally with a variant (gigachat-max)"
        )
    if kind == "rules" and variant:
        raise ValueError("LLM_POOLS: the rules agent has no variants")
    return kind, variant


def parse_pools(spec: str) -> dict[str, list[str]]:
    """`fast=yandex-lite,local,rules; strong=gigachat-max,rules` → ordered members per pool,
    in the order written (cheap pools first). The rules agent is appended where missing and
    must be last: it always answers."""
    pools: dict[str, list[str]] = {}
    for part in spec.split(";"):
        if not part.strip():
            continue
        name, equals, members_text = part.partition("=")
        name = name.strip().lower()
        if not equals or not name:
            raise ValueError(f"LLM_POOLS: {part.strip()!r} is not name=provider,provider")
        if name in pools:
            raise ValueError(f"LLM_POOLS names the pool {name!r} twice")
        members = [m.strip().lower() for m in members_text.split(",") if m.strip()]
        for member in members:
            _split_member(member)
        if len(set(members)) != len(members):
            raise ValueError(f"LLM_POOLS: pool {name!r} lists a provider twice")
        if "rules" in members and members[-1] != "rules":
            raise ValueError(f"LLM_POOLS: in pool {name!r}, 'rules' must be the last one")
        if "rules" not in members:
            members.append("rules")
        pools[name] = members
    if not pools:
        raise ValueError("LLM_POOLS is set but names no pool")
    return pools


def parse_levels(spec: str | None, default: Mapping[str, int], *, name: str) -> dict[str, int]:
    """`simple=4,medium=6,complex=8` (any level left out keeps its default)."""
    levels = dict(default)
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        level, equals, value = part.partition("=")
        level = level.strip().lower()
        if not equals or level not in COMPLEXITIES:
            raise ValueError(f"{name}: {part.strip()!r} is not simple|medium|complex=<number>")
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"{name}: {value.strip()!r} is not an integer") from None
        if number < 1:
            raise ValueError(f"{name}: {level} must be at least 1")
        levels[level] = number
    return levels


def parse_routes(spec: str | None, pools: Sequence[str]) -> dict[str, str]:
    """Which pool serves each complexity and the escalations. By default the first pool
    (the cheap one) serves simple and medium messages, the last complex and escalated ones."""
    routes = {
        "simple": pools[0],
        "medium": pools[0],
        "complex": pools[-1],
        "escalated": pools[-1],
    }
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        key, equals, pool = part.partition("=")
        key, pool = key.strip().lower(), pool.strip().lower()
        if not equals or key not in routes:
            raise ValueError(
                f"LLM_POOL_ROUTES: {part.strip()!r} is not simple|medium|complex|escalated=<pool>"
            )
        if pool not in pools:
            raise ValueError(f"LLM_POOL_ROUTES sends {key} to {pool!r}, which LLM_POOLS lacks")
        routes[key] = pool
    return routes


def member_build(member: str, environ: Mapping[str, str]) -> Provider:
    """One pool member's provider, named after the member (the ledger and the events show
    "gigachat-max", not "gigachat")."""
    from llmkit.config import _BUILDERS

    kind, variant = _split_member(member)
    provider = _BUILDERS[kind](_VariantEnviron(environ, kind, variant) if variant else environ)
    provider.name = member
    http = getattr(provider, "_http", None)
    if http is not None:
        http.provider = member  # its errors name the member too
    return provider


@dataclass(frozen=True)
class Route:
    """Which pool serves a turn, why, and what it may spend."""

    pool: str
    complexity: str
    reasons: tuple[str, ...]
    max_calls: int
    max_output_tokens: int

    @property
    def escalated(self) -> bool:
        return any(reason in ESCALATIONS for reason in self.reasons)

    def as_meta(self) -> dict[str, object]:
        return {
            "pool": self.pool,
            "complexity": self.complexity,
            "reasons": list(self.reasons),
            "max_calls": self.max_calls,
            "max_output_tokens": self.max_output_tokens,
        }


@dataclass
class PoolSet:
    """The configured pools (each its own failover chain) and how turns are routed."""

    chains: dict[str, FailoverChain]
    routes: dict[str, str]
    call_caps: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_CALL_CAPS))
    token_caps: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_TOKEN_CAPS))

    def route(self, *, complexity: str, escalations: Sequence[str] = ()) -> Route:
        """The pool for a message of this complexity; any escalation raises it to the
        escalation pool and the complex level's caps."""
        if complexity not in COMPLEXITIES:
            complexity = "medium"
        escalations = tuple(e for e in ESCALATIONS if e in escalations)
        level = "complex" if escalations else complexity
        pool = self.routes["escalated"] if escalations else self.routes[complexity]
        return Route(
            pool=pool,
            complexity=complexity,
            reasons=(f"complexity:{complexity}", *escalations),
            max_calls=self.call_caps[level],
            max_output_tokens=self.token_caps[level],
        )

    def models_chain(self) -> FailoverChain | None:
        """The first (cheapest) pool's models without the rules agent, sharing the pool's
        circuit breakers: level 1's model is asked through it. None when that pool has no
        model (the rules agent cannot classify)."""
        first = next(iter(self.chains.values()))
        links = [
            (provider, breaker)
            for provider, breaker in zip(first.providers, first.breakers, strict=True)
            if provider.name not in FREE_PROVIDERS
        ]
        if not links:
            return None
        providers, breakers = zip(*links, strict=True)
        return FailoverChain(providers, budget_s=first.budget_s, breakers=breakers)

    @property
    def first_pool(self) -> str:
        return next(iter(self.chains))


def pools_from_env(
    environ: Mapping[str, str], *, rules_provider: Provider | None = None
) -> PoolSet | None:
    """The pools LLM_POOLS describes, or None when it is not set (one chain, LLM_PROVIDERS,
    serves every turn). Raises ValueError on any bad setting. `rules_provider` replaces
    every pool's last link (the rules agent with its caller's logic)."""
    spec = env_text("LLM_POOLS", environ=environ)
    if spec is None:
        return None
    pools = parse_pools(spec)
    budget_s = env_float("LLM_CALL_BUDGET_S", 100.0, positive=True, environ=environ)
    failures = env_int("LLM_BREAKER_FAILURES", 3, positive=True, environ=environ)
    cooldown_s = env_float("LLM_BREAKER_COOLDOWN_S", 30.0, positive=True, environ=environ)
    chains: dict[str, FailoverChain] = {}
    for name, members in pools.items():
        providers = [member_build(member, environ) for member in members]
        if rules_provider is not None:
            providers[-1] = rules_provider
        breakers = [CircuitBreaker(failures, cooldown_s) for _ in providers]
        chains[name] = FailoverChain(providers, budget_s=budget_s, breakers=breakers)
    names = list(chains)
    return PoolSet(
        chains=chains,
        routes=parse_routes(env_text("LLM_POOL_ROUTES", environ=environ), names),
        call_caps=parse_levels(
            env_text("LLM_TURN_CALL_CAPS", environ=environ),
            DEFAULT_CALL_CAPS,
            name="LLM_TURN_CALL_CAPS",
        ),
        token_caps=parse_levels(
            env_text("LLM_TURN_TOKEN_CAPS", environ=environ),
            DEFAULT_TOKEN_CAPS,
            name="LLM_TURN_TOKEN_CAPS",
        ),
    )


# --- the per-turn meter ---------------------------------------------------------------------

# The rules agent is no model: its answers cost nothing and count against no cap.
FREE_PROVIDERS = frozenset({"rules"})
# Below this many output tokens left a stage answer cannot be written: the cap is reached.
MIN_ANSWER_TOKENS = 64


@dataclass
class TurnMeter:
    """What one turn has spent against its route's caps: model requests (a structured call's
    retry is a second one; a request that failed and fell over is one too) and output
    tokens (as reported, else estimated from the answer's length)."""

    route: Route
    calls: int = 0
    output_tokens: int = 0
    capped: str | None = None  # "calls" or "output_tokens" once a call was refused

    def allows(self, *, calls_needed: int = 2) -> bool:
        """May one more structured call start? It needs room for its retry (two requests)
        and for a short answer; when not, the reason is kept in `capped`."""
        if self.calls + calls_needed > self.route.max_calls:
            self.capped = "calls"
            return False
        if self.route.max_output_tokens - self.output_tokens < MIN_ANSWER_TOKENS:
            self.capped = "output_tokens"
            return False
        return True

    def max_tokens(self, wanted: int) -> int:
        """The most output tokens the next call may ask for."""
        return max(min(wanted, self.route.max_output_tokens - self.output_tokens), 1)

    def record(self, result: StructuredResult) -> None:
        """Count a structured call's requests: each answered by a model, and each that
        failed with no answer at all (the chain had nothing left)."""
        for attempt in result.attempts:
            completion = attempt.completion
            if completion is None:
                self.calls += 1 if attempt.provider_error is not None else 0
                continue
            if completion.provider in FREE_PROVIDERS:
                continue
            self.calls += 1
            reported = completion.usage.completion_tokens
            self.output_tokens += reported or max(len(completion.text) // 4, 1)

    def as_meta(self) -> dict[str, object]:
        return {**self.route.as_meta(), "calls": self.calls, "output_tokens": self.output_tokens,
                "capped": self.capped}  # fmt: skip
