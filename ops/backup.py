"""Backups of the whole database, consistent as of one moment, and their restore into an
empty database: pg_dump's custom format for PostgreSQL (one snapshot, whatever is being
written meanwhile), SQLite's online backup API for the embedded default."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from core.errors import ApplicationError


def _pg_environ(db: dict) -> dict[str, str]:
    """libpq's variables for one database's settings (the password never on a command line)."""
    environ = {**os.environ, "PGDATABASE": db["NAME"]}
    for variable, key in (("PGHOST", "HOST"), ("PGPORT", "PORT"), ("PGUSER", "USER"),
                          ("PGPASSWORD", "PASSWORD")):  # fmt: skip
        if db.get(key):
            environ[variable] = str(db[key])
    return environ


def _pg_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ApplicationError(
            f"{name} is not installed (Debian: apt-get install postgresql-client); it must be "
            "of the server's major version or newer"
        )
    return path


def _sqlite_path(db: dict) -> str:
    return str(db["NAME"])


def database_backup(*, db: dict, path: Path, raw_sqlite: sqlite3.Connection | None = None) -> Path:
    """Write a backup of the database `db` (a DATABASES entry) to `path`. For SQLite,
    `raw_sqlite` backs up an open connection instead of the file (an in-memory database)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = db["ENGINE"]
    if "postgresql" in engine:
        subprocess.run(
            [_pg_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges",
             f"--file={path}"],
            env=_pg_environ(db), check=True, capture_output=True, timeout=3600,
        )  # fmt: skip
        return path
    if "sqlite" in engine:
        source = raw_sqlite or sqlite3.connect(_sqlite_path(db))
        target = sqlite3.connect(path)
        try:
            with target:
                source.backup(target)
        finally:
            target.close()
            if raw_sqlite is None:
                source.close()
        return path
    raise ApplicationError(f"no backup for the database engine {engine}")


def _pg_is_empty(db: dict) -> bool:
    result = subprocess.run(
        [_pg_tool("psql"), "--no-psqlrc", "--tuples-only", "--no-align", "--command",
         "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"],
        env=_pg_environ(db), check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return result.stdout.strip() == "0"


def database_restore(*, db: dict, path: Path) -> None:
    """Restore the backup at `path` into the database `db`, which must exist and be empty
    (a restore never mixes a backup with live rows)."""
    if not path.is_file():
        raise ApplicationError(f"no backup at {path}")
    engine = db["ENGINE"]
    if "postgresql" in engine:
        if not _pg_is_empty(db):
            raise ApplicationError(
                f"the database {db['NAME']} has tables: restore into a new, empty database "
                f"(createdb {db['NAME']}_restored) and point DATABASE_URL at it"
            )
        result = subprocess.run(
            [_pg_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
             "--single-transaction", f"--dbname={db['NAME']}", str(path)],
            env=_pg_environ(db), capture_output=True, text=True, timeout=3600,
        )  # fmt: skip
        if result.returncode:
            raise ApplicationError(f"pg_restore failed: {result.stderr.strip()[-2000:]}")
        return
    if "sqlite" in engine:
        target_path = Path(_sqlite_path(db))
        target = sqlite3.connect(target_path)
        try:
            tables = target.execute("SELECT count(*) FROM sqlite_master WHERE type='table'")
            if tables.fetchone()[0]:
                raise ApplicationError(
                    f"{target_path} has tables: restore into a new file (move it away first)"
                )
            source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                source.backup(target)
            finally:
                source.close()
        finally:
            target.close()
        return
    raise ApplicationError(f"no restore for the database engine {engine}")
