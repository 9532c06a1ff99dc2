"""What every room of the briefing app stands on: the reads (`selectors.py`), one domain event
recorded at a time (`events.py`), the inbox's facts written with every change (`inbox.py`),
what the pages say about a briefing (`status.py`), human labels of fields and locks
(`labels.py`), replies written by code (`texts.py`), who may see which briefing (`access.py`)
and the roles (`roles.py`).

Imports `briefing.models`, `briefing.stages` and `briefing.reader` only, never a room above
it; every room (turn, services, the pages, upkeep, playback) may import it.
"""
