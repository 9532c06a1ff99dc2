"""The road of a client turn, from the stored message to the stored reply.

Here: the orchestrator (`orchestrator.py`) and the turn's claim (`claims.py`), its work in
memory (`work.py`) and its one final write (`outcome.py`); the model pool it is routed to
(`routing.py`); the message read for every stage (`reading.py`, over `briefing/reader/`);
the stage agents (`agents.py`), what they see (`context.py`), the rules agent's dialogue
(`dialogue.py`) over each field's state (`field_states.py`), the studio's tools
(`tool_use.py`, `source_names.py`); completion and the final brief (`completion.py`,
`brief.py`); what is known before the client writes (`known_data.py`) and the rate limits on
client messages (`limits.py`).

Imports `briefing.common`, `briefing.models`, `briefing.stages` and `briefing.reader`, never
a page (`producer`, `client`, `results`), `upkeep`, `playback`, `services` or `tasks`: those
call the turn (the `briefing-rooms` and `turn-imports-no-page` contracts in .importlinter).
Services, tasks, the pages and upkeep may import it.
"""
