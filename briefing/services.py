"""Writes of the briefing app: projects, client turns, locks and every producer action.
Each change a person makes is a domain event with who, when, old and new value."""

from __future__ import annotations

import datetime
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import ValidationError

from briefing.common.events import event_record
from briefing.common.inbox import inbox_turn_received, project_lock
from briefing.common.labels import field_labels, label_language, lock_label
from briefing.common.selectors import assignees, lock_proposals_pending, person_name
from briefing.models import (
    BriefingEvent,
    BriefingNote,
    CannedReply,
    CannedReplyChange,
    LockedEntity,
    Project,
    StageRun,
    Turn,
)
from briefing.stages.base import StageSpec
from briefing.stages.registry import DEFAULT_BRIEFING_TYPE, spec_for, stage_title, stages_for
from briefing.turn.completion import brief_refresh, project_complete_if_done, project_profile_sync
from briefing.turn.known_data import known_data_fill, known_findings_fill
from briefing.turn.limits import limits_hit, rates_parse
from core.errors import ApplicationError
from core.log_context import log_context_bind
from core.queueing import queue_after_commit

# A client message up to this long is stored whole (a brief pasted from a document runs to
# 25,000 characters); the stage agents see the first context.MAX_QUOTED_CHARS of it, which
# the producer's transcript says. Longer is refused in words: the chat page's textarea sets
# no maxlength, which would cut a paste silently. The reader takes ~1 s at this length.
MAX_CLIENT_TEXT = 50_000
Kind = BriefingEvent.Kind
logger = logging.getLogger(__name__)


@transaction.atomic
def project_create(
    *,
    title: str,
    client_name: str = "",
    client_contact: str = "",
    client_company: str = "",
    language: str = "ru",
    producer: Any = None,
    briefing_type: str = DEFAULT_BRIEFING_TYPE,
    known_source: str = LockedEntity.Source.PRODUCER,
    known_findings: Mapping[str, Any] | None = None,
) -> Project:
    """A new briefing. The name, company and contact a producer typed (or a lead's card,
    `known_source="lead"`) fill the intro stage first, and `known_findings` (a lead's
    "budget", "currency", "deadline") the stage that asks them, so the bot does not ask."""
    try:
        specs = stages_for(briefing_type)
    except KeyError as error:
        raise ApplicationError(str(error)) from None
    project = Project(
        title=title.strip() or client_name or "Briefing",
        client_name=client_name,
        client_contact=client_contact,
        language=language,
        producer=producer,
        briefing_type=briefing_type,
    )
    project.full_clean()
    project.save()
    StageRun.objects.bulk_create(
        StageRun(
            project=project,
            key=spec.key,
            order=index,
            status=StageRun.Status.OPEN if index == 0 else StageRun.Status.PENDING,
        )
        for index, spec in enumerate(specs)
    )
    known_data_fill(
        project, name=client_name, company=client_company, contact=client_contact,
        source=known_source,
    )  # fmt: skip
    if known_findings:
        known_findings_fill(project, findings=known_findings, source=known_source)
    return project


@transaction.atomic(savepoint=False)
def turn_append(
    *,
    project: Project,
    role: str,
    text: str,
    stage_key: str = "",
    status: str = Turn.Status.DONE,
    reply_to: Turn | None = None,
    call: Any = None,
    author: Any = None,
    meta: Mapping[str, Any] | None = None,
    idempotency_key: str = "",
) -> Turn:
    """Append one transcript line (the project row is locked while its number is taken)."""
    return Turn.objects.create(
        project=project, seq=project_lock(project.pk).top_seq + 1, role=role, text=text,
        stage_key=stage_key, status=status, reply_to=reply_to, call=call, author=author,
        meta=dict(meta or {}), idempotency_key=idempotency_key,
    )  # fmt: skip


def current_stage(project: Project) -> StageRun | None:
    return project.stages.exclude(status=StageRun.Status.CLOSED).order_by("order").first()


# Visible ASCII, as HTTP header values allow; a UUID or a random token fits easily.
IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,100}$")


