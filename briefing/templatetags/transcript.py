"""Template filters for the producer's transcript: what the models saw of a long message."""

from __future__ import annotations

from django import template

from briefing.turn.context import MAX_QUOTED_CHARS

register = template.Library()


@register.filter
def shortened_for_model(text: str) -> dict[str, int] | None:
    """{"shown", "total"} characters when the stage agents saw only the start of `text`
    (briefing.turn.context quotes a turn up to MAX_QUOTED_CHARS); None when they saw it whole.
    The transcript always holds the whole text."""
    total = len(text or "")
    if total <= MAX_QUOTED_CHARS:
        return None
    return {"shown": MAX_QUOTED_CHARS, "total": total}
