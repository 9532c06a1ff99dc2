"""Briefing stages as data, and the pieces every stage module shares.

The shared pieces live in `fields` (field types, `StageFields`), `readers` (the rules
agent's answer readers), `summaries` (number and "Label: value" formatting), `prompts`
(the stage prompt template) and `checks` (the import-time consistency check). The stage
modules (`intro`, `vision`, `service`, `budget`, `extra`) import from those; none of them
imports a stage, so `registry` is where a briefing type's stages are listed
(`briefing.stages.registry.stages_for`).
"""

# briefing/services.py reads a contact through the package; the rest import the modules.
from briefing.stages.readers import read_contact

__all__ = ["read_contact"]