def _client_text_check(text: Any) -> str:
    if not isinstance(text, str):
        raise ApplicationError("a message must be text")
    text = text.replace("\x00", "")
    if not text.strip():
        raise ApplicationError("the message is empty", extra={"reason": "empty"})
    if len(text) > MAX_CLIENT_TEXT:
        raise ApplicationError(
            f"the message is {len(text)} characters long; the limit is {MAX_CLIENT_TEXT}",
            extra={"limit": MAX_CLIENT_TEXT, "reason": "too_long"},
        )
    return text


def _idempotency_key_check(key: str | None) -> str:
    if key is None or key == "":
        return ""
    if not IDEMPOTENCY_KEY.match(key):
        raise ApplicationError(
            "the idempotency key must be 1 to 100 visible ASCII characters",
            extra={"fields": {"Idempotency-Key": "1 to 100 visible ASCII characters"}},
        )
    return key


def _replayed(stored: Turn, text: str) -> Turn:
    """The turn a repeated submission already stored; a key reused for another text is
    refused (it is a client's bug or a stale form, never a message to drop silently)."""
    if stored.text != text:
        raise ApplicationError(
            "this idempotency key was already used for another message; nothing was stored",
            extra={"fields": {"Idempotency-Key": "already used for another message"}},
            code="idempotency_key_reused",
        )
    return stored


def _drain_queue(project_id: int) -> None:
    """Queue the project's turn processing after the commit (turns_sweep finds it otherwise)."""
    from briefing.tasks import project_drain

    queue_after_commit(
        partial(project_drain.delay, project_id), what=f"briefing {project_id}: turn processing"
    )


def turn_receive(*, project: Project, text: str, idempotency_key: str | None = None) -> Turn:
    """Store a client message first, then queue its processing after commit: whatever
    happens next, nothing a client writes is lost. A message whose idempotency key is
    already stored for the briefing stores nothing and returns the turn stored first."""
    return _turn_store(
        project=project,
        text=_client_text_check(text),
        idempotency_key=_idempotency_key_check(idempotency_key),
    )[0]


def _turn_store(*, project: Project, text: str, idempotency_key: str) -> tuple[Turn, bool]:
    """(the turn, whether it was stored before under the same key)."""
    try:
        with transaction.atomic():
            if idempotency_key:
                # The project row lock makes a second submission with the key wait for the
                # first and find its turn (the unique constraint is the backstop).
                Project.objects.select_for_update().filter(pk=project.pk).first()
                stored = project.turns.filter(idempotency_key=idempotency_key).first()
                if stored is not None:
                    return _replayed(stored, text), True
            locked = project_lock(project.pk)
            stage = current_stage(project)  # read under the lock: a turn's write may close one
            turn = Turn.objects.create(
                project=project, seq=locked.top_seq + 1, role=Turn.Role.CLIENT, text=text,
                stage_key=stage.key if stage else "", status=Turn.Status.RECEIVED,
                idempotency_key=idempotency_key,
            )  # fmt: skip
            event = BriefingEvent.objects.create(
                project=project, kind=Kind.TURN_RECEIVED, turn=turn, data={"seq": turn.seq}
            )
            # The task queued below carries these ids into the worker's log lines.
            log_context_bind(briefing_id=project.pk, turn_id=turn.pk)
            # The stored facts follow from the row read under its lock and the new message,
            # without reading the briefing's turns and events again.
            inbox_turn_received(locked=locked, turn=turn, received_at=event.created_at)
            _drain_queue(project.pk)
    except IntegrityError:
        # A database that does not lock rows (SQLite) lets a simultaneous twin get here.
        stored = project.turns.filter(idempotency_key=idempotency_key).first()
        if not idempotency_key or stored is None:
            raise
        return _replayed(stored, text), True
    return turn, False


@dataclass(frozen=True)
class MessageReceipt:
    turn: Turn
    # Stored before under the same idempotency key: nothing new was stored or queued.
    replayed: bool


