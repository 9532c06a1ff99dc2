"""manage.py restore PATH: a backup into the (new, empty) database DATABASE_URL names."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from core.errors import ApplicationError
from ops.backup import database_restore


class Command(BaseCommand):
    help = "Restore a backup written by `manage.py backup` into an empty database."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="the backup file")

    def handle(self, *args, path: str, **options) -> None:
        connections.close_all()
        try:
            database_restore(db=settings.DATABASES["default"], path=Path(path))
        except ApplicationError as error:
            raise CommandError(error.message) from error
        self.stdout.write(f"Restored {path} into {settings.DATABASES['default']['NAME']}")
