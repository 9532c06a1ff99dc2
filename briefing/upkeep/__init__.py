"""Upkeep of briefings after the conversation: a failed turn as a dead letter's source, fixed
or replayed by a manager (`dead_letters.py`, registered in dlq.sources); a briefing archived
and a client forgotten (`retention.py`); completed briefings in studio's memory
(`records.py`, registered in studio.records).

A top room: it imports `turn`, `common` and `models`; nothing in briefing imports it but
`apps.py` and `admin.py`.
"""
