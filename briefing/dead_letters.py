"""The briefing turn as a dead letter's source: a manager's fix answers the failed turn as
the stage agent would have, and a replay runs the turn's stage agent again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.urls import reverse

from briefing.access import projects_for_user
from briefing.agents import stage_answer_check
from briefing.inbox import inbox_dead_letters_refresh
from briefing.models import Turn
from briefing.orchestrator import turn_answer_apply, turn_replay
from core.errors import ApplicationError, ErrorCode
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
        raise ApplicationError(
            "the briefing turn of this dead letter no longer exists", code=ErrorCode.NOT_FOUND
        )
    return turn


def _turn_link(turn: Turn) -> SourceLink:
    """The briefing by its title and client, as people know it, and the turn in it."""
    project = turn.project
    client = f" · {project.client_name}" if project.client_name else ""
    url = reverse("project_detail", args=[turn.project_id])
    return SourceLink(f"{project.title}{client} (turn {turn.seq})", url)


class BriefingTurnSource:
    def readable_by(self, letter: DeadLetter, user: Any) -> bool:
        """A producer reads the dead letters of the turns of briefings they can see."""
        turn_id = letter.source_id if letter.source_id.isdigit() else None
        return turn_id is not None and (
            Turn.objects.filter(pk=turn_id, project__in=projects_for_user(user)).exists()
        )

    def link(self, letter: DeadLetter) -> SourceLink | None:
        try:
            turn = _turn(letter)
        except ApplicationError:
            return None
        return _turn_link(turn)

    def links(self, letters: Sequence[DeadLetter]) -> dict[int, SourceLink]:
        """A page of letters' briefings in one query."""
        ids = {int(letter.source_id) for letter in letters if letter.source_id.isdigit()}
        turns = Turn.objects.select_related("project").in_bulk(ids)
        return {
            letter.pk: _turn_link(turns[int(letter.source_id)])
            for letter in letters
            if letter.source_id.isdigit() and int(letter.source_id) in turns
        }

    def answer_check(self, letter: DeadLetter, raw: str) -> ParseOutcome:
        return stage_answer_check(turn=_turn(letter), raw=raw)

    def answer_apply(self, letter: DeadLetter, outcome: ParseOutcome, call: Any) -> None:
        data = outcome.data if isinstance(outcome.data, dict) else {}
        turn_answer_apply(turn=_turn(letter), answer=outcome.value, data=data, call=call)

    def replay(self, letter: DeadLetter, settle: ReplaySettle) -> None:
        turn_replay(turn=_turn(letter), settle=settle)

    def settled(self, letter: DeadLetter) -> None:
        """The letter was fixed, replayed or discarded: its briefing's row counts it no more."""
        project_id = (
            Turn.objects.filter(pk=letter.source_id).values_list("project_id", flat=True).first()
            if letter.source_id.isdigit()
            else None
        )
        if project_id is not None:
            inbox_dead_letters_refresh(project_id=project_id)
