"""A turn's SQL does not grow with the stage's history: no row is fetched again one by one."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

# One deferred field of a turn fetched by the turn's id: what reading a field left out of
# only() costs, once per listed turn.
ONE_TURN_BY_ID = re.compile(
    r'^SELECT "briefing_turn"\."id", "briefing_turn"\."\w+" FROM "briefing_turn" '
    r'WHERE "briefing_turn"\."id" = '
)


def _turn_sql(project, say, text: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        say(project, text)
    return [query["sql"] for query in captured.captured_queries]


def test_a_turns_statements_do_not_grow_with_the_stages_turns(project, say):
    say(project, "Здравствуйте")
    # Answers that fill nothing: each field is asked twice, then left for the producer, so the
    # briefing walks through its stages; a turn that keeps its stage (its gate held) reads the
    # same statements however long the conversation grew (the history is cut at
    # BRIEFING_CONTEXT_TURNS and read in one query).
    held = []
    for _ in range(14):
        before = project.stages.get(status="open").key
        statements = _turn_sql(project, say, "Хм")
        assert not [sql for sql in statements if ONE_TURN_BY_ID.search(sql)]
        if project.stages.get(status="open").key == before:
            held.append(len(statements))
    assert len(held) >= 8
    assert len(set(held[2:])) == 1, held
