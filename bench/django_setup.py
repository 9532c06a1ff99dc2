"""What the Django benchmarks share: a PostgreSQL database of their own, created if missing
and emptied first, with the rules agent as the model; and the percentile they print."""

from __future__ import annotations

import os


def bench_django_setup(database_url: str, **environ: str) -> None:
    """Create the database if missing, point Django at it (plus `environ`), migrate and
    empty it."""
    import psycopg

    base, _, name = database_url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    os.environ.update(environ)
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ["LLM_PROVIDERS"] = "rules"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)


def percentile(values: list[float], q: float) -> float:
    """The value at rank round(q * (n - 1)) of the sorted values (an observed value)."""
    ordered = sorted(values)
    return ordered[round(q * (len(ordered) - 1))]
