"""Per-turn memory retrieval on SQLite (the embedded default): an FTS5 index of the memory
items, kept by triggers so every write and every delete (a rebuild, a correction, a client
forgotten) reaches it. PostgreSQL searches the table itself and gets nothing here."""

from django.db import migrations

CREATE = [
    # `key` is stored, not indexed: retrieval filters by the client's keys.
    "CREATE VIRTUAL TABLE studio_memoryitem_fts USING fts5(text, key UNINDEXED, "
    "tokenize = 'unicode61 remove_diacritics 2')",
    "CREATE TRIGGER studio_memoryitem_fts_insert AFTER INSERT ON studio_memoryitem BEGIN "
    "INSERT INTO studio_memoryitem_fts(rowid, text, key) "
    "VALUES (new.id, new.text, new.key); END",
    "CREATE TRIGGER studio_memoryitem_fts_delete AFTER DELETE ON studio_memoryitem BEGIN "
    "DELETE FROM studio_memoryitem_fts WHERE rowid = old.id; END",
    "CREATE TRIGGER studio_memoryitem_fts_update AFTER UPDATE ON studio_memoryitem BEGIN "
    "DELETE FROM studio_memoryitem_fts WHERE rowid = old.id; "
    "INSERT INTO studio_memoryitem_fts(rowid, text, key) "
    "VALUES (new.id, new.text, new.key); END",
    "INSERT INTO studio_memoryitem_fts(rowid, text, key) "
    "SELECT id, text, key FROM studio_memoryitem",
]
DROP = [
    "DROP TRIGGER IF EXISTS studio_memoryitem_fts_insert",
    "DROP TRIGGER IF EXISTS studio_memoryitem_fts_delete",
    "DROP TRIGGER IF EXISTS studio_memoryitem_fts_update",
    "DROP TABLE IF EXISTS studio_memoryitem_fts",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "sqlite":
            return
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("studio", "0003_memory_item")]

    operations = [migrations.RunPython(_run(CREATE), _run(DROP))]
