"""Backup and restore round trips: a backup restored into a fresh database holds the same
rows in every table and a briefing's whole audit trail; a restore refuses a database that
already has tables."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid

import pytest
from django.core.management import call_command
from django.db import connection

from briefing.models import BriefingEvent, Project
from briefing.services import project_create, turn_receive
from core.errors import ApplicationError
from ops.backup import database_restore
from tests.conftest import ROOT


@pytest.fixture
def briefing_with_history(producer, django_capture_on_commit_callbacks):
    project = project_create(title="Backup", language="ru", producer=producer)
    for text in ("Здравствуйте, нужен ролик, Анна", "+7 916 123-45-67", "бюджет 500 тысяч"):
        with django_capture_on_commit_callbacks(execute=True):
            turn_receive(project=project, text=text)
    return project


def _table_counts(cursor, tables: list[str]) -> dict[str, int]:
    counts = {}
    for table in tables:
        cursor.execute(f'SELECT count(*) FROM "{table}"')  # noqa: S608 (introspected names)
        counts[table] = cursor.fetchone()[0]
    return counts


AUDIT_SQL = (
    "SELECT kind, stage_key, CAST(data AS TEXT), created_at FROM briefing_briefingevent "
    "WHERE project_id = %s ORDER BY id"
)


# Committed rows: an online backup waits for a write transaction (the test's own) to end.
@pytest.mark.django_db(transaction=True)
def test_sqlite_backup_restores_every_row_and_the_audit_trail(briefing_with_history, tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite round trip (the suite runs on PostgreSQL here)")
    backup = tmp_path / "backup.sqlite3"
    call_command("backup", str(backup))
    restored_path = tmp_path / "restored.sqlite3"
    database_restore(
        db={"ENGINE": "django.db.backends.sqlite3", "NAME": restored_path}, path=backup
    )

    tables = connection.introspection.table_names()
    with connection.cursor() as cursor:
        expected = _table_counts(cursor, tables)
        cursor.execute(AUDIT_SQL.replace("%s", "?"), [briefing_with_history.pk])
        expected_audit = cursor.fetchall()
    restored = sqlite3.connect(restored_path)
    try:
        assert _table_counts(restored.cursor(), tables) == expected
        audit = restored.execute(AUDIT_SQL.replace("%s", "?"), [briefing_with_history.pk])
        # Django's cursor reads the times as datetimes, sqlite3's as the stored text.
        as_text = [tuple(str(v) for v in row) for row in expected_audit]
        assert [tuple(str(v) for v in row) for row in audit.fetchall()] == as_text
    finally:
        restored.close()
    assert expected["briefing_turn"] >= 6  # three messages and their answers
    assert (
        len(expected_audit) == BriefingEvent.objects.filter(project=briefing_with_history).count()
    )


@pytest.mark.django_db
def test_sqlite_restore_refuses_a_database_with_tables(tmp_path):
    backup = tmp_path / "backup.sqlite3"
    sqlite3.connect(backup).close()
    target = tmp_path / "live.sqlite3"
    with sqlite3.connect(target) as live:
        live.execute("CREATE TABLE kept (id integer)")
    with pytest.raises(ApplicationError, match="has tables"):
        database_restore(db={"ENGINE": "django.db.backends.sqlite3", "NAME": target}, path=backup)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_postgres_backup_restores_into_a_fresh_database(postgres, briefing_with_history, tmp_path):
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    backup = tmp_path / "backup.pgdump"
    call_command("backup", str(backup))
    assert backup.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format

    fresh = f"briefing_restore_{uuid.uuid4().hex[:8]}"
    admin_dsn = f"host={db['HOST']} port={db['PORT']} user={db['USER']} dbname=postgres"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{fresh}"')
    try:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SECRET_KEY": "restore-test",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{fresh}",
        }
        restore = [sys.executable, "manage.py", "restore", str(backup)]
        done = subprocess.run(restore, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        # A second restore into the now full database is refused, and changes nothing.
        again = subprocess.run(restore, cwd=ROOT, env=env, capture_output=True, text=True,
                               timeout=120)  # fmt: skip
        assert again.returncode != 0
        assert "has tables" in again.stderr

        tables = connection.introspection.table_names()
        with connection.cursor() as cursor:
            expected = _table_counts(cursor, tables)
            cursor.execute(AUDIT_SQL, [briefing_with_history.pk])
            expected_audit = cursor.fetchall()
        restored_dsn = admin_dsn.replace("dbname=postgres", f"dbname={fresh}")
        with psycopg.connect(restored_dsn) as restored, restored.cursor() as cursor:
            assert _table_counts(cursor, tables) == expected
            cursor.execute(AUDIT_SQL, [briefing_with_history.pk])
            assert cursor.fetchall() == expected_audit
        assert expected["briefing_briefingevent"] >= 3
        assert Project.objects.filter(pk=briefing_with_history.pk).exists()
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{fresh}" WITH (FORCE)')
