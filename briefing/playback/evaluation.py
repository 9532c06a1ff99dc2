"""Play natural conversations (YAML files with expected fields) through the real orchestrator
and score what was stored: per conversation, per field and overall. `manage.py
eval_briefings DIR` is its entry point."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import yaml

from briefing.models import Project
from briefing.playback.simulation import simulation_run
from briefing.reader.chatter import is_chatter

_QUOTES = re.compile(r"[«»\"“”„‘’'`]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class FieldScore:
    stage: str
    field: str
    expected: Any
    stored: Any
    right: bool


@dataclass
class ConversationScore:
    name: str
    status: str
    fields: list[FieldScore] = field(default_factory=list)
    # Stored values that are a confirmation, a greeting or a question: "stage.field".
    chatter: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.status == Project.Status.COMPLETED

    @property
    def wrong(self) -> list[FieldScore]:
        return [score for score in self.fields if not score.right]

    @property
    def fully_right(self) -> bool:
        return self.complete and not self.wrong and not self.chatter


def conversation_load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        script = yaml.safe_load(handle)
    if not isinstance(script, Mapping) or not isinstance(script.get("expect"), Mapping):
        raise ValueError(f"{path.name}: a conversation needs an 'expect' section")
    return dict(script)


def conversation_paths(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.yaml"))


def _normalised(value: Any) -> Any:
    """Strings compared without quotes, case, edge punctuation or repeated spaces."""
    if isinstance(value, str):
        text = _SPACES.sub(" ", _QUOTES.sub("", value)).strip(" .,;:!").casefold()
        return text.replace("ё", "е")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def value_matches(expected: Any, stored: Any) -> bool:
    """A list of expected values for a scalar field lists the acceptable alternatives."""
    if isinstance(expected, list) and not isinstance(stored, list):
        return any(value_matches(option, stored) for option in expected)
    if isinstance(expected, list):
        return [_normalised(v) for v in expected] == [_normalised(v) for v in stored]
    return _normalised(expected) == _normalised(stored)


@contextmanager
def _today(day: Any):
    """The conversation's own "today", so relative deadlines have one right answer."""
    if not day:
        yield
        return
    if isinstance(day, str):
        day = datetime.date.fromisoformat(day)
    with mock.patch("django.utils.timezone.localdate", return_value=day):
        yield


def conversation_score(*, name: str, script: Mapping[str, Any], user: Any) -> ConversationScore:
    """Play one conversation and compare the stored fields with its `expect.fields`."""
    play = {k: v for k, v in script.items() if k in ("title", "language", "turns", "client_name")}
    with _today(script.get("today")):
        project = simulation_run(script=play, user=user)
    project.refresh_from_db()
    stored = {stage.key: stage.fields for stage in project.stages.all()}
    score = ConversationScore(name=name, status=project.status)
    for stage_key, fields in (script["expect"].get("fields") or {}).items():
        for field_name, expected in fields.items():
            actual = stored.get(stage_key, {}).get(field_name)
            score.fields.append(
                FieldScore(stage_key, field_name, expected, actual, value_matches(expected, actual))
            )
    for stage_key, fields in stored.items():
        for field_name, value in fields.items():
            if is_chatter(value):
                score.chatter.append(f"{stage_key}.{field_name}")
    project.delete()
    return score


def scores_table(scores: Iterable[ConversationScore]) -> list[tuple[str, int, int]]:
    """(stage.field, right, total) for every expected field, in first-seen order."""
    table: dict[str, list[int]] = {}
    for score in scores:
        for item in score.fields:
            row = table.setdefault(f"{item.stage}.{item.field}", [0, 0])
            row[0] += item.right
            row[1] += 1
    return [(key, right, total) for key, (right, total) in table.items()]


def summary_line(scores: list[ConversationScore]) -> str:
    right = sum(item.right for score in scores for item in score.fields)
    total = sum(len(score.fields) for score in scores)
    good = sum(score.fully_right for score in scores)
    share = 100 * right / total if total else 0.0
    return (
        f"conversations: {good}/{len(scores)} complete and fully right; "
        f"field accuracy {right}/{total} ({share:.1f}%)"
    )
