"""A turn's work: everything a turn decides, held in memory until the final transaction
(briefing.turn_outcome writes it), and the one way to begin it for a claimed turn."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from briefing.models import LockedEntity, Project, StageRun, Turn
from briefing.stages.base import StageSpec
from briefing.stages.registry import spec_for
from llmkit.pools import TurnMeter
from studio.memory import SnapshotReads

# The turn `meta` key counting claims that expired with their worker.
CLAIMS_LOST = "claims_lost"


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
    locks: dict[str, LockedEntity]
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
    _earlier: list[Turn] | None = None
    # The turn's model pool and what it has spent against its caps (briefing.routing);
    # None without pools, and for late answers (a fix or a replay of a dead letter).
    meter: TurnMeter | None = None
    # The reader's reading of this turn's message (briefing.reading), once it ran.
    reading: Any = None
    # The turn's studio tools (briefing.tool_use.TurnTools): run once, by the first stage call.
    tools: Any = None
    # The client snapshots memory read this turn (each key once).
    snapshots: SnapshotReads = field(default_factory=SnapshotReads)

    def earlier(self) -> list[Turn]:
        """The briefing's turns before this one, oldest first: read once a turn for the
        agent's last question, the stage's history and the client's texts."""
        if self._earlier is None:
            self._earlier = list(
                Turn.objects.filter(project_id=self.project.pk, seq__lt=self.turn.seq)
                .order_by("seq")
                .only("seq", "role", "text", "stage_key", "meta")
            )
        return self._earlier

    def client_texts(self) -> list[str]:
        """Everything the client wrote up to this turn (numbers must come from here)."""
        return [*(t.text for t in self.earlier() if t.role == Turn.Role.CLIENT), self.turn.text]

    def event(self, kind: str, stage_key: str = "", **data: Any) -> None:
        self.events.append((kind, stage_key, data))

    def lock_values(self) -> dict[str, str]:
        refined = {key: new for key, (_, new) in self.refined_locks.items()}
        return {**{k: lock.value for k, lock in self.locks.items()}, **refined, **self.new_locks}

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
        cls, *, project: Project, turn: Turn, stages: list[StageRun] | None = None
    ) -> TurnWork:
        """The work of a claimed turn as it begins: the briefing's stages (read here unless
        the caller read them already), its locks, and how each stage looked (only stages
        the turn changes are written back)."""
        if stages is None:
            stages = list(project.stages.order_by("order"))
        return cls(
            project=project,
            turn=turn,
            stages=stages,
            locks={lock.key: lock for lock in project.locks.all()},
            stages_before={s.pk: stage_state(s) for s in stages},
        )


# What a turn changes on a stage (and writes back when it did).
STAGE_STATE_FIELDS = ["status", "fields", "summary", "closed_by", "closed_at"]


def stage_state(stage: StageRun) -> tuple:
    return tuple(getattr(stage, name) for name in STAGE_STATE_FIELDS)
