"""The briefing turn as a dead letter's source: a manager's fix answers the failed turn as
the stage agent would have, and a replay runs the turn's stage agent again."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from briefing.agents import stage_answer_check
from briefing.errors import ApplicationError
from briefing.models import Turn
from briefing.orchestrator import turn_answer_apply, turn_replay
from dlq.models import DeadLetter
from dlq.sources import ReplaySettle, SourceLink
from llmkit.parse import ParseOutcome

SOURCE_KIND = "briefing_turn"


def _turn(letter: DeadLetter) -> Turn:
    turn = (
        Turn.objects.select_related("project").filter(pk=letter.source_id).first()
        if letter.source_id.isdigit()
        else None
    )
    if turn is None:
        raise ApplicationError("the briefing turn of this dead letter no longer exists")
    return turn


class BriefingTurnSource:
    def link(self, letter: DeadLetter) -> SourceLink | None:
        try:
            turn = _turn(letter)
        except ApplicationError:
            return None
        url = reverse("project_detail", args=[turn.project_id])
        return SourceLink(f"{turn.project} (turn {turn.seq})", url)

    def answer_check(self, letter: DeadLetter, raw: str) -> ParseOutcome:
        return stage_answer_check(turn=_turn(letter), raw=raw)

    def answer_apply(self, letter: DeadLetter, outcome: ParseOutcome, call: Any) -> None:
        data = outcome.data if isinstance(outcome.data, dict) else {}
        turn_answer_apply(turn=_turn(letter), answer=outcome.value, data=data, call=call)

    def replay(self, letter: DeadLetter, settle: ReplaySettle) -> None:
        turn_replay(turn=_turn(letter), settle=settle)
