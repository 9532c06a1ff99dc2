"""Figures about the work that model calls serve (a client's messages), computed by the app
that owns that work and shown on the quality page. The dlq app imports none of them; the
app registers its reader when Django starts (`AppConfig.ready`), as dead-letter sources do."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

# (since, until) → the figures of the client turns received in [since, until).
TurnFiguresReader = Callable[..., dict[str, Any]]

NO_TURN_FIGURES: dict[str, Any] = {
    "turns": 0, "calls_median": None, "without_tools": 0, "without_tools_share": None,
    "tool_calls": 0, "tool_cache_hits": 0, "tool_cache_hit_share": None,
}  # fmt: skip
_readers: dict[str, TurnFiguresReader] = {}


def turn_figures_register(reader: TurnFiguresReader) -> None:
    _readers["turns"] = reader


def turn_figures(*, since: datetime, until: datetime) -> dict[str, Any]:
    """The registered app's figures, or none (no app that handles client messages)."""
    reader = _readers.get("turns")
    return reader(since=since, until=until) if reader else dict(NO_TURN_FIGURES)
