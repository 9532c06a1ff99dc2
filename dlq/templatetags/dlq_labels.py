"""Template filters that show the dlq app's codes under their names for people
({{ outcome|outcome_label }}: "fast" → "быстрый путь"; {{ error|error_label }}: a parse
error's kind, "no_json" → "в ответе нет JSON-объекта")."""

from __future__ import annotations

from typing import Any

from django import template

from dlq import error_labels
from dlq.models import StructuredCall

register = template.Library()


@register.filter
def outcome_label(outcome: str) -> str:
    """How far the parse pipeline went, in words; an unknown code is shown as it is."""
    try:
        return str(StructuredCall.Outcome(outcome).label)
    except ValueError:
        return outcome


@register.filter
def error_label(error: Any) -> str:
    """A stored parse error (`{"path", "kind", "message"}`) as the office reads it: its kind's
    label, not llmkit's English message."""
    return error_labels.error_label(error)
