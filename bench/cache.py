"""Benchmark of the real prompt-cache hit rate: the 18 development conversations played through
the real turn pipeline against a local server that caches prompt prefixes by each provider's
documented rule (tests/llmkit/caching_server.py), per provider and per stage.

    python -m bench.cache [--tokens words|chars4] [--stream] [--think-s 0]
                          [--cache-min-tokens N] [--no-studio] [--providers openai,gigachat]

The model behind the server is scripted: it answers each stage call with what the rules agent
answers for the same stage call (the bench hands it the StageCall the orchestrator built), and
in a tool step it calls the tool the client's message asks for (briefing.turn.tool_use's own
intents), so the conversations take the rules agent's course while every prompt goes over the
wire as a model's would. The studio's demo data is loaded (tools are offered) unless
--no-studio. Each provider gets its own server (OpenAI-compatible: one cache for the whole
organisation; GigaChat: per X-Session-ID, which the provider sends only on a structured call
whose stable prefix reaches LLM_CACHE_MIN_TOKENS estimated tokens, never on a tool step:
--cache-min-tokens overrides the setting). --think-s advances the server's clock before each
client message (entries live 300 s on OpenAI, the low end of its documented 5-10 minutes, and
30 s on GigaChat, as a gateway measured it); 0 plays the turns back to back.

The figure is the provider's bill: cached tokens over prompt tokens of every request the server
answered (stage answers, their retries, tool steps). "Without reported usage" counts the
requests whose usage did not reach the cost ledger (dlq.StructuredCall): the tool steps, whose
usage the pipeline does not keep, and calls recorded with no prompt tokens.

Runs on PostgreSQL (BENCH_CACHE_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
briefing_bench_cache; created if missing and emptied first).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from bench.django_setup import bench_django_setup

BENCH_DB = os.environ.get(
    "BENCH_CACHE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/briefing_bench_cache"
)
CORPUS = Path(__file__).resolve().parent / "corpus" / "conversations_dev"
PROVIDERS = ("openai", "gigachat")
OPENAI_TTL_S = 300.0
GIGACHAT_TTL_S = 30.0
_STAGE = re.compile(r"^Stage: (.+)$", re.MULTILINE)


def conversations() -> list[tuple[str, dict[str, Any]]]:
    return [(path.stem, yaml.safe_load(path.read_text("utf-8")))
            for path in sorted(CORPUS.glob("*.yaml"))]  # fmt: skip


class RulesMirror:
    """The scripted model: the rules agent's answer for the stage call in progress, a tool call
    where the client's message asks for one."""

    def __init__(self) -> None:
        self.call: Any = None  # the StageCall the orchestrator built last

    def __call__(self, request: Any) -> Any:
        from briefing.turn.dialogue import rules_reply
        from briefing.turn.tool_use import tool_intents
        from tests.llmkit.caching_server import ModelAnswer

        call = self.call
        if call is None:
            return ModelAnswer(text='{"message": ""}')
        if request.tool_names and not request.tool_results:
            last = call.turns[-1] if call.turns else ("", "")
            text = last[1] if last[0] == "client" else ""
            for name, args in tool_intents(text, language=call.language, profile=call.profile):
                if name in request.tool_names:
                    if name == "calendar_check":
                        args = {"deadline": args["deadline"]}  # the days: the tool's default
                    return ModelAnswer(tool_call=(name, args))
        return ModelAnswer(text=json.dumps(rules_reply(call), ensure_ascii=False, default=str))

    def attach(self) -> None:
        """Record every StageCall the orchestrator builds or runs (the turn's stage call)."""
        import briefing.turn.orchestrator as orchestrator

        built, run = orchestrator.StageCall, orchestrator.stage_agent_run

        def stage_call(*args: Any, **kwargs: Any) -> Any:
            self.call = built(*args, **kwargs)
            return self.call

        def stage_agent_run(call: Any, **kwargs: Any) -> Any:
            self.call = call
            return run(call, **kwargs)

        orchestrator.StageCall = stage_call
        orchestrator.stage_agent_run = stage_agent_run


def _kind(request: Any) -> str:
    if request.tool_names:
        return "tool step"
    messages = request.body.get("messages") or []
    return "retry" if any(m.get("role") == "assistant" for m in messages) else "answer"


def _stage(request: Any) -> str:
    found = _STAGE.search(request.system)
    return found.group(1) if found else "(other)"


def _share(cached: int, prompt: int) -> str:
    return f"{100 * cached / prompt:5.1f}%" if prompt else "    -"


def _row(label: str, calls: list[Any]) -> str:
    prompt = sum(c.prompt_tokens for c in calls)
    cached = sum(c.cached_tokens for c in calls)
    return f"    {label:<32} {len(calls):>5} {prompt:>9} {cached:>9} {_share(cached, prompt):>7}"


