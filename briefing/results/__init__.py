"""The results table across briefings: the page (`views.py`), its reads (`table.py`) and its
CSV and XLSX exports (`exports.py`).

A top room: it imports `common`, `models`, `stages` and `reader`; nothing in briefing imports
it but `urls.py`.
"""
