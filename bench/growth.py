"""Benchmark of growth: does every page and API list cost the same at 50,000 briefings as at
1,000?

    python -m bench.growth [--sizes 1000,10000,50000] [--repeat 5]

On PostgreSQL (DATABASE_URL; the database is created if missing and EMPTIED first, so its
name must contain "bench" unless --force) it builds, through the models and in bulk, for
each size in turn (growing from the previous one): briefings with 5 stages, 19 turns and 41
events each, about 100k recorded model calls per 1,000 briefings growing to ~1M at 50,000
(folded into the rollups as the beat would), 5 dead letters, 2 leads and 2.6 inbound messages
per briefing. At each size it requests every page and API list as a manager (and the
dashboard as a producer): the median latency of `--repeat` requests and the SQL queries of
one. Prints the table, the largest/smallest ratio per page, one `growth:` line, and the
sequential scans over tables of more than 10,000 rows in the plan of each page's slowest
query at the largest size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from decimal import Decimal
from urllib.parse import urlsplit

from bench.django_setup import bench_django_setup

TURNS, EVENTS, DEAD_LETTERS, LEADS, MESSAGES = 19, 41, 5, 2, 2.6
SEQ_SCAN_ROWS = 10_000
DAYS = 90
BATCH = 5_000
SCHEMAS = ["IntroAnswer", "VisionAnswer", "ServiceAnswer", "BudgetAnswer", "ExtraAnswer",
           "LeadCard", "Level1Verdict"]  # fmt: skip
EVENT_KINDS = ["turn_received", "agent_replied", "gate_held", "stage_started", "stage_closed",
               "prefill_filled", "language_detected"]  # fmt: skip


def calls_for(briefings: int) -> int:
    """Recorded model calls at a size: 100k at 1,000 briefings, ~1M at 50,000."""
    return round(100_000 * (briefings / 1000) ** 0.6)


# --- building the volumes ---------------------------------------------------------------------


def _sql(statement: str, params: list | None = None) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


def _spread(table: str, column: str, first_id: int, seconds: int = DAYS * 86400) -> None:
    """Give the rows from `first_id` on moments spread over the last `seconds` (auto_now_add
    set them all to now)."""
    moment = "now() - ((id * 7919) %% %s) * interval '1 second'"
    _sql(f"UPDATE {table} SET {column} = {moment} WHERE id >= %s", [seconds, first_id])  # noqa: S608


def _next_id(model) -> int:
    from django.db.models import Max

    return (model.objects.aggregate(top=Max("id"))["top"] or 0) + 1


def _users():
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    users = get_user_model().objects
    manager, made = users.get_or_create(username="bench-manager")
    if made:
        manager.groups.add(Group.objects.get(name="Managers"))
    producers = []
    for index in range(10):
        producer, made = users.get_or_create(username=f"bench-producer-{index}")
        if made:
            producer.groups.add(Group.objects.get(name="Producers"))
        producers.append(producer)
    return manager, producers


def _token():
    from api.models import SCOPES, ApiToken

    token = ApiToken(name="bench", scopes=list(SCOPES))
    secret = token.issue()
    token.save()
    return token, secret


def real_brief() -> tuple[dict, str]:
    """The brief and summary of one briefing played through the rules agent, which every
    bulk-made completed briefing gets (the API validates it)."""
    from django.db import transaction

    from bench.turns import ORDERLY
    from briefing.models import Project
    from briefing.services import project_create, turn_receive

    project = project_create(title="Played briefing", language="ru")
    for text in ORDERLY:
        with transaction.atomic():
            turn_receive(project=project, text=text)
    project = Project.objects.get(pk=project.pk)
    assert project.status == "completed", project.status
    return project.brief, project.summary_markdown


def grow(to: int, *, producers: list, token, rng: random.Random, brief: tuple[dict, str]) -> None:
    """Add briefings (with their stages, turns, events), calls, dead letters, leads and
    inbound messages until there are `to` briefings."""
    from django.utils import timezone

    from api.models import TokenProject
    from briefing.models import BriefingEvent, Project, StageRun, Turn
    from briefing.stages.registry import stages_for
    from crm.models import InboundMessage, Lead
    from dlq.models import DeadLetter, StructuredCall

    have = Project.objects.count()
    if have >= to:
        return
    new = to - have
    stage_keys = [spec.key for spec in stages_for("production")]
    fields = {f.name for f in Project._meta.get_fields()}
    first_project = _next_id(Project)
    now = timezone.now()
    for start in range(0, new, BATCH):
        count = min(BATCH, new - start)
        projects = []
        for index in range(count):
            number = have + start + index
            status = rng.choices(["completed", "active", "paused"], [80, 15, 5])[0]
            project = Project(
                title=f"Briefing {number}",
                client_name=f"Client {number}",
                language="ru",
                status=status,
                producer=producers[number % len(producers)],
                brief=brief[0] if status == "completed" else None,
                summary_markdown=brief[1] if status == "completed" else "",
                completed_at=now if status == "completed" else None,
            )
            if "last_seq" in fields:  # the stored last turn number
                project.last_seq = TURNS
            if "inbox_rank" in fields:  # the inbox's stored facts (issue 14)
                project.inbox_rank = 2 if status == "completed" else 1
                project.inbox_key = -number
                project.last_activity_at = now
                project.inbox_changed_at = now
            projects.append(project)
        projects = Project.objects.bulk_create(projects)
        TokenProject.objects.bulk_create(TokenProject(token=token, project=p) for p in projects)
        StageRun.objects.bulk_create(
            StageRun(
                project=p,
                key=key,
                order=order,
                status="closed" if p.status == "completed" else "pending",
                closed_at=now if p.status == "completed" else None,
                closed_by="agent" if p.status == "completed" else "",
            )
            for p in projects
            for order, key in enumerate(stage_keys)
        )
        Turn.objects.bulk_create(
            (
                Turn(
                    project=p,
                    seq=seq,
                    role="client" if seq % 2 else "agent",
                    text=f"Сообщение {seq} о проекте {p.pk}: видео для кофейни, бюджет 3 млн",
                    stage_key=stage_keys[min(seq // 4, 4)],
                    status="done",
                )
                for p in projects
                for seq in range(1, TURNS + 1)
            ),
            batch_size=BATCH,
        )
        BriefingEvent.objects.bulk_create(
            (
                BriefingEvent(project=p, kind=EVENT_KINDS[n % len(EVENT_KINDS)], data={})
                for p in projects
                for n in range(EVENTS)
            ),
            batch_size=BATCH,
        )
    # Every row of a briefing at the briefing's own moment, minutes apart.
    _spread("briefing_project", "created_at", first_project)
    _sql("UPDATE briefing_project SET updated_at = created_at + interval '1 hour',"
         " completed_at = CASE WHEN status = 'completed'"
         " THEN created_at + interval '1 hour' END WHERE id >= %s", [first_project])  # fmt: skip
    if "last_activity_at" in fields:
        _sql("UPDATE briefing_project SET last_activity_at = updated_at, inbox_changed_at ="
             " updated_at, inbox_key = -(extract(epoch FROM updated_at) * 1000000)::bigint"
             " WHERE id >= %s", [first_project])  # fmt: skip
    for table in ("briefing_turn", "briefing_briefingevent"):
        moment = "p.created_at + (t.id %% 50) * interval '1 minute'"
        joined = "FROM briefing_project p WHERE t.project_id = p.id AND p.id >= %s"
        _sql(f"UPDATE {table} t SET created_at = {moment} {joined}", [first_project])  # noqa: S608

    # Model calls, folded into the rollups as the beat would.
    first_call = _next_id(StructuredCall)
    calls = calls_for(to) - calls_for(have) if have else calls_for(to)
    project_ids = list(Project.objects.filter(pk__gte=first_project).values_list("pk", flat=True))
    for start in range(0, calls, BATCH):
        batch = []
        for _ in range(min(BATCH, calls - start)):
            project_id = rng.choice(project_ids)
            provider = rng.choices(["gigachat", "openai", "rules"], [50, 30, 20])[0]
            failover = rng.random() < 0.03
            batch.append(
                StructuredCall(
                    schema_name=rng.choice(SCHEMAS),
                    provider=provider,
                    providers=["openai", provider] if failover else [provider],
                    pool=rng.choice(["", "fast", "strong"]),
                    outcome=rng.choices(
                        ["fast", "extracted", "repaired", "coerced", "failed"], [80, 8, 6, 4, 2]
                    )[0],
                    retry_used=rng.random() < 0.08,
                    latency_ms=int(rng.lognormvariate(6.5, 0.8)),
                    prompt_tokens=rng.randrange(300, 3000),
                    cached_tokens=rng.randrange(0, 300),
                    completion_tokens=rng.randrange(20, 400),
                    prompt_tokens_estimate=rng.randrange(300, 3000),
                    cacheable_tokens_estimate=rng.randrange(100, 300),
                    source_kind="briefing_turn",
                    source_id=str(project_id * 20 + rng.randrange(10)),
                    session=f"briefing:{project_id}",
                    cost=Decimal(rng.randrange(0, 5000)) / 1_000_000,
                    # Older calls had their prompts cleared by the nightly prune.
                    prompt_messages=[]
                    if rng.random() < 0.9
                    else [[{"role": "user", "content": "…"}]],
                )
            )
        StructuredCall.objects.bulk_create(batch)
    _spread("dlq_structuredcall", "created_at", first_call)

    first_letter = _next_id(DeadLetter)
    letters = []
    for index in range(new * DEAD_LETTERS):
        status = rng.choices(["open", "fixed", "replayed", "discarded"], [20, 40, 20, 20])[0]
        letters.append(
            DeadLetter(
                source_kind="briefing_turn",
                source_id=str(index),
                schema_name=rng.choice(SCHEMAS),
                provider=rng.choice(["gigachat", "openai"]),
                raw_input="Бюджет где-то три ляма",
                errors=[{"path": "budget", "kind": "int_parsing", "message": "not a number"}],
                error_signature=f"field_{index % 30}: int_parsing",
                status=status,
                resolved_at=None if status == "open" else now,
            )
        )
    DeadLetter.objects.bulk_create(letters, batch_size=BATCH)
    _spread("dlq_deadletter", "created_at", first_letter)

    first_lead = _next_id(Lead)
    Lead.objects.bulk_create(
        (
            Lead(
                last_message_at=now,
                channel=rng.choice(["email", "form", "messenger"]),
                client_name=f"Lead {index}",
                client_intent=rng.choice(["new_project", "question"]),
                product_class=rng.choice(["video", "photo", ""]),
                summary="Ролик для кофейни",
                status=rng.choice(["new", "in_progress", "closed"]),
                needs_call_back=rng.random() < 0.2,
            )
            for index in range(new * LEADS)
        ),
        batch_size=BATCH,
    )
    _spread("crm_lead", "last_message_at", first_lead)
    first_message = _next_id(InboundMessage)
    InboundMessage.objects.bulk_create(
        (
            InboundMessage(
                received_at=now,
                channel="form",
                sender=f"client{index}@example.ru",
                body_text="Здравствуйте! Нужен ролик, бюджет 3 млн, срок две недели.",
                content_hash=f"bench-{first_message}-{index}",
                status="human" if rng.random() < 0.02 else "lead",
            )
            for index in range(int(new * MESSAGES))
        ),
        batch_size=BATCH,
    )
    _spread("crm_inboundmessage", "received_at", first_message)
    from dlq.rollups import call_rollups_fold

    call_rollups_fold()
    # What autovacuum does within a minute of a bulk load: the pages are measured on the
    # tables' steady state, not on the dead rows the bulk updates above (the spread moments,
    # every call marked folded) leave behind, whose cost varied from run to run (the quality
    # pages' read of the calls not folded yet visited 325,000 dead entries at 5,000 briefings).
    _sql("VACUUM ANALYZE")


# --- measuring --------------------------------------------------------------------------------


def pages(manager_id: int) -> list[tuple[str, str, str, dict]]:
    """(name, who, url, headers) of every page and API list measured."""
    from django.utils import timezone

    from briefing.models import Project

    project = Project.objects.filter(status="completed").order_by("-id").first()
    last = project.turns.order_by("-seq").values_list("seq", flat=True).first()
    today = timezone.localdate()
    htmx = {"HX-Request": "true"}
    return [
        ("dashboard", "manager", "/", {}),
        ("dashboard refresh (htmx)", "manager", "/", htmx),
        ("dashboard idle refresh", "manager", "/?since={since}", htmx),
        ("dashboard", "producer", "/", {}),
        ("briefing page", "manager", f"/briefings/{project.pk}/", {}),
        ("transcript poll", "manager", f"/briefings/{project.pk}/?after={last}&open=0", htmx),
        ("client chat", "client", f"/c/{project.client_token}/", {}),
        ("results", "manager", "/results/", {}),
        ("quality page (7 days)", "manager", "/dlq/quality/", {}),
        (
            "quality.json (90 days)",
            "manager",
            f"/dlq/quality.json?since={today - timedelta(days=DAYS - 1)}&until={today}",
            {},
        ),
        ("weekly digest", "manager", "/dlq/digest/", {}),
        ("dead-letter groups", "manager", "/dlq/dead-letters/", {}),
        ("dead-letter list", "manager", "/dlq/dead-letters/?view=list", {}),
        ("lead list", "manager", "/crm/leads/", {}),
        ("human queue", "manager", "/crm/human/", {}),
        ("API briefings", "token", "/api/v1/briefings/", {}),
        ("API briefings page 2", "token", "/api/v1/briefings/?cursor={cursor}", {}),
        ("API briefs", "token", "/api/v1/briefs/", {}),
        ("API brief", "token", f"/api/v1/briefs/{project.pk}/", {}),
        ("API transcript", "token", f"/api/v1/briefings/{project.pk}/messages/", {}),
        ("API events", "token", f"/api/v1/briefings/{project.pk}/events/", {}),
        ("API leads", "token", "/api/v1/leads/", {}),
        ("API dead letters", "token", "/api/v1/dead-letters/", {}),
    ]


class Measured:
    def __init__(self, status: int, median_ms: float, queries: int, slowest: tuple[float, str]):
        self.status, self.median_ms, self.queries, self.slowest = (
            status,
            median_ms,
            queries,
            slowest,
        )


def measure(client, url: str, headers: dict, repeat: int) -> Measured:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url, headers=headers, secure=True)  # warm: templates, caches, plans
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url, headers=headers, secure=True)
        samples.append((time.perf_counter() - started) * 1000)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, headers=headers, secure=True)
    timed = [(float(q["time"]), q["sql"]) for q in captured.captured_queries]
    slowest = max(timed, default=(0.0, ""))
    return Measured(response.status_code, statistics.median(samples), len(timed), slowest)


def _placeholders(clients: dict, url: str) -> str:
    """Fill `{since}` (the dashboard's version) and `{cursor}` (the API's next page)."""
    import re

    if "{since}" in url:
        html = clients["manager"].get("/", secure=True).content.decode()
        found = re.search(r"since=(\d+)", html)
        url = url.replace("{since}", found.group(1) if found else "0")
    if "{cursor}" in url:
        first = clients["token"].get("/api/v1/briefings/", secure=True).json()
        url = urlsplit(first.get("next") or "").query.replace("cursor=", "") or ""
        url = f"/api/v1/briefings/?cursor={url}"
    return url


def seq_scans(sql: str) -> list[str]:
    """The sequential scans over tables of more than SEQ_SCAN_ROWS rows in `sql`'s plan."""
    from django.db import connection

    if not sql.lstrip().upper().startswith("SELECT"):
        return []
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}")
        plan = cursor.fetchone()[0]
        plan = json.loads(plan) if isinstance(plan, str) else plan
        found = []

        def walk(node: dict) -> None:
            if node.get("Node Type") == "Seq Scan":
                cursor.execute(
                    "SELECT reltuples::bigint FROM pg_class WHERE relname = %s",
                    [node["Relation Name"]],
                )
                rows = cursor.fetchone()[0]
                if rows > SEQ_SCAN_ROWS:
                    found.append(f"Seq Scan on {node['Relation Name']} (~{rows:,} rows)")
            for child in node.get("Plans", []):
                walk(child)

        walk(plan[0]["Plan"])
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--force", action="store_true", help="empty a database not named *bench*")
    args = parser.parse_args(argv)
    sizes = sorted({int(size) for size in args.sizes.split(",") if size.strip()})
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("bench.growth needs PostgreSQL: set DATABASE_URL=postgres://…/briefing_bench")
    if "bench" not in url.rpartition("/")[2] and not args.force:
        sys.exit("bench.growth empties its database: name it *bench* or pass --force")
    bench_django_setup(url, API_RATE_LIMIT="100000/min", CELERY_TASK_ALWAYS_EAGER="true")
    from django.test import Client

    from briefing.models import Project

    rng = random.Random(15)
    brief = real_brief()
    manager, producers = _users()
    token, secret = _token()
    # A page that fails is measured as its status (the table's "st" column), not a crash.
    options = {"HTTP_HOST": "localhost", "raise_request_exception": False}
    clients: dict[str, Client] = {
        "manager": Client(**options),
        "producer": Client(**options),
        "client": Client(**options),
        "token": Client(**options, HTTP_AUTHORIZATION=f"Bearer {secret}"),
    }
    clients["manager"].force_login(manager)
    clients["producer"].force_login(producers[0])

    results: dict[str, dict[int, Measured]] = {}
    for size in sizes:
        started = time.perf_counter()
        grow(size, producers=producers, token=token, rng=rng, brief=brief)
        from dlq.models import StructuredCall

        built = time.perf_counter() - started
        print(f"built {Project.objects.count():,} briefings, {StructuredCall.objects.count():,}"
              f" calls in {built:.0f} s", flush=True)  # fmt: skip
        for name, who, page_url, headers in pages(manager.pk):
            key = f"{name} [{who}]"
            filled = _placeholders(clients, page_url)
            results.setdefault(key, {})[size] = measure(clients[who], filled, headers, args.repeat)

    _report(results, sizes)