def play(provider: str, args: argparse.Namespace, mirror: RulesMirror) -> dict[str, Any]:
    """Play every conversation through `provider` behind its own caching server."""
    from django.db import transaction
    from django.db.models import Sum
    from django.db.models.functions import Coalesce

    from briefing.models import Project
    from briefing.services import project_create, turn_receive
    from dlq.ledger import briefing_session
    from dlq.models import StructuredCall
    from dlq.services import llm_chain
    from tests.llmkit.caching_server import CachingServer

    now = [0.0]
    with CachingServer(
        model=mirror, tokenizer=args.tokens, openai_ttl_s=OPENAI_TTL_S,
        gigachat_ttl_s=GIGACHAT_TTL_S, clock=lambda: now[0],
    ) as server:  # fmt: skip
        os.environ.update(
            LLM_PROVIDERS=provider, OPENAI_BASE_URL=server.openai_base_url,
            OPENAI_MODEL="scripted", GIGACHAT_AUTH_KEY="YmVuY2g6Y2FjaGU=",
            GIGACHAT_BASE_URL=server.gigachat_base_url,
            GIGACHAT_OAUTH_URL=server.gigachat_oauth_url, LLM_BREAKER_FAILURES="1000",
        )  # fmt: skip
        llm_chain.cache_clear()
        projects, starts = [], []
        for name, conversation in conversations():
            starts.append(len(server.calls))
            project = project_create(
                title=f"{provider}: {name}", language=conversation.get("language", "ru")
            )
            projects.append(project)
            for text in conversation["client"]:
                now[0] += args.think_s
                # Outside a test, on_commit runs at commit: the eager task processes the turn.
                with transaction.atomic():
                    turn_receive(project=project, text=text)
        llm_chain.cache_clear()
        served = list(server.calls)
        if server.errors:
            raise RuntimeError(f"the scripted model failed {len(server.errors)} time(s):\n"
                               f"{server.errors[0]}")  # fmt: skip
    sessions = [briefing_session(p.pk) for p in projects]
    ledger = StructuredCall.objects.filter(session__in=sessions, provider=provider)
    completed = Project.objects.filter(
        pk__in=[p.pk for p in projects], status=Project.Status.COMPLETED
    ).count()
    recorded = ledger.filter(prompt_tokens__gt=0).count()
    estimate = ledger.aggregate(
        cacheable=Coalesce(Sum("cacheable_tokens_estimate"), 0),
        prompt=Coalesce(Sum("prompt_tokens_estimate"), 0),
    )
    return {
        "served": served,
        "briefing_of": _briefing_of(len(served), starts),
        "completed": completed,
        "briefings": len(projects),
        "ledger_calls": ledger.count(),
        "ledger_with_usage": recorded,
        "failed": ledger.filter(outcome=StructuredCall.Outcome.FAILED).count(),
        "without_usage": max(len(served) - recorded, 0),
        "estimate": estimate,
    }


def _briefing_of(count: int, starts: list[int]) -> list[int]:
    """For each served call, the index of the conversation it belongs to."""
    ends = [*starts[1:], count]
    return [index for index, (a, b) in enumerate(zip(starts, ends, strict=True))
            for _ in range(a, b)]  # fmt: skip


def _within_briefing(calls: list[Any], briefing_of: list[int], tokens: str) -> int:
    """Cached tokens had the OpenAI cache held only the same briefing's earlier prefixes (no
    other conversation's): what a lone briefing, or a quiet hour, gets."""
    from tests.llmkit.caching_server import TOKENIZERS, OpenAIPrefixCache, request_text

    caches: dict[int, OpenAIPrefixCache] = defaultdict(OpenAIPrefixCache)
    tokenize = TOKENIZERS[tokens]
    return sum(
        caches[briefing].lookup_and_store(tokenize(request_text(call.request.body)))
        for call, briefing in zip(calls, briefing_of, strict=True)
    )


def _every_request_in_session(calls: list[Any], briefing_of: list[int], tokens: str) -> int:
    """Cached tokens had every GigaChat request carried its briefing's X-Session-ID (the
    provider sends it only on structured calls whose stable prefix reaches
    LLM_CACHE_MIN_TOKENS, never on a tool step)."""
    from tests.llmkit.caching_server import TOKENIZERS, SessionPrefixCache, request_text

    cache, tokenize = SessionPrefixCache(), TOKENIZERS[tokens]
    return sum(
        cache.lookup_and_store(tokenize(request_text(call.request.body)), str(briefing))
        for call, briefing in zip(calls, briefing_of, strict=True)
    )


