"""Briefings are never deleted: a person archives one (an event says who and when), and only
forgetting the client (studio.memory.client_forget) erases what the client wrote, leaving
the rows in place and an event that says the erasure happened and holds none of the data."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext
from pydantic import ValidationError

from briefing.common.events import event_record
from briefing.common.inbox import project_lock
from briefing.models import BriefingEvent, BriefingNote, LockedEntity, Project, StageRun, Turn
from briefing.reader.contacts import contact_parts
from briefing.turn.completion import brief_finish
from briefing.upkeep.dead_letters import turn_dead_letters_erase
from studio.memory import company_key, contact_key
from webhooks.models import WebhookDelivery

Kind = BriefingEvent.Kind

# The stage fields that say who the client is and how to reach them.
IDENTITY_FIELDS = ("clientName", "company", "contact")
# Event data keys whose values code writes (field and lock keys, counts, ids, provider names,
# error signatures), never the client's words: an erased event keeps these, so its line still
# says what happened, and loses everything else (values, evidence, quotes, reasons).
CODE_KEYS = frozenset({
    "seq", "field", "key", "by", "signature", "provider", "layer", "served_by", "guard", "risk",
    "level", "missing", "call", "proposal", "retry", "given", "closing", "cached", "size",
    "shown", "total", "truncated", "fact", "scope", "channel", "rate", "retry_after_s",
    "statement", "confidence", "start", "end", "pool", "model",
})  # fmt: skip
# A name shorter than this is not looked for in a title (it would cut ordinary words).
_NAME_MIN = 3


def erased_text(language: str) -> str:
    """What is stored where the client's words were, in the briefing's language."""
    with translation.override(language):
        return gettext("[erased at the client's request]")


@transaction.atomic
def project_archive(*, project: Project, user: Any) -> bool:
    """Archive a briefing instead of deleting it; False when it was archived already."""
    archived = Project.objects.filter(pk=project.pk, archived_at__isnull=True).update(
        archived_at=timezone.now()
    )
    if not archived:
        return False
    event_record(project=project, kind=Kind.PROJECT_ARCHIVED, actor=user)
    return True


def client_keys_of(project: Project) -> set[str]:
    """Every memory key (studio.memory) the briefing's client is known by: the profile's
    company and contact (each contact of the field too), the producer's client name and
    contact, and the keys the last processed turn left."""
    profile = project.profile if isinstance(project.profile, dict) else {}
    intro = profile.get("intro") if isinstance(profile.get("intro"), dict) else {}
    companies = [intro.get("company"), project.client_name]
    contacts = [intro.get("contact"), project.client_contact]
    contacts += [part for value in list(contacts) for part in contact_parts(value)]
    keys = {company_key(v) for v in companies if isinstance(v, str) and v.strip()}
    keys |= {contact_key(v) for v in contacts if isinstance(v, str) and v.strip()}
    return keys | ({project.memory_company_key, project.memory_contact_key} - {""})


def _client_projects(keys: set[str]) -> dict[int, set[str]]:
    """The briefings of the client with these memory keys, whatever their status, each with
    every key its client is known by."""
    fields = ("id", "profile", "client_name", "client_contact", "memory_company_key",
              "memory_contact_key")  # fmt: skip
    projects = Project.objects.only(*fields).order_by("id").iterator(chunk_size=1000)
    found = ((project.pk, client_keys_of(project)) for project in projects)
    return {pk: known for pk, known in found if known & keys}


@transaction.atomic
def client_briefings_erase(
    *, company: str = "", contact: str = "", actor: Any = None
) -> tuple[int, set[str]]:
    """Erase the client with this company or contact from every briefing of theirs (see
    `_project_erase`). Returns how many briefings were erased, and every memory key their
    client was known by (the other contact of a company named, say): the memory under those
    keys must go too, or it would still tell what was erased."""
    keys = {k for k in (company and company_key(company), contact and contact_key(contact)) if k}
    if not keys:
        return 0, set()
    erased = _client_projects(keys)
    for project_id in erased:
        _project_erase(project_id, names=(company, contact), actor=actor)
    return len(erased), keys.union(*erased.values())


def _names(project: Project, extra: Iterable[str]) -> list[str]:
    """The client's names and contacts as written, longest first (for the title)."""
    profile = project.profile if isinstance(project.profile, dict) else {}
    intro = profile.get("intro") if isinstance(profile.get("intro"), dict) else {}
    values = [*extra, project.client_name, project.client_contact]
    values += [intro.get(name) for name in IDENTITY_FIELDS]
    values += [part for value in list(values) for part in contact_parts(value)]
    found = {v.strip() for v in values if isinstance(v, str) and len(v.strip()) >= _NAME_MIN}
    return sorted(found, key=len, reverse=True)


def _without(text: str, names: Iterable[str]) -> str:
    for name in names:
        text = re.sub(re.escape(name), "…", text, flags=re.IGNORECASE)
    return text


