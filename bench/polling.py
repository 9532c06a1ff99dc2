"""Benchmark of the live views' polling: what an idle open page costs the server.

    python -m bench.polling [--requests 300]

On PostgreSQL (BENCH_DATABASE_URL, as bench.turns) a completed 14-turn briefing is opened
by a logged-in producer and by the client; each poll that finds nothing new answers 204.
Prints the median and p95 time and the queries of a 204 poll against rendering the page.
"""

from __future__ import annotations

import argparse
import html
import re
import statistics
import time

from bench.django_setup import percentile
from bench.turns import ORDERLY, _send, _setup_django


def _time(client, url: str, n: int, **headers) -> tuple[float, float, int, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    samples = []
    for _ in range(n):
        started = time.perf_counter()
        response = client.get(url, headers=headers, secure=True)
        samples.append((time.perf_counter() - started) * 1000)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, headers=headers, secure=True)
    return statistics.median(samples), percentile(samples, 0.95), len(queries), response.status_code


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args(argv)
    _setup_django()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from briefing.services import project_create

    user = get_user_model().objects.create_user("bench-producer")
    user.groups.add(Group.objects.get(name="Producers"))
    project = project_create(title="Polling bench", language="ru", producer=user)
    for text in ORDERLY:
        _send(project, text)
    last = project.turns.order_by("-seq").first().seq
    # A host the settings allow (the test client's default "testserver" is not); requests
    # are HTTPS, as in production (plain HTTP is redirected there).
    producer, visitor = Client(HTTP_HOST="localhost"), Client(HTTP_HOST="localhost")
    producer.force_login(user)
    detail = f"/briefings/{project.pk}/"
    chat = f"/c/{project.client_token}/"
    # The chat's poll as its page writes it (the last message and the page's state).
    page = visitor.get(chat, secure=True).content.decode()
    chat_poll = html.unescape(re.search(r'hx-get="([^"]*/messages/\?after=[^"]*)"', page)[1])
    rows = [
        ("producer: transcript poll, nothing new", producer, f"{detail}?after={last}&open=0", True),
        ("producer: the whole briefing page", producer, detail, False),
        ("client: chat poll, nothing new", visitor, chat_poll, True),
        ("client: the whole chat page", visitor, chat, False),
    ]
    print(f"A completed briefing of {project.turns.count()} turns; {args.requests} requests each")
    print(f"{'request':<42}{'status':>7}{'p50 ms':>9}{'p95 ms':>9}{'queries':>9}")
    for label, client, url, htmx in rows:
        headers = {"HX-Request": "true"} if htmx else {}
        p50, p95, queries, status = _time(client, url, args.requests, **headers)
        print(f"{label:<42}{status:>7}{p50:>9.2f}{p95:>9.2f}{queries:>9}")


if __name__ == "__main__":
    main()
