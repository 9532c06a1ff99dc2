"""Reads of the studio's data for the pages: what memory holds for a briefing's client, and
the audit trail of the back office's edits."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from studio.memory import EDITABLE_FACTS, FACT_FIELDS, ClientFacts, client_keys, fact_values
from studio.models import ClientSnapshot, StudioChange


@dataclass(frozen=True)
class MemoryFact:
    field: str
    value: str
    editable: bool


@dataclass(frozen=True)
class ClientMemory:
    key: str
    facts: list[MemoryFact]
    corrected: bool
    rebuilt_at: datetime.datetime


def client_memory(profile: Mapping[str, Mapping[str, Any]]) -> ClientMemory | None:
    """The snapshot the briefing's prompts carry for its client (by contact first, else
    company), as fact lines in the snapshot's order; None for a client memory does not know."""
    keys = client_keys(profile)
    found = {s.key: s for s in ClientSnapshot.objects.filter(key__in=keys)}
    snapshot = next((found[k] for k in keys if k in found), None)
    if snapshot is None:
        return None
    facts = ClientFacts.model_validate(snapshot.facts)
    lines = [
        MemoryFact(field=field, value=value, editable=field in EDITABLE_FACTS)
        for field in FACT_FIELDS
        for value in fact_values(facts, field)
    ]
    return ClientMemory(snapshot.key, lines, snapshot.corrected, snapshot.rebuilt_at)


def studio_changes(*, sections: list[str], item_id: int | None = None) -> QuerySet[StudioChange]:
    """The audit trail of these sections (of one row of them with `item_id`), newest first."""
    changes = StudioChange.objects.filter(section__in=sections).select_related("user")
    if item_id is not None:
        changes = changes.filter(item_id=item_id)
    return changes.order_by("-at", "-id")