def report(results: dict[str, dict[str, Any]], args: argparse.Namespace) -> None:
    from django.conf import settings

    tokens = {"words": "words and punctuation marks (llmkit.prompt.estimate_tokens)",
              "chars4": "4 characters"}[args.tokens]  # fmt: skip
    corpus = CORPUS.relative_to(CORPUS.parents[2])
    print(f"cache: {len(conversations())} conversations of {corpus} per "
          f"provider, studio demo data {'not ' if args.no_studio else ''}loaded, "
          f"LLM_STREAM={'true' if args.stream else 'false'}, "
          f"LLM_CACHE_MIN_TOKENS={settings.LLM_CACHE_MIN_TOKENS}, client think time "
          f"{args.think_s:g} s; a token is {tokens}")  # fmt: skip
    header = f"    {'':<32} {'calls':>5} {'prompt':>9} {'cached':>9} {'share':>7}"
    every: list[Any] = []
    without = 0
    for provider, result in results.items():
        served = result["served"]
        every += served
        without += result["without_usage"]
        print(f"{provider}: {result['completed']}/{result['briefings']} briefings completed; "
              f"ledger: {result['ledger_calls']} structured calls, {result['failed']} failed, "
              f"{result['ledger_with_usage']} with usage")  # fmt: skip
        estimate = result["estimate"]
        print(f"    the ledger's estimate (cacheable prefix / prompt, estimated tokens): "
              f"{_share(estimate['cacheable'], estimate['prompt']).strip()} "
              f"({estimate['cacheable']} of {estimate['prompt']})")  # fmt: skip
        print(header)
        print(_row("all", served))
        by_kind: dict[str, list[Any]] = defaultdict(list)
        by_stage: dict[str, list[Any]] = defaultdict(list)
        for call in served:
            by_kind[_kind(call.request)].append(call)
            by_stage[_stage(call.request)].append(call)
        for kind in ("answer", "retry", "tool step"):
            if by_kind.get(kind):
                print(_row(f"kind: {kind}", by_kind[kind]))
        for stage, calls in by_stage.items():
            print(_row(f"stage: {stage}", calls))
        if provider == "openai":
            alone = _within_briefing(served, result["briefing_of"], args.tokens)
            prompt = sum(c.prompt_tokens for c in served)
            first = [c for c, b in zip(served, result["briefing_of"], strict=True) if b == 0]
            print(_row("first briefing (cold cache)", first))
            print(f"    {'each briefing alone (own prefixes)':<32} {len(served):>5} {prompt:>9} "
                  f"{alone:>9} {_share(alone, prompt):>7}")  # fmt: skip
        if provider == "gigachat":
            sessions = sum(1 for call in served if call.session)
            print(f"    requests carrying X-Session-ID: {sessions} of {len(served)}")
            every_one = _every_request_in_session(served, result["briefing_of"], args.tokens)
            prompt = sum(c.prompt_tokens for c in served)
            print(f"    {'had every request its session':<32} {len(served):>5} {prompt:>9} "
                  f"{every_one:>9} {_share(every_one, prompt):>7}")  # fmt: skip
    prompt = sum(c.prompt_tokens for c in every)
    cached = sum(c.cached_tokens for c in every)
    share = 100 * cached / prompt if prompt else 0.0
    print(f"cache: {len(every)} calls, cached share of prompt tokens {share:.1f}% "
          f"({without} calls without reported usage)")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", choices=("words", "chars4"), default="words")
    parser.add_argument("--stream", action="store_true", help="LLM_STREAM=true")
    parser.add_argument("--think-s", type=float, default=0.0)
    parser.add_argument("--cache-min-tokens", type=int, default=None)
    parser.add_argument("--no-studio", action="store_true")
    parser.add_argument("--providers", default=",".join(PROVIDERS))
    args = parser.parse_args(argv)
    bench_django_setup(BENCH_DB, LLM_STREAM="true" if args.stream else "false")
    import logging

    from celery import current_app
    from django.conf import settings
    from django.core.management import call_command
    from django.utils import timezone

    from studio.services import studio_demo_load

    current_app.conf.task_always_eager = True
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    if args.cache_min_tokens is not None:
        settings.LLM_CACHE_MIN_TOKENS = args.cache_min_tokens
    mirror = RulesMirror()
    mirror.attach()
    results = {}
    for provider in args.providers.split(","):
        # The same world for each provider: no briefing (nor client memory) of the one before.
        call_command("flush", interactive=False, verbosity=0)
        if not args.no_studio:
            studio_demo_load(today=timezone.localdate())
        results[provider] = play(provider, args, mirror)
    report(results, args)


if __name__ == "__main__":
    main()
