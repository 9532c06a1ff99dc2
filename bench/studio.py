"""Benchmark of the studio tools and memory over a 30-turn conversation with a returning
client: estimated prompt tokens per turn, whether the client snapshot block stays
byte-identical across turns and across a rebuild on another day, the share of prompt tokens
in the cacheable prefix, and the tool calls made and served from the per-turn cache.

    python -m bench.studio

Runs on PostgreSQL (BENCH_STUDIO_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
briefing_bench_studio; created if missing and emptied first) with the rules agent.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from pathlib import Path

import yaml

from bench.django_setup import bench_django_setup

BENCH_DB = os.environ.get(
    "BENCH_STUDIO_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/briefing_bench_studio"
)
EXAMPLE = Path(__file__).resolve().parents[1] / "briefing" / "examples" / "ru_studio_answers.yaml"
ANSWERS = [step["client"] for step in yaml.safe_load(EXAMPLE.read_text("utf-8"))["turns"]]
# The returning client of the example, hesitating before most answers: 30 client turns.
CONVERSATION = [ANSWERS[0]]
for index, answer in enumerate(ANSWERS[1:]):
    if len(CONVERSATION) + (len(ANSWERS) - 1 - index) < 30:
        CONVERSATION.append("Хм, пока не знаю")
    if len(CONVERSATION) + (len(ANSWERS) - 1 - index) < 30:
        CONVERSATION.append("Секунду, уточню у коллег")
    CONVERSATION.append(answer)


def main() -> None:
    bench_django_setup(BENCH_DB)
    import logging

    from celery import current_app
    from django.db import transaction
    from django.utils import timezone

    from briefing.models import BriefingEvent, Project
    from briefing.services import project_create, turn_receive
    from dlq.models import StructuredCall
    from studio.memory import SNAPSHOT_HEAD, snapshot_for_profile, snapshots_rebuild
    from studio.services import studio_demo_load

    current_app.conf.task_always_eager = True
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    studio_demo_load(today=timezone.localdate())
    earlier = project_create(title="Весенний ролик", language="ru")
    Project.objects.filter(pk=earlier.pk).update(
        status=Project.Status.COMPLETED,
        completed_at=datetime.datetime(2026, 5, 3, tzinfo=datetime.UTC),
        profile={"intro": {"clientName": "Олег Кравцов", "company": "Полярная Ягода",
                           "contact": "oleg@polar-berry.ru"},
                 "vision": {"productName": "Клюквенный Север"},
                 "service": {"contentType": "Рекламный ролик"},
                 "budget": {"budget": 650000, "currency": "RUB", "deadline": "2026-06-01"}},
    )  # fmt: skip
    snapshots_rebuild()

    project = project_create(title="Морсы", language="ru")
    rows, digests = [], set()
    cacheable = total = 0
    rebuilt_identical = None
    for number, text in enumerate(CONVERSATION, start=1):
        if number == len(CONVERSATION):
            # Another day's rebuild before the briefing completes (no new data yet).
            snapshots_rebuild()
            rebuilt = snapshot_for_profile(project.profile or {})
            rebuilt_identical = hashlib.sha256(rebuilt.encode()).hexdigest() in digests
        with transaction.atomic():
            turn = turn_receive(project=project, text=text)
        calls = list(StructuredCall.objects.filter(source_id=str(turn.pk)).order_by("id"))
        for call in calls:
            cacheable += call.cacheable_tokens_estimate
            total += call.prompt_tokens_estimate
        project.refresh_from_db()
        snapshot = snapshot_for_profile(project.profile or {})
        if snapshot:
            digests.add(hashlib.sha256(snapshot.encode()).hexdigest())
        first = calls[0] if calls else None
        rows.append((number, first.prompt_tokens_estimate if first else 0,
                     first.cacheable_tokens_estimate if first else 0, bool(snapshot)))  # fmt: skip
    events = BriefingEvent.objects.filter(project=project, kind=BriefingEvent.Kind.TOOL_CALLED)
    tool_calls = [e.data for e in events]
    print(f"(a) estimated prompt tokens per client turn, {len(CONVERSATION)} turns "
          f"(the stage call that answered it), status {project.status}")  # fmt: skip
    print(f"    {'turn':>4} {'prompt':>7} {'cacheable':>10} {'snapshot':>9}")
    for number, prompt, prefix, has_snapshot in rows:
        if number in {1, 2, 5, 10, 15, 20, 25, 30} or number == len(rows):
            print(f"    {number:>4} {prompt:>7} {prefix:>10} {'yes' if has_snapshot else 'no':>9}")
    with_snapshot = [p for _, p, _, s in rows if s and p]
    print(f"    with the snapshot: min {min(with_snapshot)}, max {max(with_snapshot)} tokens")
    print(f"(b) snapshot block: {len(digests)} distinct rendering(s) over the conversation; "
          f"identical after another day's rebuild: {rebuilt_identical}; "
          f"starts with {SNAPSHOT_HEAD[:40]!r}")  # fmt: skip
    print(f"(c) share of prompt tokens in the cacheable prefix: {100 * cacheable / total:.1f}% "
          f"({cacheable} of {total}, all calls)")  # fmt: skip
    cached = sum(1 for c in tool_calls if c["cached"])
    print(f"(d) tool calls: {len(tool_calls)} ({', '.join(c['name'] for c in tool_calls)}), "
          f"served from the per-turn cache: {cached}")  # fmt: skip


if __name__ == "__main__":
    main()
