"""Small SQL pieces Django does not ship for both of our databases (PostgreSQL, SQLite)."""

from __future__ import annotations

from django.db.models import Aggregate, JSONField


class JSONObjectAgg(Aggregate):
    """`{key: value, ...}` over the rows of a group, as one JSON object (NULL for no rows):
    PostgreSQL's `jsonb_object_agg`, SQLite's `json_group_object`. Lets a small child table
    (a briefing's locked values) come with its parent's row instead of a query of its own."""

    function = "json_group_object"
    output_field = JSONField()

    def __init__(self, key, value, **extra) -> None:
        super().__init__(key, value, **extra)

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, function="jsonb_object_agg", **extra_context)
