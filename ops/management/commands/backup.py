"""manage.py backup [PATH]: a consistent backup of the database (docs/operations.md)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone

from core.errors import ApplicationError
from ops.backup import database_backup


class Command(BaseCommand):
    help = (
        "Write a consistent backup of the database: pg_dump's custom format for PostgreSQL, "
        "SQLite's online backup otherwise. Default path: VAR_DIR/backups/<time>.<kind>."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", nargs="?", help="where to write the backup")

    def handle(self, *args, path: str | None = None, **options) -> None:
        db = settings.DATABASES["default"]
        if path is None:
            suffix = "pgdump" if connection.vendor == "postgresql" else "sqlite3"
            stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
            path = str(settings.VAR_DIR / "backups" / f"briefing-{stamp}.{suffix}")
        raw = None
        if connection.vendor == "sqlite":
            connection.ensure_connection()
            raw = connection.connection
        try:
            written = database_backup(db=db, path=Path(path), raw_sqlite=raw)
        except ApplicationError as error:
            raise CommandError(error.message) from error
        size = written.stat().st_size
        self.stdout.write(f"Backup written: {written} ({size:,} bytes)")