def client_message_receive(
    *,
    project: Project,
    text: Any,
    idempotency_key: str | None,
    sender_address: str | None,
    channel: str,
) -> MessageReceipt:
    """A client's message from outside (the chat page, the API): checked, answered from the
    stored turn when its idempotency key was seen, refused past the rate limits (nothing
    stored or queued; the producer hears once per window), else stored as `turn_receive`.
    The per-address limit applies when the sender's address is known (the chat page); an
    API integration relays many clients from one address and has its own per-token rate."""
    text = _client_text_check(text)
    key = _idempotency_key_check(idempotency_key)
    if key:
        stored = project.turns.filter(idempotency_key=key).first()
        if stored is not None:
            return MessageReceipt(_replayed(stored, text), replayed=True)
    limits = [("link", str(project.pk), r) for r in rates_parse(settings.CLIENT_CHAT_RATE_PER_LINK)]
    if sender_address:
        limits += [
            ("address", sender_address, r) for r in rates_parse(settings.CLIENT_CHAT_RATE_PER_IP)
        ]
    refusal = limits_hit(limits)
    if refusal is not None:
        if refusal.first_for(str(project.pk)):
            event_record(
                project=project,
                kind=Kind.CLIENT_RATE_LIMITED,
                data={
                    "scope": refusal.scope,
                    "rate": refusal.rate.text,
                    "channel": channel,
                    "retry_after_s": refusal.retry_after_s,
                },
            )
        raise ApplicationError(
            f"too many messages (the limit is {refusal.rate.text} per "
            f"{'sender address' if refusal.scope == 'address' else 'briefing'}); nothing was "
            f"stored: send it again in {refusal.retry_after_s} s",
            extra={"retry_after_s": refusal.retry_after_s, "scope": refusal.scope},
            code="throttled",
        )
    turn, replayed = _turn_store(project=project, text=text, idempotency_key=key)
    return MessageReceipt(turn, replayed=replayed)


# --- locks -------------------------------------------------------------------------------


@transaction.atomic
def lock_set(*, project: Project, key: str, value: str, user: Any = None) -> LockedEntity:
    """Lock (or edit) an entity as a producer; the stage fields that carry it follow, as a
    producer's correction, so the lock and the brief never disagree."""
    lock = _lock_write(project=project, key=key, value=value, user=user)
    for spec in stages_for(project.briefing_type):
        for field_name, lock_key in spec.locks.items():
            if lock_key == key:
                _field_write(
                    project=project, spec=spec, field=field_name, value=lock.value, user=user
                )
    brief_refresh(project)
    return lock


def lock_keys(project: Project) -> list[str]:
    """What a producer may lock in this briefing: the lock keys of its stages' fields (a
    free-text key made a second lock that looked like the real one)."""
    return sorted({k for spec in stages_for(project.briefing_type) for k in spec.locks.values()})


def _lock_write(*, project: Project, key: str, value: str, user: Any) -> LockedEntity:
    value = value.strip()
    if not key or not value:
        raise ApplicationError(_("a lock needs a key and a value"))
    if key not in lock_keys(project):
        raise ApplicationError(_("choose what to lock from the list"))
    lock = LockedEntity.objects.filter(project=project, key=key).first()
    old = lock.value if lock else None
    if lock is None:
        lock = LockedEntity(project=project, key=key)
    lock.value, lock.source, lock.set_by = value, LockedEntity.Source.PRODUCER, user
    lock.full_clean()
    lock.save()
    event_record(
        project=project, kind=Kind.LOCK_SET, data={"key": key, "old": old, "new": value},
        actor=user,
    )  # fmt: skip
    return lock


@transaction.atomic
def lock_remove(*, project: Project, key: str, user: Any = None) -> None:
    lock = LockedEntity.objects.filter(project=project, key=key).first()
    if lock is None:
        raise ApplicationError(_("“%(lock)s” is not locked") % {"lock": lock_label(key)})
    lock.delete()
    event_record(
        project=project, kind=Kind.LOCK_REMOVED, data={"key": key, "old": lock.value}, actor=user
    )


