"""Migrations that fill a new column from the rows already stored: run forward on data."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def _migrate(target: tuple[str, str]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


@pytest.mark.django_db(transaction=True)
def test_last_seq_is_each_briefings_last_turn_number():
    old = _migrate(("briefing", "0018_memory_keys"))
    try:
        Project, Turn = old.get_model("briefing", "Project"), old.get_model("briefing", "Turn")
        talked = Project.objects.create(title="talked")
        silent = Project.objects.create(title="silent")
        for seq in (1, 2, 5):
            Turn.objects.create(project=talked, seq=seq, role="client", text="x")
        new = _migrate(("briefing", "0019_last_seq"))
        Project = new.get_model("briefing", "Project")
        assert Project.objects.get(pk=talked.pk).last_seq == 5
        assert Project.objects.get(pk=silent.pk).last_seq == 0
    finally:
        _migrate(("briefing", _latest()))


def _latest() -> str:
    executor = MigrationExecutor(connection)
    return max(name for app, name in executor.loader.graph.leaf_nodes() if app == "briefing")
