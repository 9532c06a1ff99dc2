"""What /readyz checks: the database, the migrations, the broker, a live worker and the
beat. Each check answers quickly (a bounded connect, one small query) and says what is wrong
in words without a secret: no address, user name or exception text from a driver."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from ops.models import ProcessHeartbeat

# Once every migration is seen applied, the answer is kept this long (reading the migration
# graph costs far more than the rest of the probe).
_MIGRATIONS_CHECKED_FOR_S = 30.0
_migrations_ok_until = 0.0


@dataclass
class Check:
    ok: bool
    detail: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        return {"ok": self.ok, **self.detail}


def database_check() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        return Check(False, {"error": f"the database did not answer ({type(error).__name__})"})
    return Check(True, {"vendor": connection.vendor})


def migrations_check() -> Check:
    global _migrations_ok_until
    if time.monotonic() < _migrations_ok_until:
        return Check(True)
    try:
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as error:
        return Check(False, {"error": f"could not be read ({type(error).__name__})"})
    if plan:
        return Check(False, {"unapplied": [f"{m.app_label}.{m.name}" for m, _ in plan][:20]})
    _migrations_ok_until = time.monotonic() + _MIGRATIONS_CHECKED_FOR_S
    return Check(True)


def broker_check() -> Check:
    url = settings.CELERY_BROKER_URL
    if url.startswith("filesystem://"):
        folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
        if folder.is_dir():
            return Check(True, {"transport": "filesystem"})
        return Check(False, {"transport": "filesystem", "error": "the queue folder is missing"})
    from config.celery import app

    transport = url.split(":", 1)[0]
    try:
        # A fresh connection each time (a pooled one could be a dead socket); no retry.
        with app.connection_for_write(connect_timeout=settings.OPS_PROBE_TIMEOUT_S) as conn:
            conn.ensure_connection(max_retries=0)
    except Exception as error:  # kombu raises the transport's own errors
        return Check(False, {"transport": transport, "error": type(error).__name__})
    return Check(True, {"transport": transport})


def worker_check() -> Check:
    """At least one worker whose heartbeat is at most three beats old."""
    since = timezone.now() - timedelta(seconds=3 * settings.OPS_WORKER_HEARTBEAT_S)
    try:
        live = ProcessHeartbeat.objects.filter(
            kind=ProcessHeartbeat.Kind.WORKER, seen_at__gte=since
        ).count()
    except DatabaseError as error:
        return Check(False, {"error": type(error).__name__})
    if not live:
        return Check(False, {"live": 0, "error": "no worker heartbeat in the last "
                             f"{3 * settings.OPS_WORKER_HEARTBEAT_S} s"})  # fmt: skip
    return Check(True, {"live": live})


def beat_period_s() -> float:
    """The shortest period of the beat schedule: the beat must have run within it."""
    periods = []
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        schedule = entry["schedule"]
        if isinstance(schedule, int | float):
            periods.append(float(schedule))
        elif isinstance(schedule, timedelta):
            periods.append(schedule.total_seconds())
    return min(periods, default=300.0)


def beat_check() -> Check:
    period = beat_period_s()
    try:
        last = (
            ProcessHeartbeat.objects.filter(kind=ProcessHeartbeat.Kind.BEAT)
            .order_by("-seen_at")
            .values_list("seen_at", flat=True)
            .first()
        )
    except DatabaseError as error:
        return Check(False, {"error": type(error).__name__})
    if last is None:
        return Check(False, {"error": "the beat has never run"})
    age = (timezone.now() - last).total_seconds()
    detail = {"last_run_s_ago": round(age, 1), "period_s": period}
    if age > period:
        return Check(False, {**detail, "error": "the beat has not run within its period"})
    return Check(True, detail)


def readiness() -> tuple[bool, dict]:
    """(ready, the JSON body of /readyz)."""
    checks = {"database": database_check()}
    if checks["database"].ok:
        checks["migrations"] = migrations_check()
        checks["worker"] = worker_check()
        checks["beat"] = beat_check()
    checks["broker"] = broker_check()
    missing = [name for name, check in checks.items() if not check.ok]
    if not checks["database"].ok:
        missing += ["migrations", "worker", "beat"]
    ready = not missing
    body = {
        "status": "ok" if ready else "unavailable",
        "checks": {name: check.as_json() for name, check in checks.items()},
    }
    if missing:
        body["missing"] = missing
    return ready, body