@transaction.atomic
def lock_change_decide(*, project: Project, proposal_id: int, accept: bool, user: Any) -> None:
    """Accept (the proposed value becomes the lock and the field, as the producer's) or
    reject (the lock stays) a change of a locked value the client proposed; once."""
    Project.objects.select_for_update().filter(pk=project.pk).first()
    pending = {event.pk: event for event in lock_proposals_pending(project)}
    proposal = pending.get(proposal_id)
    if proposal is None:
        raise ApplicationError(_("this proposed change was decided already or does not exist"))
    data = proposal.data
    if accept:
        lock_set(project=project, key=data["key"], value=str(data["new"]), user=user)
    event_record(
        project=project,
        kind=Kind.LOCK_CHANGE_ACCEPTED if accept else Kind.LOCK_CHANGE_REJECTED,
        data={"proposal": proposal.pk, "key": data["key"], "old": data.get("old"),
              "new": data.get("new")},
        actor=user,
    )  # fmt: skip


# --- producer actions ------------------------------------------------------------------


@transaction.atomic
def memory_fact_correct(
    *, project: Project, field: str, old: str, new: str, user: Any = None
) -> BriefingEvent:
    """A producer's correction of one fact memory holds about this briefing's client, from
    its page: rewritten (or removed, `new` empty) in the client's snapshots and kept by the
    daily rebuilds, recorded as an event with who, when, the old line and the new one."""
    from studio.memory import snapshot_fact_change

    keys, new = snapshot_fact_change(profile=project.profile or {}, field=field, old=old, new=new)
    return event_record(
        project=project, kind=Kind.MEMORY_CORRECTED, actor=user,
        data={"fact": field, "old": old, "new": new, "keys": keys},
    )  # fmt: skip


@transaction.atomic
def field_correct(
    *, project: Project, stage_key: str, field: str, value: Any, user: Any = None
) -> StageRun:
    """Set one stage field as a producer, validated against the stage's schema; the
    pre-parse and the agents never overwrite it afterwards. A field that carries a locked
    entity moves the lock with it."""
    spec = spec_for(project, stage_key)
    if field not in spec.fields:
        raise ApplicationError(f"{stage_key} has no field {field!r}", extra={"field": field})
    stage = _field_write(project=project, spec=spec, field=field, value=value, user=user)
    lock_key = spec.locks.get(field)
    new_value = stage.fields.get(field)
    if lock_key and isinstance(new_value, str) and new_value.strip():
        _lock_write(project=project, key=lock_key, value=new_value, user=user)
    brief_refresh(project)
    return stage


def _field_write(
    *, project: Project, spec: StageSpec, field: str, value: Any, user: Any
) -> StageRun:
    stage = StageRun.objects.select_for_update().get(project=project, key=spec.key)
    try:
        checked = spec.answer_model.model_validate({"message": "", field: value})
    except ValidationError as error:
        raise ApplicationError(
            f"{field}: {error.errors()[0]['msg']}",
            extra={"field": field, "errors": error.errors(include_url=False)},
        ) from None
    new_value = getattr(checked, field)
    old = stage.fields.get(field)
    stage.fields = {**stage.fields, field: new_value}
    stage.producer_fields = sorted({*stage.producer_fields, field})
    if stage.status == StageRun.Status.CLOSED:
        stage.summary = spec.summary(stage.fields, project.language)
    stage.save()
    project_profile_sync(project)
    event_record(
        project=project, kind=Kind.FIELD_CORRECTED, stage_key=spec.key,
        data={"field": field, "old": old, "new": new_value}, actor=user,
    )  # fmt: skip
    return stage


def _client_link_retire(project: Project) -> None:
    """Keep the old link's token: its client is told the link is gone (410), not 'no page'."""
    from briefing.models import RevokedClientLink

    if project.client_token:
        RevokedClientLink.objects.get_or_create(token=project.client_token, project=project)


@transaction.atomic
def client_link_rotate(*, project: Project, user: Any) -> str:
    """A new link for the client; the old one stops working at once."""
    from briefing.models import _client_token

    _client_link_retire(project)
    project.client_token = _client_token()
    project.save(update_fields=["client_token", "updated_at"])
    event_record(project=project, kind=Kind.CLIENT_LINK_ROTATED, actor=user)
    return project.client_token


@transaction.atomic
def client_link_revoke(*, project: Project, user: Any) -> None:
    """No link works any more until a producer makes a new one."""
    _client_link_retire(project)
    project.client_token = None
    project.save(update_fields=["client_token", "updated_at"])
    event_record(project=project, kind=Kind.CLIENT_LINK_REVOKED, actor=user)


