"""The staged briefing: projects, stages, turns, locks, events and the orchestrator."""
