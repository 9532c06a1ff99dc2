"""Conversations played from YAML files (`briefing/examples/`) through the real services and
orchestrator: scripted ones with producer actions (`simulation.py`, `manage.py
simulate_briefing`) and natural ones scored against their expected fields (`evaluation.py`,
`manage.py eval_briefings`).

A top room: it imports `services`, `models` and `reader`; nothing in briefing imports it but
the management commands.
"""