@transaction.atomic
def takeover_start(*, project: Project, user: Any) -> None:
    project = Project.objects.select_for_update().get(pk=project.pk)
    if project.taken_over_by_id:
        raise ApplicationError(_("the briefing is already taken over"))
    project.taken_over_by = user
    project.save(update_fields=["taken_over_by", "updated_at"])
    event_record(project=project, kind=Kind.PRODUCER_TAKEOVER, actor=user)


@transaction.atomic
def takeover_release(*, project: Project, user: Any) -> None:
    """Hand the briefing back to the agents; client turns still waiting are processed."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    if not project.taken_over_by_id:
        raise ApplicationError(_("the briefing is not taken over"))
    project.taken_over_by = None
    project.save(update_fields=["taken_over_by", "updated_at"])
    _requeue_waiting(project)
    event_record(project=project, kind=Kind.PRODUCER_RELEASED, actor=user)
    _drain_queue(project.pk)


def _requeue_waiting(project: Project) -> None:
    project.turns.filter(status=Turn.Status.WAITING_PRODUCER).update(
        status=Turn.Status.RECEIVED, claimed_at=None
    )


@transaction.atomic
def producer_message_post(*, project: Project, text: str, user: Any) -> Turn:
    """A producer's message to the client; it answers every client turn waiting for one."""
    if not text.strip():
        raise ApplicationError("the message is empty")
    stage = current_stage(project)
    turn = turn_append(
        project=project, role=Turn.Role.PRODUCER, text=text.strip(),
        stage_key=stage.key if stage else "", author=user,
    )  # fmt: skip
    project.turns.filter(status=Turn.Status.WAITING_PRODUCER).update(
        status=Turn.Status.DONE, processed_at=timezone.now()
    )
    event_record(project=project, kind=Kind.PRODUCER_MESSAGE, turn=turn, actor=user)
    return turn


@transaction.atomic
def project_pause(*, project: Project, user: Any) -> None:
    project = Project.objects.select_for_update().get(pk=project.pk)
    if project.status != Project.Status.ACTIVE:
        raise ApplicationError(
            _("a %(status)s briefing cannot be paused") % {"status": project.get_status_display()}
        )
    project.status = Project.Status.PAUSED
    project.save(update_fields=["status", "updated_at"])
    event_record(project=project, kind=Kind.PROJECT_PAUSED, actor=user)


@transaction.atomic
def project_resume(*, project: Project, user: Any) -> None:
    project = Project.objects.select_for_update().get(pk=project.pk)
    if project.status != Project.Status.PAUSED:
        raise ApplicationError(_("only a paused briefing can be resumed"))
    project.status = Project.Status.ACTIVE
    project.save(update_fields=["status", "updated_at"])
    _requeue_waiting(project)
    event_record(project=project, kind=Kind.PROJECT_RESUMED, actor=user)
    _drain_queue(project.pk)


@transaction.atomic
def stage_reopen(*, project: Project, stage_key: str, user: Any) -> StageRun:
    """Open a closed stage again: it becomes the current stage (later stages keep their
    fields and are passed again when this one closes)."""
    stage = StageRun.objects.select_for_update().get(project=project, key=stage_key)
    if stage.status != StageRun.Status.CLOSED:
        raise ApplicationError(
            _("%(stage)s is not closed")
            % {"stage": stage_title(spec_for(project, stage_key), label_language())}
        )
    project.stages.filter(status=StageRun.Status.OPEN).exclude(pk=stage.pk).update(
        status=StageRun.Status.PENDING
    )
    stage.status, stage.closed_by, stage.closed_at = StageRun.Status.OPEN, "", None
    stage.save()
    if project.status == Project.Status.COMPLETED:
        project.status, project.completed_at = Project.Status.ACTIVE, None
        project.save(update_fields=["status", "completed_at", "updated_at"])
    event_record(project=project, kind=Kind.STAGE_REOPENED, stage_key=stage_key, actor=user)
    return stage


