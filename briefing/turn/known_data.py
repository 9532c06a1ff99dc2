"""What is known about a briefing's client before they write (a producer's form, a lead's
card), filled into the intro stage (and a lead's budget and deadline into the stage that asks
them) when the briefing is created, each value an event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from briefing.common.events import event_record
from briefing.models import BriefingEvent, LockedEntity, Project, StageRun
from briefing.stages.registry import spec_for
from briefing.turn.completion import project_profile_sync

Kind = BriefingEvent.Kind


def known_data_fill(
    project: Project, *, name: str, company: str, contact: str, source: str
) -> None:
    """Fill the intro stage from what is known before the client writes: the name (read for
    a company too: "Игорь Петров, «Пульс»"), the company and the contact (a phone in E.164,
    an e-mail lower-cased). The name is locked as the producer's (or the lead's): a client's
    different name later is a proposal the producer decides."""
    from django.utils import timezone as django_timezone

    from briefing.reader import message_read
    from briefing.stages import read_contact

    stage = project.stages.filter(key="intro").first()
    if stage is None or not (name.strip() or company.strip() or contact.strip()):
        return
    spec = spec_for(project, "intro")
    known: dict[str, Any] = {}
    if name.strip():
        reading = message_read(
            name.strip(), language=project.language, today=django_timezone.localdate(),
            asked=("clientName", "company"),
        )  # fmt: skip
        found = reading.get("clientName")
        known["clientName"] = found.value if found else name.strip()
        if reading.get("company"):
            known["company"] = reading.get("company").value
    if company.strip():
        known["company"] = company.strip()
    if contact.strip():
        known["contact"] = read_contact(contact, project.language) or contact.strip()
    fields = {}
    for field_name, value in known.items():
        if field_name in spec.fields:
            try:
                checked = spec.answer_model.model_validate({"message": "", field_name: value})
            except ValidationError:
                continue
            fields[field_name] = getattr(checked, field_name)
    stage.fields = {**stage.fields, **fields}
    stage.save(update_fields=["fields"])
    for field_name, value in fields.items():
        event_record(
            project=project, kind=Kind.PREFILL_FILLED, stage_key="intro",
            data={"field": field_name, "value": value, "source": source, "evidence": value},
        )  # fmt: skip
    lock_key = spec.locks.get("clientName")
    if lock_key and fields.get("clientName"):
        LockedEntity.objects.create(
            project=project, key=lock_key, value=fields["clientName"], source=source,
            set_by=project.producer if source == LockedEntity.Source.PRODUCER else None,
        )  # fmt: skip
        event_record(
            project=project, kind=Kind.LOCK_SET,
            data={"key": lock_key, "old": None, "new": fields["clientName"], "source": source},
        )  # fmt: skip
    project_profile_sync(project)


def known_findings_fill(project: Project, *, findings: Mapping[str, Any], source: str) -> None:
    """Fill the fields the stages' pre-parse takes these findings into ("budget", "currency",
    "deadline" of a lead's card), as if the client's first message had stated them: each value
    an event, and a stage whose required fields are then all known is closed by the pre-parse,
    so the bot skips it and the read-back confirms them. A value the stage refuses is left out."""
    from django.utils import timezone as django_timezone

    stages = list(project.stages.order_by("order"))
    targets: dict[str, tuple[StageRun, str]] = {}
    for stage in stages:
        for finding, field_name in spec_for(project, stage.key).prefill.items():
            targets.setdefault(finding, (stage, field_name))
    filled: dict[str, StageRun] = {}
    for finding, value in findings.items():
        if finding not in targets or value in (None, ""):
            continue
        stage, field_name = targets[finding]
        spec = spec_for(project, stage.key)
        try:
            checked = spec.answer_model.model_validate({"message": "", field_name: value})
        except ValidationError:
            continue
        stage.fields = {**stage.fields, field_name: getattr(checked, field_name)}
        filled[stage.key] = stage
        event_record(
            project=project, kind=Kind.PREFILL_FILLED, stage_key=stage.key,
            data={"field": field_name, "value": stage.fields[field_name], "source": source,
                  "evidence": value},
        )  # fmt: skip
    for stage in filled.values():
        spec = spec_for(project, stage.key)
        if (
            stage.status != StageRun.Status.CLOSED
            and spec.required
            and not spec.missing(stage.fields)
        ):
            stage.status, stage.closed_by = StageRun.Status.CLOSED, StageRun.ClosedBy.PREFILL
            stage.closed_at = django_timezone.now()
            stage.summary = spec.summary(stage.fields, project.language)
            event_record(
                project=project, kind=Kind.STAGE_CLOSED, stage_key=stage.key,
                data={"by": StageRun.ClosedBy.PREFILL},
            )  # fmt: skip
        stage.save(update_fields=["fields", "status", "closed_by", "closed_at", "summary"])
    if filled:
        project_profile_sync(project)
