"""The producer's inbox: which briefings need a person, since when and why, how many client
messages their producer has not read, and what a dashboard row flags (open dead letters,
blocked renames, holding replies). The facts are stored on the briefing in the transaction of
the change: a client message and a processed turn derive them from the stored ones and what
they wrote (`inbox_turn_received`, `inbox_turn_processed`); other changes recompute them from
ONE briefing's rows (`inbox_refresh`). The dashboard reads a page of rows in index order and
its idle refresh is one indexed query."""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import (
    Count,
    DateTimeField,
    Exists,
    F,
    IntegerField,
    JSONField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.utils.translation import ngettext

from briefing.common.status import PENDING_TURN, WaitingFor
from briefing.models import BriefingEvent, Project, StaffProfile, Turn

Kind = BriefingEvent.Kind
PAGE_SIZE = 50
# The client's last message, as far as the e-mail about an unseen one quotes it.
UNSEEN_QUOTE_CHARS = 500
logger = logging.getLogger(__name__)
RANK_NEEDS, RANK_ACTIVE, RANK_DONE = 0, 1, 2


@dataclass(frozen=True)
class Need:
    """A reason a person is needed: what the row says, what to do and where (an anchor of the
    briefing's page)."""

    label: Any  # a lazy translation: the producer's language when shown
    todo: Any
    anchor: str


# In the order they are looked for: the first that holds is the briefing's reason.
NEEDS: dict[str, Need] = {
    "after_completion": Need(
        _lazy("the client wrote after completion"),
        _lazy("The brief is complete and the client wrote again: answer them yourself."),
        "composer",
    ),
    "follow_up_due": Need(
        _lazy("holding reply not followed up"),
        _lazy(
            "The client got a holding reply and nobody fixed its dead letter in time: "
            "write to the client yourself."
        ),
        "composer",
    ),
    "holding_reply": Need(
        _lazy("holding reply sent"),
        _lazy(
            "The agent's answer failed and the client got a holding reply: ask a manager to fix "
            "the dead letter, or answer the client yourself."
        ),
        "composer",
    ),
    "human_request": Need(
        _lazy("the client asks for a person"),
        _lazy("The client asked for a person and was told you will answer: write to them."),
        "composer",
    ),
    "complaint": Need(
        _lazy("the client complains"),
        _lazy("The client complained and was told you will answer: write to them."),
        "composer",
    ),
    "client_waiting": Need(
        _lazy("the client wrote while you hold the briefing"),
        _lazy(
            "The briefing is paused or taken over and the client wrote: answer them, or resume / "
            "release it to the agent."
        ),
        "composer",
    ),
    "lock_change": Need(
        _lazy("a locked value to decide"),
        _lazy("The client proposes another value for a locked entity: accept or reject it."),
        "locks",
    ),
}


@dataclass(frozen=True)
class InboxFacts:
    waiting_for: str
    needs_reason: str
    needs_since: datetime.datetime | None
    last_activity_at: datetime.datetime | None
    unread_count: int
    rank_and_key: tuple[int, int] = (RANK_ACTIVE, 0)  # the inbox order (see Project)

    @property
    def need(self) -> Need | None:
        return NEEDS.get(self.needs_reason)


def _micros(moment: datetime.datetime | None) -> int:
    return int(moment.timestamp() * 1_000_000) if moment else 0


def _with_turn_facts(projects: QuerySet[Project]) -> QuerySet[Project]:
    """The rows a briefing's facts come from, read with the briefing in one query: its last
    client turn, its producer's last message, the client's open request for a person, its
    unread count and its last event."""
    turns = Turn.objects.filter(project=OuterRef("pk"))
    last_client = turns.filter(role=Turn.Role.CLIENT).order_by("-seq")
    unread = (
        turns.filter(role=Turn.Role.CLIENT, seq__gt=OuterRef("read_seq"))
        .order_by()
        .values("project")
        .annotate(n=Count("pk"))
        .values("n")
    )
    events = BriefingEvent.objects.filter(project=OuterRef("pk"))
    # The client's oldest request for a person (or complaint) since the producer last wrote.
    last_producer = Turn.objects.filter(project=OuterRef("project"), role=Turn.Role.PRODUCER)
    requests = turns.filter(
        role=Turn.Role.CLIENT,
        meta__has_key="attention",
        seq__gt=Coalesce(Subquery(last_producer.order_by("-seq").values("seq")[:1]), 0),
    ).order_by("seq")

    def client(name: str, field: Any = None) -> Subquery:
        return Subquery(last_client.values(name)[:1], output_field=field)

    return projects.annotate(
        client_pk=client("pk"),
        client_seq=client("seq"),
        client_status=client("status"),
        request_meta=Subquery(requests.values("meta")[:1], output_field=JSONField()),
        request_created_at=Subquery(requests.values("created_at")[:1]),
        client_created_at=client("created_at"),
        client_processed_at=client("processed_at"),
        producer_seq=Subquery(
            turns.filter(role=Turn.Role.PRODUCER).order_by("-seq").values("seq")[:1]
        ),
        unread=Coalesce(Subquery(unread, output_field=IntegerField()), 0),
        last_event_at=Subquery(events.order_by("-id").values("created_at")[:1]),
        has_proposals=Exists(events.filter(kind=Kind.LOCK_CHANGE_PROPOSED)),
    )


def inbox_facts(project_id: int) -> InboxFacts:
    """The facts of one briefing from its own rows: one query, and one or two more only for
    the states that need them (after completion, waiting while held, a proposal)."""
    project = _with_turn_facts(Project.objects.filter(pk=project_id)).get()
    client_turns = Turn.objects.filter(project_id=project_id, role=Turn.Role.CLIENT)
    events = BriefingEvent.objects.filter(project_id=project_id)
    producer_seq = project.producer_seq or 0
    unanswered = project.client_seq is not None and project.client_seq > producer_seq
    status = project.client_status or ""
    reason, since = "", None
    if project.status == Project.Status.COMPLETED:
        if unanswered:
            after = client_turns.filter(seq__gt=producer_seq)
            if project.completed_at:
                after = after.filter(created_at__gt=project.completed_at)
            first = after.order_by("seq").values_list("created_at", flat=True).first()
            if first is not None:
                reason, since = "after_completion", first
    elif unanswered and project.request_meta:
        # A request for a person (or a complaint) stays open until a producer answers: the
        # client's later messages are read and answered, and do not close it.
        intent, since = project.request_meta.get("attention"), project.request_created_at
        reason = "complaint" if intent == "complaint" else "human_request"
    elif unanswered and status == Turn.Status.FAILED:
        overdue = events.filter(kind=Kind.FOLLOW_UP_REQUESTED, turn_id=project.client_pk).exists()
        reason = "follow_up_due" if overdue else "holding_reply"
        since = project.client_processed_at or project.client_created_at
    elif unanswered and status == Turn.Status.WAITING_PRODUCER:
        oldest = client_turns.filter(
            status=Turn.Status.WAITING_PRODUCER, seq__gt=producer_seq
        ).order_by("seq")
        reason, since = "client_waiting", oldest.values_list("created_at", flat=True)[0]
    if not reason and project.has_proposals:
        proposal = _oldest_pending_proposal(events)
        if proposal is not None:
            reason, since = "lock_change", proposal
    if project.status == Project.Status.COMPLETED:
        waiting = WaitingFor.PRODUCER if reason else WaitingFor.NOBODY
    elif (
        reason
        or project.taken_over_by_id
        or project.status == Project.Status.PAUSED
        or status == Turn.Status.WAITING_PRODUCER
    ):
        waiting = WaitingFor.PRODUCER
    elif status in PENDING_TURN:
        waiting = WaitingFor.AGENT
    else:
        waiting = WaitingFor.CLIENT
    activity = max(filter(None, (project.last_event_at, project.updated_at)), default=None)
    return InboxFacts(
        waiting_for=waiting,
        needs_reason=reason,
        needs_since=since,
        last_activity_at=activity,
        unread_count=project.unread,
        rank_and_key=_order(project, reason, since, activity),
    )


def _oldest_pending_proposal(events: QuerySet[BriefingEvent]) -> datetime.datetime | None:
    proposals = list(
        events.filter(kind=Kind.LOCK_CHANGE_PROPOSED).order_by("id").values_list("pk", "created_at")
    )
    if not proposals:
        return None
    decided = {
        data.get("proposal")
        for data in events.filter(
            kind__in=[Kind.LOCK_CHANGE_ACCEPTED, Kind.LOCK_CHANGE_REJECTED]
        ).values_list("data", flat=True)
    }
    return next((at for pk, at in proposals if pk not in decided), None)


def _order(project: Project, reason: str, since: Any, activity: Any) -> tuple[int, int]:
    if reason:
        return RANK_NEEDS, _micros(since)
    rank = RANK_DONE if project.status == Project.Status.COMPLETED else RANK_ACTIVE
    return rank, -_micros(activity)


def inbox_columns(facts: InboxFacts) -> dict[str, Any]:
    """The stored columns of `facts`, for the UPDATE of the change's transaction."""
    rank, key = facts.rank_and_key
    return {
        "waiting_for": facts.waiting_for, "needs_reason": facts.needs_reason,
        "needs_since": facts.needs_since, "last_activity_at": facts.last_activity_at,
        "unread_count": facts.unread_count, "inbox_rank": rank, "inbox_key": key,
        "inbox_changed_at": timezone.now(),
    }  # fmt: skip


def inbox_refresh(*, project_id: int) -> InboxFacts:
    """Recompute one briefing's inbox facts and store them (called inside the transaction of
    a change the stored facts cannot follow by themselves: a producer's action, a recorded
    event, a late answer, a follow-up)."""
    facts = inbox_facts(project_id)
    Project.objects.filter(pk=project_id).update(**inbox_columns(facts))
    return facts


# What a turn's transaction reads of the briefing's row as it locks it: the stored inbox facts
# and `top_seq`, the number of its last turn before the ones being taken.
_LOCKED_COLUMNS = (
    "id, status, completed_at, taken_over_by_id, updated_at, needs_reason, needs_since, "
    "unread_count, last_seq - %s AS top_seq"
)


def project_lock(project_id: int, *, numbers: int = 1) -> Project:
    """The briefing's row locked until commit, with `numbers` turn numbers taken for the
    caller (top_seq + 1 onwards, so turn numbers cannot collide), read with its stored inbox
    facts: one UPDATE … RETURNING, written out because it runs twice a turn and compiling it
    cost more than running it. A writer that waited for the row gets it as the one before it
    left it."""
    sql = (
        f"UPDATE {Project._meta.db_table} SET last_seq = last_seq + %s WHERE id = %s "  # noqa: S608
        f"RETURNING {_LOCKED_COLUMNS}"
    )
    found = list(Project.objects.raw(sql, [numbers, project_id, numbers]))
    if not found:
        raise Project.DoesNotExist(f"no briefing {project_id}")
    return found[0]


def project_lock_after(
    first_sql: str, first_params: list[Any], *, project_id: int, numbers: int
) -> Project | None:
    """`first_sql` (a data-modifying statement with a RETURNING clause) and `project_lock` in
    one statement, the lock taken only where `first_sql` changed a row: None where it changed
    none. PostgreSQL only (SQLite has no data-modifying WITH)."""
    sql = (
        f"WITH first AS ({first_sql}) UPDATE {Project._meta.db_table} "  # noqa: S608
        "SET last_seq = last_seq + %s WHERE id = %s AND EXISTS (SELECT 1 FROM first) "
        f"RETURNING {_LOCKED_COLUMNS}"
    )
    found = list(Project.objects.raw(sql, [*first_params, numbers, project_id, numbers]))
    return found[0] if found else None


# A client's message ends a snooze and reopens a resolved conversation (as in Chatwoot and
# Intercom): the briefing is back in the inbox's open list with the message.
CLIENT_WROTE = {"snoozed_until": None, "resolved_at": None}


def inbox_turn_received(
    *, locked: Project, turn: Turn, received_at: datetime.datetime
) -> InboxFacts:
    """A client message was stored (`locked`: the row read by `project_lock` before). While
    the briefing is not completed and needs nobody or a locked value's decision, the new
    message changes only who it waits for, its activity and its unread count; in any other
    state the facts are recomputed. Either way a snooze ends and a resolved conversation is
    open again, in the same UPDATE. Returns what was stored, in the caller's transaction."""
    if locked.status == Project.Status.COMPLETED or locked.needs_reason not in ("", "lock_change"):
        facts = inbox_facts(locked.pk)
        Project.objects.filter(pk=locked.pk).update(**inbox_columns(facts), **CLIENT_WROTE)
        return facts
    reason = locked.needs_reason
    since = locked.needs_since if reason else None
    activity = max(filter(None, (received_at, locked.updated_at)))
    if reason or locked.taken_over_by_id or locked.status == Project.Status.PAUSED:
        waiting = WaitingFor.PRODUCER
    else:
        waiting = WaitingFor.AGENT  # the new message waits for its processing
    facts = InboxFacts(
        waiting_for=waiting, needs_reason=reason, needs_since=since, last_activity_at=activity,
        unread_count=locked.unread_count + 1, rank_and_key=_order(locked, reason, since, activity),
    )  # fmt: skip
    Project.objects.filter(pk=locked.pk).update(**inbox_columns(facts), **CLIENT_WROTE)
    return facts


def inbox_turn_processed(
    *,
    locked: Project,
    project: Project,
    turn: Turn,
    events: list[BriefingEvent],
    now: datetime.datetime,
) -> InboxFacts | None:
    """The facts after a client turn's processing, from the stored ones (`locked`, read by
    `project_lock` in the turn's transaction) and what the turn wrote: `project` as written
    (its `updated_at` is `now`), `turn` with its new status and `events`. None where only
    the briefing's rows can say: a newer message or a producer's reply arrived meanwhile, a
    late answer to a failed turn, a client waiting while a producer holds the briefing."""
    prior = locked.needs_reason
    if locked.top_seq != turn.seq or prior not in ("", "lock_change", "after_completion"):
        return None
    completed = project.status == Project.Status.COMPLETED
    reason, since = "", None
    if completed:
        if project.completed_at is None or turn.created_at > project.completed_at:
            if prior != "after_completion":
                return None
            reason, since = prior, locked.needs_since
    elif prior == "after_completion":
        return None
    elif turn.status == Turn.Status.FAILED:
        reason, since = "holding_reply", turn.processed_at or turn.created_at
    elif turn.status == Turn.Status.WAITING_PRODUCER:
        intent = turn.meta.get("attention")
        if not intent:
            return None
        reason = "complaint" if intent == "complaint" else "human_request"
        since = turn.created_at
    if not reason:
        if prior == "lock_change":
            reason, since = prior, locked.needs_since
        else:
            proposed = [e.created_at for e in events if e.kind == Kind.LOCK_CHANGE_PROPOSED]
            if proposed:
                reason, since = "lock_change", min(proposed)
    if completed:
        waiting = WaitingFor.PRODUCER if reason else WaitingFor.NOBODY
    elif (
        reason
        or locked.taken_over_by_id
        or project.status == Project.Status.PAUSED
        or turn.status == Turn.Status.WAITING_PRODUCER
    ):
        waiting = WaitingFor.PRODUCER
    else:
        waiting = WaitingFor.CLIENT
    return InboxFacts(
        waiting_for=waiting, needs_reason=reason, needs_since=since, last_activity_at=now,
        unread_count=locked.unread_count, rank_and_key=_order(project, reason, since, now),
    )  # fmt: skip


def inbox_dead_letters(project_id: int) -> dict[str, Any]:
    """The open dead letters of the briefing's turns and the newest one: one indexed query
    over that briefing's turns."""
    open_ids = list(
        Turn.objects.filter(project_id=project_id, call__dead_letter__status="open")
        .order_by("-seq")
        .values_list("call__dead_letter__pk", flat=True)
    )
    return {"open_dead_letters": len(open_ids), "open_dead_letter_id": next(iter(open_ids), None)}


def inbox_dead_letters_refresh(*, project_id: int) -> None:
    """Store the briefing's open dead letters (a letter of its turn was made or settled)."""
    Project.objects.filter(pk=project_id).update(
        **inbox_dead_letters(project_id), inbox_changed_at=timezone.now()
    )


def inbox_counts_refresh(*, project_id: int) -> None:
    """Recount every flag a dashboard row shows from the briefing's rows (inbox_rebuild)."""
    counts = BriefingEvent.objects.filter(project_id=project_id).aggregate(
        violations=Count("pk", filter=Q(kind=Kind.LOCK_VIOLATION_BLOCKED)),
        holding=Count("pk", filter=Q(kind=Kind.HOLDING_REPLY_SENT)),
    )
    Project.objects.filter(pk=project_id).update(
        lock_violations=counts["violations"], holding_replies=counts["holding"],
        **inbox_dead_letters(project_id), inbox_changed_at=timezone.now(),
    )  # fmt: skip


# The page's poll stamps `seen_at` at most this often: a write every second an open page polls
# would cost more than the e-mail about unseen messages needs (it counts in minutes).
SEEN_STAMP_S = 30


def inbox_seen(*, project: Project, now: datetime.datetime | None = None) -> None:
    """Someone on the staff has the briefing's page open (`project`: its row as the request
    read it): stamp `seen_at` unless it was stamped in the last SEEN_STAMP_S. Neither its
    activity nor the inbox's version moves: a producer looking is not a change."""
    now = now or timezone.now()
    if project.seen_at is not None and (now - project.seen_at).total_seconds() < SEEN_STAMP_S:
        return
    Project.objects.filter(pk=project.pk).update(seen_at=now)
    project.seen_at = now


def inbox_mark_read(*, project: Project, user: Any) -> bool:
    """The briefing's own producer opened it: its client messages so far are read. Others
    (a manager looking in) change nothing. True when something was marked."""
    if project.producer_id is None or project.producer_id != getattr(user, "pk", None):
        return False
    if project.unread_count == 0:
        return False
    top = project.turns.aggregate(top=Max("seq"))["top"] or 0
    marked = Project.objects.filter(pk=project.pk).update(
        read_seq=top, unread_count=0, inbox_changed_at=timezone.now()
    )
    project.read_seq, project.unread_count = top, 0
    return bool(marked)


# --- reads -----------------------------------------------------------------------------------


def inbox_cursor(project: Project) -> str:
    return f"{project.inbox_rank}.{project.inbox_key}.{project.pk}"


def _cursor_parse(cursor: str) -> tuple[int, int, int] | None:
    parts = cursor.split(".")
    if len(parts) != 3:
        return None
    try:
        rank, key, pk = (int(part) for part in parts)
    except ValueError:
        return None
    return rank, key, pk


def inbox_page(
    projects: QuerySet[Project], *, after: str = "", size: int = PAGE_SIZE
) -> tuple[list[Project], str]:
    """One page in inbox order (who needs a person first, the longest wait first; then the
    rest by last activity), after the keyset cursor `after`. Returns the page and the cursor
    of the next one ("" on the last page)."""
    position = _cursor_parse(after) if after else None
    if position is not None:
        rank, key, pk = position
        projects = projects.filter(
            Q(inbox_rank__gt=rank)
            | Q(inbox_rank=rank, inbox_key__gt=key)
            | Q(inbox_rank=rank, inbox_key=key, pk__gt=pk)
        )
    rows = list(projects.order_by("inbox_rank", "inbox_key", "pk")[: size + 1])
    more = len(rows) > size
    rows = rows[:size]
    return rows, inbox_cursor(rows[-1]) if more and rows else ""


# The inbox's lists (the dashboard's "Show"): open conversations, the snoozed ones until their
# time, the resolved ones, or every briefing.
INBOX_VIEWS = (
    ("open", _lazy("Open conversations")),
    ("snoozed", _lazy("Snoozed conversations")),
    ("resolved", _lazy("Resolved conversations")),
    ("all", _lazy("All briefings")),
)


def inbox_view(
    projects: QuerySet[Project], view: str, *, now: datetime.datetime | None = None
) -> QuerySet[Project]:
    """The briefings of one of INBOX_VIEWS (an unknown name: the open list). A snooze whose
    time passed counts as ended before the sweep (`snoozes_wake`) clears it."""
    now = now or timezone.now()
    awake = Q(snoozed_until__isnull=True) | Q(snoozed_until__lte=now)
    if view == "all":
        return projects
    if view == "snoozed":
        return projects.filter(snoozed_until__gt=now)
    if view == "resolved":
        return projects.filter(resolved_at__isnull=False)
    return projects.filter(awake, resolved_at__isnull=True)


def inbox_version(projects: QuerySet[Project]) -> str:
    """When anything the inbox shows last changed (one indexed MAX): the refresh's "since"."""
    changed = projects.order_by().aggregate(at=Max("inbox_changed_at"))["at"]
    return str(_micros(changed))


def inbox_unread_total(user: Any) -> int:
    """Unread client messages across the user's own briefings (the navigation's count)."""
    if not getattr(user, "is_authenticated", False):
        return 0
    total = Project.objects.filter(producer=user, unread_count__gt=0).aggregate(
        n=Sum("unread_count")
    )["n"]
    return total or 0


# --- holding replies nobody followed up --------------------------------------------------------


def holding_replies_overdue_flag(*, now: datetime.datetime | None = None) -> int:
    """Ask the producer to follow up each holding reply whose dead letter was not fixed or
    replayed within BRIEFING_HOLDING_FOLLOW_UP_S (once per turn). Returns how many."""
    from django.db import transaction

    now = now or timezone.now()
    limit = now - datetime.timedelta(seconds=settings.BRIEFING_HOLDING_FOLLOW_UP_S)
    flagged = BriefingEvent.objects.filter(kind=Kind.FOLLOW_UP_REQUESTED).values("turn_id")
    overdue = (
        Turn.objects.filter(
            role=Turn.Role.CLIENT, status=Turn.Status.FAILED, processed_at__lte=limit
        )
        .exclude(pk__in=flagged)
        .exclude(project__status=Project.Status.COMPLETED)
        .values_list("pk", "project_id", "stage_key")
    )
    count = 0
    for turn_id, project_id, stage_key in overdue:
        seq = Turn.objects.filter(pk=turn_id).values_list("seq", flat=True).first() or 0
        answered = Turn.objects.filter(
            project_id=project_id, role=Turn.Role.PRODUCER, seq__gt=seq
        ).exists()
        if answered:  # the producer wrote to the client after it: nothing to ask
            continue
        with transaction.atomic():
            BriefingEvent.objects.create(
                project_id=project_id, turn_id=turn_id, kind=Kind.FOLLOW_UP_REQUESTED,
                stage_key=stage_key,
                data={"after_s": settings.BRIEFING_HOLDING_FOLLOW_UP_S},
            )  # fmt: skip
            inbox_refresh(project_id=project_id)
        count += 1
    return count


# --- snoozes that ran out ----------------------------------------------------------------------


def snoozes_wake(*, now: datetime.datetime | None = None) -> int:
    """End every snooze whose time has come: the briefing is back in the open list, and the
    inbox's version moves so that an open dashboard's refresh shows it. Returns how many."""
    now = now or timezone.now()
    return Project.objects.filter(snoozed_until__lte=now).update(
        snoozed_until=None, inbox_changed_at=now
    )


# --- client messages nobody saw ----------------------------------------------------------------

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def unseen_waits(*, now: datetime.datetime | None = None) -> list[tuple[int, Any, Any]]:
    """(briefing id, since when, when its producer was last e-mailed) of every briefing whose
    client wrote at least BRIEFING_UNSEEN_ALERT_MIN minutes ago while nobody on the staff has
    had its page open since (`seen_at`), and whose producer (active, with an address) was not
    e-mailed about this wait.
    A wait begins with the first client message after the page was last seen; the producer is
    e-mailed once per wait. Read from the unread briefings only (an index of its own)."""
    minutes = settings.BRIEFING_UNSEEN_ALERT_MIN
    if minutes <= 0:
        return []
    now = now or timezone.now()
    first_unseen = (
        Turn.objects.filter(
            project=OuterRef("pk"),
            role=Turn.Role.CLIENT,
            created_at__gt=Coalesce(OuterRef("seen_at"), Value(_EPOCH)),
        )
        .order_by("seq")
        .values("created_at")[:1]
    )
    waits = (
        Project.objects.filter(unread_count__gt=0, producer__is_active=True)
        .exclude(producer__email="")
        .annotate(waiting_since=Subquery(first_unseen, output_field=DateTimeField()))
        .filter(waiting_since__lte=now - datetime.timedelta(minutes=minutes))
        .filter(Q(unseen_alerted_at__isnull=True) | Q(unseen_alerted_at__lt=F("waiting_since")))
        .order_by("waiting_since")
    )
    return list(waits.values_list("pk", "waiting_since", "unseen_alerted_at"))


def unseen_alerts_send(*, now: datetime.datetime | None = None) -> int:
    """E-mail each producer whose client's message waits unseen (`unseen_waits`), once per
    wait: the wait is claimed with a conditional UPDATE of `unseen_alerted_at` (a second sweep
    running at once finds it claimed), then the mail goes out through Django's mail; a mail
    that fails gives the claim back for the next sweep. Returns how many were sent."""
    now = now or timezone.now()
    sent = 0
    for project_id, since, previous in unseen_waits(now=now):
        unclaimed = Q(unseen_alerted_at__isnull=True) | Q(unseen_alerted_at__lt=since)
        if not Project.objects.filter(unclaimed, pk=project_id).update(unseen_alerted_at=now):
            continue
        try:
            sent += unseen_alert_mail_send(project_id=project_id, since=since, now=now)
        except Exception:
            logger.exception("briefing %s: the e-mail about an unseen message failed", project_id)
            Project.objects.filter(pk=project_id, unseen_alerted_at=now).update(
                unseen_alerted_at=previous
            )
    return sent


def unseen_alert_mail_send(
    *, project_id: int, since: datetime.datetime, now: datetime.datetime
) -> int:
    """The e-mail to the briefing's producer, in their language (their profile's, else the
    back office's): which briefing, how long the client has waited, what they wrote last and
    the link to the page."""
    from django.core.mail import EmailMessage
    from django.urls import reverse
    from django.utils import translation

    project = Project.objects.select_related("producer").get(pk=project_id)
    producer = project.producer
    if producer is None or not producer.email:
        return 0
    last = (
        project.turns.filter(role=Turn.Role.CLIENT).order_by("-seq").values_list("text", flat=True)
    ).first() or ""
    language = (
        StaffProfile.objects.filter(user=producer).values_list("language", flat=True).first()
        or settings.LANGUAGE_CODE
    )
    waited = max(1, int((now - since).total_seconds() // 60))
    url = settings.SITE_URL + reverse("project_detail", args=[project.pk])
    with translation.override(language):
        subject = ngettext(
            "“%(title)s”: the client wrote %(minutes)d minute ago and nobody has opened it",
            "“%(title)s”: the client wrote %(minutes)d minutes ago and nobody has opened it",
            waited,
        ) % {"title": project.title, "minutes": waited}
        lines = [
            ngettext(
                "The client of “%(title)s” wrote %(minutes)d minute ago, and nobody has had "
                "the briefing open since.",
                "The client of “%(title)s” wrote %(minutes)d minutes ago, and nobody has had "
                "the briefing open since.",
                waited,
            )
            % {"title": project.title, "minutes": waited},
            "",
            _("Their last message:"),
            last[:UNSEEN_QUOTE_CHARS] + ("…" if len(last) > UNSEEN_QUOTE_CHARS else ""),
            "",
            _("The briefing: %(url)s") % {"url": url},
            "",
            _("You get one such e-mail per wait: the next comes after someone opens the briefing."),
        ]
    message = EmailMessage(
        subject=subject.replace("\n", " ")[:200],
        body="\n".join(lines) + "\n",
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[producer.email],
    )
    return message.send() or 0