@transaction.atomic
def stage_force_close(*, project: Project, stage_key: str, user: Any, reason: str = "") -> StageRun:
    """Close a stage as a producer; with required fields missing, a reason is required."""
    spec = spec_for(project, stage_key)
    stage = StageRun.objects.select_for_update().get(project=project, key=stage_key)
    if stage.status == StageRun.Status.CLOSED:
        raise ApplicationError(
            _("%(stage)s is already closed") % {"stage": stage_title(spec, label_language())}
        )
    missing = spec.missing(stage.fields)
    if missing and not reason.strip():
        raise ApplicationError(
            _("required fields are missing (%(fields)s): give a reason")
            % {"fields": field_labels(stage_key, missing)},
            extra={"missing": missing},
        )
    stage.status, stage.closed_by, stage.closed_at = (
        StageRun.Status.CLOSED, StageRun.ClosedBy.PRODUCER, timezone.now(),
    )  # fmt: skip
    stage.summary = spec.summary(stage.fields, project.language)
    stage.save()
    project_profile_sync(project)
    event_record(
        project=project, kind=Kind.STAGE_CLOSED, stage_key=stage_key,
        data={"by": "producer", "missing": missing, "reason": reason.strip()}, actor=user,
    )  # fmt: skip
    project_complete_if_done(project)
    return stage


# --- the inbox: assignment, resolve and reopen, snooze, unread, notes ---------------------------

NOTE_MAX_CHARS = 5000
SNOOZE_MAX_DAYS = 366
CANNED_TITLE_MAX_CHARS = 120
CANNED_TEXT_MAX_CHARS = 5000


@transaction.atomic
def project_assign(*, project: Project, producer: Any, user: Any) -> Project:
    """Give the briefing to another producer (or a manager): it joins their inbox and their
    unread count; the event keeps who had it and who has it now."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    if producer is None or not assignees().filter(pk=producer.pk).exists():
        raise ApplicationError(_("choose a producer from the list"))
    if project.producer_id == producer.pk:
        raise ApplicationError(
            _("the briefing is already assigned to %(name)s") % {"name": person_name(producer)}
        )
    old = project.producer
    project.producer = producer
    project.save(update_fields=["producer", "updated_at"])
    event_record(
        project=project, kind=Kind.PRODUCER_ASSIGNED, actor=user,
        data={"old": old.pk if old else None, "old_name": person_name(old),
              "new": producer.pk, "new_name": person_name(producer)},
    )  # fmt: skip
    return project


@transaction.atomic
def project_resolve(*, project: Project, user: Any) -> None:
    """The conversation is handled: it leaves the inbox's open list (for the resolved one)
    until a producer reopens it or the client writes again. The agents go on as before."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    if project.resolved_at is not None:
        raise ApplicationError(_("the conversation is already resolved"))
    Project.objects.filter(pk=project.pk).update(resolved_at=timezone.now(), snoozed_until=None)
    event_record(project=project, kind=Kind.BRIEFING_RESOLVED, actor=user)


@transaction.atomic
def project_reopen(*, project: Project, user: Any) -> None:
    """A resolved conversation back in the inbox's open list."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    if project.resolved_at is None:
        raise ApplicationError(_("the conversation is not resolved"))
    Project.objects.filter(pk=project.pk).update(resolved_at=None)
    event_record(project=project, kind=Kind.BRIEFING_REOPENED, actor=user)


@transaction.atomic
def project_snooze(*, project: Project, until: Any, user: Any) -> None:
    """Out of the inbox's open list until `until` (an aware datetime), or earlier when the
    client writes; the sweep (`briefing.common.inbox.snoozes_wake`) brings it back on time."""
    now = timezone.now()
    if until is None or until <= now:
        raise ApplicationError(_("choose a time in the future"))
    if until > now + datetime.timedelta(days=SNOOZE_MAX_DAYS):
        raise ApplicationError(_("a briefing can be snoozed for a year at most"))
    project = Project.objects.select_for_update().get(pk=project.pk)
    Project.objects.filter(pk=project.pk).update(snoozed_until=until, resolved_at=None)
    event_record(
        project=project, kind=Kind.BRIEFING_SNOOZED, data={"until": until.isoformat()},
        actor=user,
    )  # fmt: skip


@transaction.atomic
def project_wake(*, project: Project, user: Any) -> None:
    """End a snooze before its time."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    if project.snoozed_until is None or project.snoozed_until <= timezone.now():
        raise ApplicationError(_("the briefing is not snoozed"))
    Project.objects.filter(pk=project.pk).update(snoozed_until=None)
    event_record(project=project, kind=Kind.BRIEFING_WOKEN, actor=user)


