"""A turn's work: everything a turn decides, held in memory until the final transaction
(briefing.turn.outcome writes it), and the one way to begin it for a claimed turn."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, Subquery

from briefing.models import LockedEntity, Project, StageRun, Turn
from briefing.stages.base import StageSpec
from briefing.stages.registry import spec_for
from core.sql import JSONObjectAgg
from llmkit.pools import TurnMeter
from studio.memory import SnapshotReads
from studio.models import ClientSnapshot

# The turn `meta` key counting claims that expired with their worker (or ended with an
# exception: turn_claim_fail), and the key holding the last exception, if any.
CLAIMS_LOST = "claims_lost"
PROCESSING_ERROR = "processing_error"


@dataclass
class Reply:
    text: str
    stage_key: str
    call: Any = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class TurnWork:
    """Everything a turn decides, held in memory until the final transaction."""

    project: Project
    turn: Turn
    stages: list[StageRun]
    locks: dict[str, str]  # the briefing's locked values by key, as the turn began
    events: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    new_locks: dict[str, str] = field(default_factory=dict)
    # Locks the client completed (key → (old, new)), written only if still at the old value.
    refined_locks: dict[str, tuple[str, str]] = field(default_factory=dict)
    turn_status: str = Turn.Status.DONE
    # How each stage looked when the turn began: only changed ones are written back.
    stages_before: dict[int, tuple] = field(default_factory=dict)
    # Writes of other apps that must commit or roll back with the turn (settling a replay).
    also_write: list[Callable[[], None]] = field(default_factory=list)
    # When the turn's model budget runs out (time.monotonic): its stage calls share it.
    deadline: float = field(
        default_factory=lambda: time.monotonic() + settings.BRIEFING_TURN_BUDGET_S
    )
    # The briefing's turns before this one, oldest first, when the claim read them already.
    earlier_read: list[Turn] | None = None
    # The turn's model pool and what it has spent against its caps (briefing.turn.routing);
    # None without pools, and for a manager's fix of a dead letter (a replay has its route).
    meter: TurnMeter | None = None
    # The reader's reading of this turn's message (briefing.turn.reading), once it ran.
    reading: Any = None
    # The client closed the conversation before any read-back ("всё верно, больше ничего"):
    # the read-back is given and the brief completes in this turn.
    client_closed: bool = False
    # The turn's studio tools (briefing.turn.tool_use.TurnTools): run once, by the first stage call.
    tools: Any = None
    # The client snapshots memory read this turn (each key once).
    snapshots: SnapshotReads = field(default_factory=SnapshotReads)

    def earlier(self) -> list[Turn]:
        """The briefing's turns before this one, oldest first: read once a turn for the
        agent's last question, the stage's history and the client's texts."""
        if self.earlier_read is None:
            self.earlier_read = list(
                Turn.objects.filter(project_id=self.project.pk, seq__lt=self.turn.seq)
                .order_by("seq")
                .only("seq", "role", "text", "stage_key", "meta")
            )
        return self.earlier_read

    def client_texts(self) -> list[str]:
        """Everything the client wrote up to this turn (numbers must come from here)."""
        return [*(t.text for t in self.earlier() if t.role == Turn.Role.CLIENT), self.turn.text]

    def event(self, kind: str, stage_key: str = "", **data: Any) -> None:
        self.events.append((kind, stage_key, data))

    def lock_values(self) -> dict[str, str]:
        refined = {key: new for key, (_, new) in self.refined_locks.items()}
        return {**self.locks, **refined, **self.new_locks}

    def pinned_values(self) -> dict[str, str]:
        """What a model may not rename: the locks, and the identity values the client gave
        (locked only once confirmed, but a client's correction alone changes them)."""
        pinned = {}
        for stage in self.stages:
            for name, key in self.spec(stage).locks.items():
                value = stage.fields.get(name)
                if isinstance(value, str) and value.strip():
                    pinned[key] = value.strip()
        return {**pinned, **self.lock_values()}

    def spec(self, stage: StageRun) -> StageSpec:
        return spec_for(self.project, stage.key)

    def budget_left(self) -> float:
        return max(self.deadline - time.monotonic(), 0.0)

    def current(self) -> StageRun | None:
        """The first stage not closed: the one the client is in."""
        return next((s for s in self.stages if s.status != StageRun.Status.CLOSED), None)

    @classmethod
    def begin(
        cls,
        *,
        turn: Turn,
        earlier: list[Turn] | None = None,
        state: BriefingState | None = None,
    ) -> TurnWork:
        """The work of a claimed turn as it begins: the briefing, its stages and its locked
        values as they are now (`briefing_state_read`, unless the caller read them), and how
        each stage looked (only stages the turn changes are written back). `earlier`: the
        turns before it, where the claim read them."""
        project, stages, locks, memory_absent = state or briefing_state_read(turn.project_id)
        turn.project = project
        return cls(
            project=project,
            turn=turn,
            stages=stages,
            locks=locks,
            stages_before={s.pk: stage_state(s) for s in stages},
            earlier_read=earlier,
            snapshots=SnapshotReads(absent=memory_absent),
        )


class BriefingState(NamedTuple):
    """A briefing as a turn begins: its row, its stages in order, its locked values (key →
    value), and the client's memory keys known to have no snapshot (none to read)."""

    project: Project
    stages: list[StageRun]
    locks: dict[str, str]
    memory_absent: tuple[str, ...] = ()


def briefing_state_read(project_id: int) -> BriefingState:
    """The briefing's state in one query: the stage rows carry the briefing's row, its locks
    aggregated as one JSON object, and whether memory holds a snapshot under the client keys
    the last turn stored."""
    locks = (
        LockedEntity.objects.filter(project_id=OuterRef("project_id"))
        .values("project_id")
        .annotate(values=JSONObjectAgg("key", "value"))
        .values("values")
    )
    remembered = ClientSnapshot.objects.filter(
        Q(key=OuterRef("project__memory_contact_key"))
        | Q(key=OuterRef("project__memory_company_key"))
    )
    stages = list(
        StageRun.objects.filter(project_id=project_id)
        .select_related("project")
        .annotate(lock_values=Subquery(locks), remembered=Exists(remembered))
        .order_by("order")
    )
    if not stages:  # a briefing type without stages
        project = Project.objects.get(pk=project_id)
        return BriefingState(project, [], dict(project.locks.values_list("key", "value")))
    project = stages[0].project
    for stage in stages:
        stage.project = project  # one object for the briefing, as the turn changes it
    stored_keys = (project.memory_contact_key, project.memory_company_key)
    absent = () if stages[0].remembered else tuple(key for key in stored_keys if key)
    return BriefingState(project, stages, dict(stages[0].lock_values or {}), absent)


# What a turn changes on a stage (and writes back when it did).
STAGE_STATE_FIELDS = [
    "status", "fields", "summary", "closed_by", "closed_at", "skipped", "dialogue"
]  # fmt: skip


def stage_state(stage: StageRun) -> tuple:
    return tuple(getattr(stage, name) for name in STAGE_STATE_FIELDS)
