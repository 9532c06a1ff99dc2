"""Template filters that show stage fields and lock keys under their human labels in the
active language ({{ name|field_label:stage_key }}, {{ key|lock_label }}, {{ key|stage_title }})."""

from __future__ import annotations

from collections.abc import Iterable

from django import template

from briefing import labels
from briefing.stages.registry import BRIEFING_TYPES
from briefing.stages.registry import stage_title as registry_stage_title

register = template.Library()


@register.filter
def field_label(name: str, stage_key: str = "") -> str:
    return labels.field_label(stage_key, name)


@register.filter
def field_labels(names: Iterable[str], stage_key: str = "") -> str:
    return labels.field_labels(stage_key, names)


@register.filter
def lock_label(key: str) -> str:
    return labels.lock_label(key)


@register.filter
def stage_title(stage_key: str) -> str:
    """A stage key's title in the active language (the producer's), the key if unknown."""
    spec = next(
        (spec for stages in BRIEFING_TYPES.values() for spec in stages if spec.key == stage_key),
        None,
    )
    return registry_stage_title(spec, labels.label_language()) if spec else stage_key