@transaction.atomic
def project_mark_unread(*, project: Project, user: Any) -> None:
    """The client's last message counts as unread again for the briefing's producer (until
    they open the briefing)."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    last = (
        project.turns.filter(role=Turn.Role.CLIENT)
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    if last is None:
        raise ApplicationError(_("the client has not written yet: there is nothing to mark"))
    Project.objects.filter(pk=project.pk).update(read_seq=min(project.read_seq, last - 1))
    # The unread count follows from the read mark in the event's refresh of the inbox facts.
    event_record(project=project, kind=Kind.MARKED_UNREAD, actor=user)


@transaction.atomic
def note_add(*, project: Project, text: str, user: Any) -> BriefingNote:
    """A note for the staff on the briefing; the event holds its id only, never its text
    (events go out through the API)."""
    text = (text or "").replace("\x00", "").strip()
    if not text:
        raise ApplicationError(_("the note is empty"))
    if len(text) > NOTE_MAX_CHARS:
        raise ApplicationError(
            _("a note may be %(limit)s characters long at most") % {"limit": NOTE_MAX_CHARS}
        )
    note = BriefingNote(project=project, author=user, text=text)
    note.full_clean()
    note.save()
    event_record(project=project, kind=Kind.NOTE_ADDED, data={"note": note.pk}, actor=user)
    return note


# --- canned replies ------------------------------------------------------------------------------


def _canned_content(reply: CannedReply) -> dict[str, str]:
    return {"title": reply.title, "language": reply.language, "text": reply.text}


@transaction.atomic
def canned_reply_save(
    *, reply: CannedReply | None, title: str, language: str, text: str, user: Any
) -> CannedReply:
    """Add a canned reply (`reply` None) or edit one; the change is audited with its old and
    new content. One title per language."""
    from briefing.models import LANGUAGE_CHOICES

    title = (title or "").strip()
    text = (text or "").replace("\x00", "").strip()
    if language not in dict(LANGUAGE_CHOICES):
        raise ApplicationError(_("choose a language from the list"))
    if not title:
        raise ApplicationError(_("give the reply a title"))
    if len(title) > CANNED_TITLE_MAX_CHARS:
        raise ApplicationError(
            _("a title may be %(limit)s characters long at most")
            % {"limit": CANNED_TITLE_MAX_CHARS}
        )
    if not text:
        raise ApplicationError(_("the reply is empty"))
    if len(text) > CANNED_TEXT_MAX_CHARS:
        raise ApplicationError(
            _("a reply may be %(limit)s characters long at most") % {"limit": CANNED_TEXT_MAX_CHARS}
        )
    # Compared in Python: SQLite's case-insensitive match knows only ASCII letters, and a
    # language holds a few dozen replies.
    others = CannedReply.objects.filter(language=language).exclude(pk=getattr(reply, "pk", None))
    if any(t.casefold() == title.casefold() for t in others.values_list("title", flat=True)):
        raise ApplicationError(
            _("there is already a reply “%(title)s” in this language") % {"title": title}
        )
    old = _canned_content(reply) if reply is not None else None
    reply = reply if reply is not None else CannedReply()
    reply.title, reply.language, reply.text = title, language, text
    reply.full_clean()
    reply.save()
    new = _canned_content(reply)
    if old != new:
        CannedReplyChange.objects.create(
            reply=reply, actor=user, old=old, new=new,
            kind=CannedReplyChange.Kind.ADDED if old is None else CannedReplyChange.Kind.EDITED,
        )  # fmt: skip
    return reply


@transaction.atomic
def canned_reply_remove(*, reply: CannedReply, user: Any) -> None:
    """Remove a canned reply; its audit trail keeps what it said."""
    CannedReplyChange.objects.create(
        reply=reply, actor=user, old=_canned_content(reply), kind=CannedReplyChange.Kind.REMOVED
    )
    reply.delete()
