"""Benchmark of the briefing engine: orchestration overhead per turn (level 1 included),
prompt size of the staged design against one monolithic prompt, and the cacheable share of
prompt tokens. Its "sizing" line (turns per second per worker process) is the figure
docs/operations.md sizes workers by.

    python -m bench.turns [--briefings 20]

Runs on PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
briefing_bench; the database is created if missing and emptied first) with the rules
agent, turns processed in process through the real task code.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import yaml

from bench.django_setup import bench_django_setup, percentile

BENCH_DB = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/briefing_bench")

# The orderly Russian client of the example conversations, then the same client
# hesitating ("пока не знаю" is no answer: the agent asks again) before every answer but
# the last, twice before the first four: a 30-turn conversation.
EXAMPLE = Path(__file__).resolve().parents[1] / "briefing" / "examples" / "ru_orderly.yaml"
ORDERLY = [step["client"] for step in yaml.safe_load(EXAMPLE.read_text("utf-8"))["turns"]]
HESITANT = [ORDERLY[0]]
for index, answer in enumerate(ORDERLY[1:]):
    if index < 4:
        HESITANT.append("Не уверен, надо подумать")
    if index < len(ORDERLY) - 2:
        HESITANT.append("Хм, пока не знаю")
    HESITANT.append(answer)


def _setup_django() -> None:
    bench_django_setup(BENCH_DB)
    import logging

    from celery import current_app

    current_app.conf.task_always_eager = True
    # A line per task on the console would be measured with the turn.
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)


def _send(project, text):
    from django.db import transaction

    from briefing.services import turn_receive

    # Outside a test, on_commit runs at commit: the eager task processes the turn there.
    with transaction.atomic():
        return turn_receive(project=project, text=text)


def overhead(briefings: int) -> None:
    from django.db import connection

    import briefing.tasks
    from briefing.services import project_create
    from dlq.models import StructuredCall

    # Time the processing (claim → agent → gate → reply committed) apart from storing the
    # message: the task body is wrapped where the Celery task calls it.
    processing: list[float] = []
    drain = briefing.tasks.project_turns_drain

    # SQL statements per turn, counted on the connection: processing apart from storing.
    statements = [0]
    processing_statements: list[int] = []

    def count(execute, sql, params, many, context):
        statements[0] += 1
        return execute(sql, params, many, context)

    def timed_drain(**kwargs):
        before, counted = time.perf_counter(), statements[0]
        try:
            return drain(**kwargs)
        finally:
            processing.append(time.perf_counter() - before)
            processing_statements.append(statements[0] - counted)

    briefing.tasks.project_turns_drain = timed_drain
    per_turn_ms: list[float] = []
    processing_ms: list[float] = []
    worker_ms: list[float] = []  # processing with the rules agent's own time: a worker's share
    started = time.perf_counter()
    turns = 0
    per_turn_statements: list[int] = []
    for index in range(briefings):
        project = project_create(title=f"Bench {index}", language="ru")
        for text in ORDERLY:
            before, counted = time.perf_counter(), statements[0]
            with connection.execute_wrapper(count):
                turn = _send(project, text)
            elapsed_ms = (time.perf_counter() - before) * 1000
            per_turn_statements.append(statements[0] - counted)
            model_ms = sum(
                StructuredCall.objects.filter(source_id=str(turn.pk)).values_list(
                    "latency_ms", flat=True
                )
            )
            per_turn_ms.append(elapsed_ms - model_ms)
            worker_ms.append(processing.pop() * 1000)
            processing_ms.append(worker_ms[-1] - model_ms)
            turns += 1
        project.refresh_from_db()
        assert project.status == "completed", project.status
    wall = time.perf_counter() - started
    briefing.tasks.project_turns_drain = drain
    storing_ms = [total - work for total, work in zip(per_turn_ms, processing_ms, strict=True)]
    print(f"(a) orchestration overhead, rules agent on PostgreSQL: {turns} turns, "
          f"{briefings} complete briefings (model time excluded)")  # fmt: skip
    for label, values in (
        ("processing a turn (claim → reply committed)", processing_ms),
        ("storing the message (turn_receive)", storing_ms),
        ("both", per_turn_ms),
    ):
        print(f"    {label:<46} p50 {statistics.median(values):5.1f} ms, "
              f"p95 {percentile(values, 0.95):5.1f} ms")  # fmt: skip
    storing = [a - b for a, b in zip(per_turn_statements, processing_statements, strict=True)]
    for label, values in (
        ("processing a turn", processing_statements),
        ("storing the message", storing),
        ("both", per_turn_statements),
    ):
        print(f"    SQL statements, {label:<28} mean {statistics.mean(values):5.1f}, "
              f"max {max(values)} (target for processing: <= 10)")  # fmt: skip
    print(f"    {turns / wall:.1f} turns/s end to end, one process")
    # Sizing (docs/operations.md): a worker process runs one turn at a time, so its rate is
    # the inverse of the mean time a turn holds it (the task's body; the broker's hop is not
    # in it). With a real model, add the model's seconds per turn to that time.
    worker_mean_ms = statistics.mean(worker_ms)
    print(f"    sizing: {1000 / worker_mean_ms:.1f} turns/s per worker process with the rules "
          f"agent (a turn holds it {worker_mean_ms:.1f} ms on average, the agent's "
          f"{worker_mean_ms - statistics.mean(processing_ms):.1f} ms included); with a model: "
          f"1 / (its seconds per turn + {worker_mean_ms / 1000:.3f})")  # fmt: skip
    # Level 1 runs inside "processing a turn" above; its own share, message by message.
    from llmkit.level1 import classify

    classify(ORDERLY[0])  # the weights load once per process, before the first turn
    level1_ms = []
    for text in ORDERLY * briefings:
        before = time.perf_counter()
        classify(text)
        level1_ms.append((time.perf_counter() - before) * 1000)
    print(f"    {'of which level 1 (shipped classifier)':<46} p50 "
          f"{statistics.median(level1_ms):5.2f} ms, p95 {percentile(level1_ms, 0.95):5.2f} ms"
          f"  (target: processing p95 <= 25 ms with level 1 in the loop)")  # fmt: skip


def monolithic_tokens(history: list[tuple[str, str]], language: str) -> int:
    """One prompt holding every stage's instructions and schema and the whole history: what
    a single-agent design sends on every turn."""
    from briefing.stages.registry import stages_for
    from briefing.turn.context import CORE_RULES
    from llmkit.language import reply_language_block
    from llmkit.prompt import estimate_tokens, stable_json

    parts = [CORE_RULES]
    for spec in stages_for("production"):
        parts.append(f"Stage: {spec.title}\n{spec.prompt}")
        parts.append(stable_json(spec.answer_model.model_json_schema()))
    parts += [f"{role}: {text}" for role, text in history]
    parts.append(reply_language_block(language))
    return estimate_tokens("\n\n".join(parts))


def prompt_sizes() -> None:
    from briefing.services import project_create
    from dlq.models import StructuredCall

    project = project_create(title="Prompt sizes", language="ru")
    staged: list[int] = []
    monolithic: list[int] = []
    cacheable = total = 0
    for text in HESITANT:
        turn = _send(project, text)
        calls = list(StructuredCall.objects.filter(source_id=str(turn.pk)).order_by("id"))
        if not calls:
            continue  # answered by code alone (after completion): no prompt to size
        # The prompt that answered the client's message (a stage change adds an opening call).
        staged.append(calls[0].prompt_tokens_estimate)
        for call in calls:
            cacheable += call.cacheable_tokens_estimate
            total += call.prompt_tokens_estimate
        history = [(t.role, t.text) for t in project.turns.order_by("seq") if t.seq <= turn.seq]
        monolithic.append(monolithic_tokens(history, "ru"))
    project.refresh_from_db()
    n = len(staged)
    print(f"(b) estimated prompt tokens per turn over a {n}-turn conversation")
    print(f"    {'turn':>4} {'staged':>8} {'monolithic':>11}")
    for index in sorted({i for i in (1, 2, 5, 10, 15, 20, 25) if i <= n} | {n}):
        print(f"    {index:>4} {staged[index - 1]:>8} {monolithic[index - 1]:>11}")
    print(f"    staged turn {n} / turn 2: {staged[-1] / staged[1]:.2f}x; "
          f"monolithic: {monolithic[-1] / monolithic[1]:.2f}x")  # fmt: skip
    print(f"(c) share of prompt tokens in the cacheable prefix: {100 * cacheable / total:.1f}% "
          f"({cacheable} of {total}, all calls of that conversation)")  # fmt: skip
    assert project.status == "completed", project.status


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--briefings", type=int, default=20)
    args = parser.parse_args(argv)
    _setup_django()
    overhead(args.briefings)
    prompt_sizes()


if __name__ == "__main__":
    main()