def _identity_dropped(fields: Any) -> dict[str, Any]:
    fields = dict(fields) if isinstance(fields, dict) else {}
    for name in IDENTITY_FIELDS:
        fields.pop(name, None)
    return fields


def _dialogue_erased(dialogue: Any) -> dict[str, Any]:
    """The dialogue's states without the identity fields' entries and without any evidence
    (the client's words a value was read from); the other fields' counts and states stay."""
    if not isinstance(dialogue, dict):
        return {}
    return {
        name: {k: v for k, v in entry.items() if k != "evidence"} if isinstance(entry, dict)
        else entry
        for name, entry in dialogue.items() if name not in IDENTITY_FIELDS
    }  # fmt: skip


def _event_data_erased(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    return {key: value for key, value in data.items() if key in CODE_KEYS}


def _project_erase(project_id: int, *, names: Iterable[str], actor: Any) -> None:
    """Erase the client from one briefing, with the row locked (a turn in flight waits): the
    client's identity from the briefing, its stages and its brief; the text of every turn;
    the values of its locks and events; its dead letters and model calls; its completed
    brief's webhook payloads. The briefing is archived and its client link closed, and an
    event records the erasure with only how many rows it touched."""
    project_lock(project_id, numbers=0)
    project = Project.objects.get(pk=project_id)
    placeholder = erased_text(project.language)
    client_names = _names(project, names)

    stages = list(StageRun.objects.filter(project=project).order_by("order"))
    for stage in stages:
        stage.fields = _identity_dropped(stage.fields)
        stage.dialogue = _dialogue_erased(stage.dialogue)
        stage.summary = ""
    StageRun.objects.bulk_update(stages, ["fields", "dialogue", "summary"])

    turns = Turn.objects.filter(project=project)
    turn_ids = list(turns.values_list("pk", flat=True))
    erased_turns = turns.exclude(text="").update(text=placeholder)
    BriefingNote.objects.filter(project=project).update(text=placeholder)
    turns.update(meta={})
    events = list(BriefingEvent.objects.filter(project=project))
    for event in events:
        event.data = _event_data_erased(event.data)
    BriefingEvent.objects.bulk_update(events, ["data"], batch_size=500)
    locks = LockedEntity.objects.filter(project=project).update(value=placeholder[:300])
    letters = turn_dead_letters_erase(
        project_id=project.pk, turn_ids=turn_ids, placeholder=placeholder, actor=actor,
        note=_note(project.language),
    )  # fmt: skip

    project.title = _without(project.title, client_names) or placeholder
    project.client_name = project.client_contact = ""
    project.memory_company_key = project.memory_contact_key = ""
    project.client_token = None
    project.profile = {
        key: _identity_dropped(fields) if isinstance(fields, dict) else fields
        for key, fields in (project.profile or {}).items()
    }
    if project.brief is not None:
        _brief_erase(project, stages, placeholder)
    project.archived_at = project.archived_at or timezone.now()
    # Only what the erasure changed: the inbox's facts were refreshed under the lock meanwhile.
    project.save(
        update_fields=["title", "client_name", "client_contact", "memory_company_key",
                       "memory_contact_key", "client_token", "profile", "brief",
                       "summary_markdown", "archived_at", "updated_at"]
    )  # fmt: skip
    deliveries = _webhook_payloads_erase(project.pk)
    event_record(
        project=project, kind=Kind.CLIENT_FORGOTTEN, actor=actor,
        data={"turns": erased_turns, "events": len(events), "locks": locks,
              "webhook_deliveries": deliveries, **letters},
    )  # fmt: skip


def _note(language: str) -> str:
    with translation.override(language):
        return gettext("discarded: the client was forgotten")


def _brief_erase(project: Project, stages: list[StageRun], placeholder: str) -> None:
    """The brief and its markdown written again from the erased stages, the additional
    requests' text replaced; status and completion time as they were."""
    requests = (project.brief or {}).get("additionalRequests") or []
    project.brief = {
        **project.brief,
        "additionalRequests": [
            {**request, "text": placeholder} for request in requests if isinstance(request, dict)
        ],
    }
    status, completed_at = project.status, project.completed_at
    try:
        brief_finish(project, stages)
    except ValidationError:  # a brief that no longer validates is dropped, not kept whole
        project.brief, project.summary_markdown = None, ""
    project.status, project.completed_at = status, completed_at


def _webhook_payloads_erase(project_id: int) -> int:
    """The completed brief as its webhook deliveries hold it (sent or still to send)."""
    deliveries = list(
        WebhookDelivery.objects.filter(kind="brief.completed", payload__data__project_id=project_id)
    )
    for delivery in deliveries:
        delivery.payload = {**delivery.payload, "data": {"project_id": project_id, "erased": True}}
    WebhookDelivery.objects.bulk_update(deliveries, ["payload"])
    return len(deliveries)
