"""The staged briefing: projects, stages, turns, locks, events, grouped by role into rooms.

Each room imports only rooms below it (the `briefing-rooms` contract in .importlinter):
the pages `producer/` (the producer's desk), `client/` (the client's chat) and `results/`,
with `upkeep/` (dead letters, archive, forgetting the client) and `playback/` (conversations
played from files) → `services.py` (writes) → `tasks.py` → `turn/` (the road of a client
turn) → `common/` (reads, events, the inbox's facts, labels) → `models.py`. `stages/` and
`reader/` are used by every room; the entry points Django looks for (`apps.py`, `admin.py`,
`urls.py`, `management/`, `templatetags/`) stay here. docs/architecture.md walks a turn
through them.
"""
