"""Briefing types: each is an ordered tuple of stages. The orchestrator reads stages from here
and never names one; a new briefing type is another tuple."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from briefing.stages import budget, extra, intro, service, vision
from briefing.stages.base import StageSpec
from core.errors import ApplicationError

BRIEFING_TYPES: dict[str, tuple[StageSpec, ...]] = {
    "production": (intro.STAGE, vision.STAGE, service.STAGE, budget.STAGE, extra.STAGE),
}
DEFAULT_BRIEFING_TYPE = "production"

# StageSpec has one (English) `title`; the titles in the client's language live beside it
# until StageSpec carries them itself.
STAGE_TITLES: dict[str, Mapping[str, str]] = {
    module.STAGE.key: module.TITLES for module in (intro, vision, service, budget, extra)
}


def stages_for(briefing_type: str) -> tuple[StageSpec, ...]:
    """The stages of a briefing type, in order; KeyError naming the known types otherwise."""
    try:
        return BRIEFING_TYPES[briefing_type]
    except KeyError:
        known = ", ".join(sorted(BRIEFING_TYPES))
        raise KeyError(f"unknown briefing type {briefing_type!r} (known: {known})") from None


def stage_by_key(briefing_type: str, key: str) -> StageSpec:
    """One stage of a briefing type by its key; KeyError naming the type's stages otherwise."""
    stages = stages_for(briefing_type)
    for spec in stages:
        if spec.key == key:
            return spec
    keys = ", ".join(spec.key for spec in stages)
    raise KeyError(f"briefing type {briefing_type!r} has no stage {key!r} (stages: {keys})")


def spec_for(project: Any, stage_key: str) -> StageSpec:
    """The stage `stage_key` of a project's briefing type; an ApplicationError otherwise (a
    stage key comes from a form or a stored turn)."""
    try:
        return stage_by_key(project.briefing_type, stage_key)
    except KeyError:
        raise ApplicationError(f"unknown stage {stage_key!r}") from None


def stage_title(spec: StageSpec, language: str) -> str:
    """The stage's title in `language`, its English `title` when there is none."""
    titles = getattr(spec, "titles", None) or STAGE_TITLES.get(spec.key, {})
    return titles.get(language) or spec.title


def _check_unique_keys() -> None:
    for name, stages in BRIEFING_TYPES.items():
        keys = [spec.key for spec in stages]
        if len(keys) != len(set(keys)):
            raise ValueError(f"briefing type {name!r} repeats a stage key: {keys}")


_check_unique_keys()

__all__ = [
    "BRIEFING_TYPES",
    "DEFAULT_BRIEFING_TYPE",
    "STAGE_TITLES",
    "spec_for",
    "stage_by_key",
    "stage_title",
    "stages_for",
]