def _report(results: dict[str, dict[int, Measured]], sizes: list[int]) -> None:
    small, large = sizes[0], sizes[-1]
    width = max(len(key) for key in results) + 2
    head = "".join(f"{size:>14,}" for size in sizes)
    print(f"\nmedian ms (queries) per request, by briefings\n{'page':<{width}}{'st':>4}{head}"
          f"{'ratio':>8}{'Δq':>5}")  # fmt: skip
    worst = (0.0, "", 0)
    for key, by_size in results.items():
        cells = "".join(f"{by_size[s].median_ms:>9.1f} ({by_size[s].queries:>2})" for s in sizes)
        ratio = by_size[large].median_ms / max(by_size[small].median_ms, 0.001)
        growth = by_size[large].queries - by_size[small].queries
        print(f"{key:<{width}}{by_size[large].status:>4}{cells}{ratio:>8.2f}{growth:>+5}")
        worst = max(worst, (ratio, key, growth))
    query_growth = max(by[large].queries - by[small].queries for by in results.values())
    print(f"\ngrowth: worst ratio {worst[0]:.2f} ({worst[1]}) from {small} to {large} briefings;"
          f" worst query count growth {query_growth}")  # fmt: skip
    print(f"\nsequential scans over tables > {SEQ_SCAN_ROWS:,} rows in each page's slowest query"
          f" at {large:,} briefings:")  # fmt: skip
    any_scan = False
    for key, by_size in results.items():
        took, sql = by_size[large].slowest
        scans = seq_scans(sql) if sql else []
        if scans:
            any_scan = True
            print(f"  {key}: {took * 1000:.1f} ms: {'; '.join(scans)}\n    {sql[:300]}")
    if not any_scan:
        print("  none")


if __name__ == "__main__":
    main()
