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
    # Answers that fill nothing keep the briefing on its first stage, turn after turn; past
    # BRIEFING_CONTEXT_TURNS the history is cut (one count more, then constant).
    for _ in range(4):
        say(project, "Хм, пока не знаю")
    early = _turn_sql(project, say, "Хм, пока не знаю")
    for _ in range(4):
        say(project, "Хм, пока не знаю")
    late = _turn_sql(project, say, "Хм, пока не знаю")
    assert project.stages.get(status="open").key == "intro"
    assert not [sql for sql in late if ONE_TURN_BY_ID.search(sql)]
    assert len(late) == len(early)
