"""The briefing turn as a dead letter's source: a manager's fix answers the failed turn as
the stage agent would have, a replay runs the turn's stage agent again (through the model
pool its route picks, like the turn itself), and a forgotten client's words are erased from
the letters and model calls of their turns."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from briefing.common.access import projects_for_user
from briefing.common.inbox import inbox_dead_letters_refresh
from briefing.common.labels import field_label
from briefing.models import Turn
from briefing.stages.registry import spec_for
from briefing.turn.agents import stage_answer_check
from briefing.turn.orchestrator import turn_answer_apply, turn_replay
from core.errors import ApplicationError, ErrorCode
from dlq.fix_form import AnswerForm
from dlq.ledger import briefing_session
from dlq.models import ClassifierDisagreement, DeadLetter, DeadLetterAction, StructuredCall
from dlq.sources import ReplaySettle, SourceLink
from llmkit.parse import ParseOutcome

SOURCE_KIND = "briefing_turn"
# Every source whose id is a briefing turn's: the stage call's, and level 1's reading of the
# same client message.
TURN_SOURCE_KINDS = (SOURCE_KIND, "level1")


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
    turn_label = _("turn %(seq)s") % {"seq": turn.seq}
    return SourceLink(f"{project.title}{client} ({turn_label})", url)


class BriefingTurnSource:
    label = _lazy("briefing turn")

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

    def answer_form(self, letter: DeadLetter) -> AnswerForm:
        """The stage's answer as the manager reads it: the message to the client, the stage's
        fields under the labels the producer's page uses, the field the message asks about
        chosen from them, and the status flag as 'the stage is complete'."""
        turn = _turn(letter)
        spec = spec_for(turn.project, turn.stage_key)
        labels = {name: field_label(spec.key, name) for name in spec.fields}
        return AnswerForm(
            model=spec.answer_model,
            labels={
                "message": _("Message to the client"),
                "askedField": _("The message asks about"),
                spec.status_field: _("The stage is complete"),
                **labels,
            },
            choices={"askedField": spec.fields},
            choice_labels={"askedField": labels},
            help_texts={
                spec.status_field: _(
                    "The briefing moves on to the next stage only when every required field "
                    "is filled; the client gets your message, then the next stage's question."
                ),
            },
        )

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


def turn_dead_letters_erase(
    *, project_id: int, turn_ids: Collection[int], placeholder: str, note: str, actor: Any = None
) -> dict[str, int]:
    """Erase a forgotten client's words from the dead letters of these turns of the briefing
    and from every model call the briefing made, in the caller's transaction. The rows stay
    (their signatures and history are the parse-quality record); an open letter is discarded
    with `note`, as there is nothing of the client's left to fix or replay. Returns how many
    letters and calls were erased."""
    turns = [str(pk) for pk in turn_ids]
    of_turns = Q(source_kind__in=TURN_SOURCE_KINDS, source_id__in=turns)
    letters = list(DeadLetter.objects.select_for_update().filter(of_turns).order_by("pk"))
    now = timezone.now()
    for letter in letters:
        letter.raw_input = placeholder
        letter.prompt_messages, letter.raw_responses = [], []
        # Where and how the answer failed stays; the message and the input can quote the client.
        letter.errors = [
            {"path": error.get("path", ""), "kind": error.get("kind", ""), "message": "",
             "input": None}
            for error in letter.errors if isinstance(error, dict)
        ]  # fmt: skip
        if letter.status == DeadLetter.Status.OPEN:
            letter.status, letter.resolved_at = DeadLetter.Status.DISCARDED, now
            letter.resolved_by, letter.resolution_note = actor, note
            letter.replay_requested_at = None
            DeadLetterAction.objects.create(
                dead_letter=letter, kind=DeadLetterAction.Kind.DISCARDED, user=actor, note=note
            )
        letter.save()
    # A fix's data is the corrected answer, the client's values in it.
    DeadLetterAction.objects.filter(dead_letter__in=letters).update(data={})
    call_ids = {letter.call_id for letter in letters if letter.call_id is not None}
    call_ids |= set(
        Turn.objects.filter(pk__in=turn_ids, call__isnull=False).values_list("call_id", flat=True)
    )
    calls = StructuredCall.objects.filter(
        of_turns | Q(session=briefing_session(project_id)) | Q(pk__in=call_ids)
    )
    cleared = calls.update(prompt_messages=[], raw_responses=[], coercions=[])
    ClassifierDisagreement.objects.filter(of_turns).update(text=placeholder)
    if letters:
        inbox_dead_letters_refresh(project_id=project_id)
    return {"dead_letters": len(letters), "calls": cleared}
