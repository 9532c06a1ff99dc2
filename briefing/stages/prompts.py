"""The stage prompt template: the short English instruction block of one stage."""

from __future__ import annotations

from collections.abc import Sequence


def stage_prompt(
    *,
    stage: str,
    collect: str,
    status_field: str,
    required: Sequence[str],
    example: str,
    rules: Sequence[str] = (),
) -> str:
    """The stage's short English instruction block. The gate sentence is written from
    `required`, so the prompt cannot disagree with the gate."""
    if required:
        gate = f"Set {status_field} true only when {', '.join(required)} are filled."
    else:
        gate = f"Set {status_field} true when the client has nothing more to add."
    lines = [
        f"You are the {stage} step of a video-production briefing with a client.",
        f"Collect: {collect}.",
        "Ask ONE short question at a time.",
        "Never invent values the client did not give: leave them null.",
        "Keep names, brands and quotes in the client's own words.",
        *rules,
        gate,
        f'Example question: "{example}"',
    ]
    return "\n".join(lines)
