"""Template filters that show the dlq app's codes under their names for people
({{ outcome|outcome_label }}: "fast" → "быстрый путь")."""

from __future__ import annotations

from django import template

from dlq.models import StructuredCall

register = template.Library()


@register.filter
def outcome_label(outcome: str) -> str:
    """How far the parse pipeline went, in words; an unknown code is shown as it is."""
    try:
        return str(StructuredCall.Outcome(outcome).label)
    except ValueError:
        return outcome
