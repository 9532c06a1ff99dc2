# The dashboard's search (title or client name, case-blind, anywhere in the text) through
# trigram indexes on PostgreSQL: Django's icontains is UPPER(col::text) LIKE UPPER('%q%'),
# which these expression indexes serve, instead of a scan of every briefing. SQLite (the
# embedded default) has no pg_trgm and scans, which is fine at its sizes. Without the right
# to create the extension the indexes are skipped, and the search still works.

from django.db import DatabaseError, migrations, transaction

INDEXES = {
    "project_title_trgm": "title",
    "project_client_name_trgm": "client_name",
}


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DatabaseError:  # no right to create it: the search scans, as before
        return
    for name, column in INDEXES.items():
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS "{name}" ON "briefing_project" '
            f'USING gin ((UPPER("{column}"::text)) gin_trgm_ops)'
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


class Migration(migrations.Migration):
    dependencies = [
        ("briefing", "0011_project_list_indexes"),
    ]

    operations = [migrations.RunPython(create, drop)]
