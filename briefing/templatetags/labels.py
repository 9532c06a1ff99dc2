"""Template filters that show stage fields and lock keys under their human labels in the
active language ({{ name|field_label:stage_key }}, {{ key|lock_label }}, {{ key|stage_title }})."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from django import template
from django.utils.translation import gettext

from briefing.common import labels
from briefing.common.status import WaitingFor
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
def memory_fact_label(kind: str) -> str:
    return labels.memory_fact_label(kind)


@register.filter
def tool_label(name: str) -> str:
    return labels.tool_label(name)


@register.filter
def as_json(value: Any) -> str:
    """A value as JSON (a tool call's arguments), not as Python writes a dict."""
    return json.dumps(value, ensure_ascii=False)


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


@register.filter
def field_value(value: Any) -> str:
    """A stage field's value as a person reads it: a list one item after another, yes/no in
    the active language, "—" for nothing."""
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, list | tuple):
        return "; ".join(str(item) for item in value)
    return str(value)


@register.filter
def stage_field_items(row: Any) -> list[tuple[str, Any]]:
    """(field, value) of every field of a timeline row's stage, in the stage's order, filled
    or not (briefing.common.status.StageRow: `spec.fields`, `run.fields`)."""
    values = row.run.fields or {}
    return [(name, values.get(name)) for name in row.spec.fields]


@register.filter
def waiting_label(waiting_for: str) -> str:
    """Who a briefing waits for (one of status.WaitingFor), in the active language."""
    return str(WaitingFor.LABELS.get(waiting_for, waiting_for))


@register.filter
def waited(since: Any) -> str:
    """How long since `since`, as the inbox says it: "just now" under a minute (Django's
    timesince says "0 minutes")."""
    from django.utils import timezone
    from django.utils.timesince import timesince
    from django.utils.translation import gettext

    if not since:
        return ""
    if (timezone.now() - since).total_seconds() < 60:
        return gettext("just now")
    return timesince(since)


@register.filter
def client_shown(project: Any) -> str:
    """The client's name on an inbox row: the one the producer typed, else the one the
    reader found in the conversation, else a dash."""
    profile = project.profile if isinstance(project.profile, dict) else {}
    intro = profile.get("intro") if isinstance(profile.get("intro"), dict) else {}
    found = intro.get("clientName")
    return project.client_name or (found if isinstance(found, str) and found else "—")
