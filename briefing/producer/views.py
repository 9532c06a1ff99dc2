"""The producer's pages: the dashboard, a new briefing, and one briefing's live page with
every producer action. Each form works as a plain POST and redirect; with htmx the page
swaps only the part that changed."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max, Prefetch, Q
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from briefing.common.access import project_for_user, projects_for_user
from briefing.common.inbox import (
    NEEDS,
    inbox_mark_read,
    inbox_page,
    inbox_seen,
    inbox_unread_total,
    inbox_version,
)
from briefing.common.selectors import (
    canned_replies,
    person_name,
    project_notes,
    project_page_reads,
    workers_stalled_minutes,
)
from briefing.common.status import StageRow, activity_lines, stage_rows, status_lines
from briefing.models import CannedReply, Project, StageRun, Turn
from briefing.producer.forms import (
    LANGUAGE_CHOICES as BRIEFING_LANGUAGES,
)
from briefing.producer.forms import (
    SNOOZE_PRESETS,
    AssignForm,
    CannedReplyForm,
    DashboardFilterForm,
    ProjectNewForm,
    SnoozeForm,
    field_inputs,
    field_shown,
    field_value,
)
from briefing.services import (
    canned_reply_remove,
    canned_reply_save,
    client_link_revoke,
    client_link_rotate,
    field_correct,
    lock_change_decide,
    lock_keys,
    lock_remove,
    lock_set,
    memory_fact_correct,
    note_add,
    producer_message_post,
    project_assign,
    project_create,
    project_mark_unread,
    project_pause,
    project_reopen,
    project_resolve,
    project_resume,
    project_snooze,
    project_wake,
    stage_force_close,
    stage_reopen,
    takeover_release,
    takeover_start,
)
from briefing.stages.registry import spec_for
from briefing.turn.routing import briefing_cost, project_strong_model_set
from config.http import HtmxHttpRequest
from core.errors import ApplicationError
from core.input import plain_int
from dlq.models import DeadLetter
from studio.selectors import client_memory

DASHBOARD_TEMPLATE = "briefing/dashboard.html"
DETAIL_TEMPLATE = "briefing/project_detail.html"
NEW_TEMPLATE = "briefing/project_new.html"
CANNED_TEMPLATE = "briefing/canned_replies.html"
ACTIVITY_LINES = 30
DASHBOARD_PAGE_SIZE = 50
# Turns that may still change without a new turn being added (the poll re-renders then).
OPEN_TURN = (Turn.Status.RECEIVED, Turn.Status.PROCESSING, Turn.Status.WAITING_PRODUCER)


def _get_project_for_user(request: HtmxHttpRequest, pk: int) -> Project:
    return project_for_user(request.user, pk)


# --- dashboard -----------------------------------------------------------------------------


@login_required
@require_GET
def dashboard(request: HtmxHttpRequest) -> HttpResponse:
    """The inbox: who needs a person first (the longest wait first), then the rest by last
    activity, one keyset page (`after`) at a time. The 3-second refresh sends `since` (when
    the shown briefings last changed) and gets 204 from one indexed query while nothing did."""
    visible = projects_for_user(request.user)
    filters = DashboardFilterForm(request.GET or None, projects=visible)
    shown = filters.filter_view(visible)
    version = inbox_version(shown)
    if request.htmx and request.GET.get("since") == version:
        return HttpResponse(status=204)
    # The rows' flags are stored on them (briefing.common.inbox): one page query, and its stages.
    projects, next_cursor = inbox_page(
        shown.select_related("producer").prefetch_related(
            Prefetch("stages", queryset=StageRun.objects.order_by("order"))
        ),
        after=request.GET.get("after", ""),
        size=DASHBOARD_PAGE_SIZE,
    )
    for project in projects:
        project.timeline = stage_rows(project, project.stages.all())
        project.need = NEEDS.get(project.needs_reason)
        project.own = project.producer_id == request.user.pk
        project.producer_name = person_name(project.producer)
    query = request.GET.copy()
    query.pop("since", None)
    poll = query.copy()
    poll["since"] = version
    older = query.copy()
    older["after"] = next_cursor
    first = query.copy()
    first.pop("after", None)
    context = {
        "filters": filters,
        "projects": projects,
        "query": query.urlencode(),
        "poll_query": poll.urlencode(),
        "older_query": older.urlencode() if next_cursor else "",
        "first_query": first.urlencode() if request.GET.get("after") else None,
        "stalled_minutes": None if request.htmx else workers_stalled_minutes(),
        "view": filters.inbox_list(),
        "now": timezone.now(),
    }
    template = f"{DASHBOARD_TEMPLATE}#rows" if request.htmx else DASHBOARD_TEMPLATE
    return render(request, template, context)


# --- a new briefing --------------------------------------------------------------------------


@login_required
@permission_required("briefing.add_project", raise_exception=True)
@require_http_methods(["GET", "POST"])
def project_new(request: HtmxHttpRequest) -> HttpResponse:
    form = ProjectNewForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            project = project_create(**form.cleaned_data)
        except ApplicationError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Briefing created: send the client link below."))
            url = reverse("project_detail", args=[project.pk])
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    template = f"{NEW_TEMPLATE}#form" if request.htmx else NEW_TEMPLATE
    return render(request, template, {"form": form}, status=400 if form.errors else 200)


# --- one briefing --------------------------------------------------------------------------


@dataclass
class StageCard:
    """A stage's card: its timeline row, its field editors and an error in place."""

    row: StageRow
    inputs: list
    error: str = ""
    reason: str = ""


@dataclass
class TurnView:
    turn: Turn
    dead_letter: DeadLetter | None = None
    cost: Any = None  # what the client turn's model calls cost (the ledger), None if none


@dataclass
class Problem:
    """Where an action's error is shown, and what the producer had typed."""

    message: str
    section: str
    stage_key: str = ""
    field_name: str = ""
    submitted: dict[str, str] = field(default_factory=dict)


def _transcript_state(project: Project) -> tuple[int, int]:
    """(last seq, turns still open): what the poll compares, in one query."""
    state = project.turns.aggregate(
        last=Max("seq"), open=Count("pk", filter=Q(status__in=OPEN_TURN))
    )
    return state["last"] or 0, state["open"]


def _brief_so_far(project: Project, stages: list[StageRun]) -> dict[str, Any]:
    if project.status == Project.Status.COMPLETED and project.brief:
        return project.brief
    return {stage.key: stage.fields for stage in stages}


def _client_as_known(project: Project, stages: list[StageRun]) -> dict[str, str]:
    """Who the client is for the page's header: what the producer typed when creating the
    briefing, else what the introduction stage learnt from the client since."""
    intro = next((run.fields for run in stages if run.key == "intro"), {}) or {}
    name = project.client_name or str(intro.get("clientName") or "")
    company = str(intro.get("company") or "")
    return {
        "name": f"{name} ({company})" if name and company and company not in name else name,
        "contact": project.client_contact or str(intro.get("contact") or ""),
    }


# The producer's actions that are asked again before they are done (a plain page between,
# so the question works without JavaScript): both end the client's link.
CONFIRMED_ACTIONS = ("rotate_link", "revoke_link")


def _detail_context(
    request: HtmxHttpRequest,
    project: Project,
    *,
    problem: Problem | None = None,
    draft: str = "",
) -> dict[str, Any]:
    reads = project_page_reads(project)
    stages, events, turns, letters, facts = (
        reads.stages, reads.events, reads.turns, reads.letters, reads.facts,
    )  # fmt: skip
    rows = stage_rows(project, stages)
    waiting = facts.waiting_for
    cards, placed = [], False
    for row in rows:
        failed_here = problem is not None and problem.stage_key == row.key
        on_field = failed_here and problem.field_name in row.spec.fields
        placed = placed or failed_here
        cards.append(
            StageCard(
                row=row,
                inputs=field_inputs(
                    row.spec,
                    row.run.fields,
                    row.run.producer_fields,
                    dialogue=row.run.dialogue,
                    confirmed=project.status == Project.Status.COMPLETED,
                    error_field=problem.field_name if on_field else "",
                    error=problem.message if on_field else "",
                    submitted=problem.submitted.get("value") if on_field else None,
                ),
                error=problem.message if failed_here and not on_field else "",
                reason=problem.submitted.get("reason", "") if failed_here else "",
            )
        )
    section_error = problem.message if problem and not placed else ""
    return {
        "project": project,
        "client": _client_as_known(project, stages),
        "client_link": request.build_absolute_uri(
            reverse("client_chat", args=[project.client_token])
        )
        if project.client_token
        else "",
        "waiting_for": waiting,
        "need": facts.need,
        "need_since": facts.needs_since,
        "open_letter": next((d for d in letters.values() if d.status == "open"), None),
        "status_lines": status_lines(project, waiting=waiting, rows=rows, events=events),
        "activity": activity_lines(events, rows)[:ACTIVITY_LINES],
        "cards": cards,
        "timeline": rows,
        "turns": [TurnView(t, letters.get(t.call_id), reads.costs.get(str(t.pk))) for t in turns],
        "last_seq": turns[-1].seq if turns else 0,
        "open_turns": sum(t.status in OPEN_TURN for t in turns),
        "open_seqs": ",".join(str(t.seq) for t in turns if t.status in OPEN_TURN),
        "pending": any(t.status in (Turn.Status.RECEIVED, Turn.Status.PROCESSING) for t in turns),
        "locks": reads.locks,
        "lock_proposals": reads.lock_proposals,
        "lock_keys": lock_keys(project),
        "brief_json": json.dumps(
            _brief_so_far(project, stages), ensure_ascii=False, indent=2, sort_keys=False
        ),
        "errors": {problem.section: section_error} if section_error else {},
        "submitted": problem.submitted if problem else {},
        "can_act": request.user.has_perm("briefing.change_project"),
        "models": briefing_cost(project=project),
        "memory": client_memory(project.profile or {}),
        "producer_name": person_name(project.producer),
        "assign_form": AssignForm(initial={"producer": project.producer_id}),
        "snooze_presets": SNOOZE_PRESETS,
        "snoozed": project.snoozed_until is not None and project.snoozed_until > timezone.now(),
        "notes": project_notes(project),
        "canned_replies": canned_replies(language=project.language),
        "draft": draft,
        "confirm": request.GET.get("confirm", "") if request.method == "GET" else "",
    }


@login_required
@require_GET
def project_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The full page; with htmx, the transcript (and the read-only parts beside it), or 204 while
    nothing changed since `after` (the last turn shown) and `open` (turns still open)."""
    project = _get_project_for_user(request, pk)
    download = request.GET.get("download")
    if download:
        return _download(project, download)
    inbox_seen(project=project)  # someone on the staff has it open (the poll says so too)
    if request.htmx:
        after = plain_int(request.GET.get("after", ""))
        open_turns = plain_int(request.GET.get("open", ""))
        if after is not None:
            last, still_open = _transcript_state(project)
            if after == last and open_turns in (None, still_open):
                return HttpResponse(status=204)
        inbox_mark_read(project=project, user=request.user)  # its producer is looking
        context = _detail_context(request, project)
        if after is not None:
            return _transcript_update(request, context, after=after)
        return _sections(request, context, "transcript", oob=("status", "brief"))
    inbox_mark_read(project=project, user=request.user)
    draft = request.session.pop(_draft_key(project), "")  # a canned reply inserted without JS
    return render(request, DETAIL_TEMPLATE, _detail_context(request, project, draft=draft))


def _draft_key(project: Project) -> str:
    return f"briefing-draft-{project.pk}"


def _transcript_update(
    request: HtmxHttpRequest,
    context: dict[str, Any],
    *,
    after: int,
    sections: tuple[str, ...] = ("poller", "status", "brief"),
) -> HttpResponse:
    """What the transcript poll swaps: the turns after `after`, appended (the ones shown are
    never re-rendered, so a reader's scroll position and focus stay); turns still open
    replaced in place out of band; and the poller itself, the status and the brief, out of
    band. Controls are left alone: a poll never swaps a button away from the keyboard."""
    views = context["turns"]
    # The turns open at the last poll (`seqs`) may have changed since: each is swapped again.
    seqs = request.GET.get("seqs") or request.POST.get("seqs") or ""
    was_open = {plain_int(n) for n in seqs.split(",")} - {None}
    new = [v for v in views if v.turn.seq > after]
    changed = [
        v for v in views
        if v.turn.seq <= after and (v.turn.seq in was_open or v.turn.status in OPEN_TURN)
    ]  # fmt: skip
    html = render_to_string(f"{DETAIL_TEMPLATE}#turn_list", {**context, "turn_views": new}, request)
    html += render_to_string(
        f"{DETAIL_TEMPLATE}#turn_list", {**context, "turn_views": changed, "oob": True}, request
    )
    html += render_to_string(
        f"{DETAIL_TEMPLATE}#oob",
        {**context, "oob_sections": sections},
        request,
    )
    return HttpResponse(html)


def _download(project: Project, kind: str) -> HttpResponse:
    if kind == "json":
        body = json.dumps(
            _brief_so_far(project, list(project.stages.order_by("order"))),
            ensure_ascii=False,
            indent=2,
        )
        response = HttpResponse(body, content_type="application/json; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="brief-{project.pk}.json"'
        return response
    if kind == "md":
        response = HttpResponse(
            project.summary_markdown, content_type="text/markdown; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="brief-{project.pk}.md"'
        return response
    return HttpResponseBadRequest("unknown download")


# Which part of the page an action re-renders; the others follow out of band.
ACTION_SECTIONS = {
    "correct": "stage",
    "lock": "locks",
    "unlock": "locks",
    "lock_accept": "locks",
    "lock_reject": "locks",
    "takeover": "controls",
    "release": "controls",
    "pause": "controls",
    "resume": "controls",
    "message": "composer",
    "reopen": "stages",
    "force_close": "stages",
    "rotate_link": "controls",
    "revoke_link": "controls",
    "strong_model_on": "controls",
    "strong_model_off": "controls",
    "memory_correct": "memory",
    "memory_remove": "memory",
    "assign": "controls",
    "resolve": "controls",
    "reopen_briefing": "controls",
    "snooze": "controls",
    "wake": "controls",
    "mark_unread": "controls",
    "note": "notes",
}
# The flash message's words for what was done (a page without htmx reloads after an action).
ACTION_DONE = {
    "correct": gettext_lazy("field corrected"),
    "lock": gettext_lazy("locked"),
    "unlock": gettext_lazy("unlocked"),
    "lock_accept": gettext_lazy("proposed change accepted"),
    "lock_reject": gettext_lazy("proposed change rejected"),
    "takeover": gettext_lazy("taken over"),
    "release": gettext_lazy("released to the agent"),
    "pause": gettext_lazy("paused"),
    "resume": gettext_lazy("resumed"),
    "message": gettext_lazy("message sent"),
    "reopen": gettext_lazy("stage reopened"),
    "force_close": gettext_lazy("stage closed"),
    "rotate_link": gettext_lazy("new client link made"),
    "revoke_link": gettext_lazy("client link revoked"),
    "strong_model_on": gettext_lazy("the strong model is used"),
    "strong_model_off": gettext_lazy("routing by complexity again"),
    "memory_correct": gettext_lazy("client memory corrected"),
    "memory_remove": gettext_lazy("removed from client memory"),
    "assign": gettext_lazy("assigned"),
    "resolve": gettext_lazy("conversation resolved"),
    "reopen_briefing": gettext_lazy("conversation reopened"),
    "snooze": gettext_lazy("snoozed"),
    "wake": gettext_lazy("snooze ended"),
    "mark_unread": gettext_lazy("marked unread"),
    "note": gettext_lazy("note added"),
}
# What else an action may change. The composer is never swapped from elsewhere (it may
# hold a message being typed), the transcript only when a message was posted.
FOLLOW_UPS = ("status", "controls", "locks", "memory", "stages", "brief")


def _follow_ups(action: str, section: str) -> tuple[str, ...]:
    shown = ("stages",) if section == "stage" else (section,)
    follow = tuple(s for s in FOLLOW_UPS if s not in shown)
    return follow


def _sections(
    request: HtmxHttpRequest,
    context: dict[str, Any],
    primary: str,
    *,
    oob: tuple[str, ...] = (),
    status: int = 200,
) -> HttpResponse:
    """The primary partial, then the `oob` ones marked for htmx's out-of-band swap."""
    html = render_to_string(f"{DETAIL_TEMPLATE}#{primary}", context, request)
    if oob:
        html += render_to_string(
            f"{DETAIL_TEMPLATE}#oob", {**context, "oob_sections": oob}, request
        )
    return HttpResponse(html, status=status)


def _stage_key(project: Project, request: HtmxHttpRequest) -> str:
    return spec_for(project, request.POST.get("stage", "")).key


class ConfirmFirst(Exception):
    """The action ends something the producer may not mean to end: ask first."""

    def __init__(self, action: str) -> None:
        super().__init__(action)
        self.action = action


def _unconfirmed(project: Project, action: str, post: Any) -> bool:
    """Whether `action` still needs the producer's yes: a new link when there is none to
    revoke is made at once."""
    if action == "rotate_link" and not project.client_token:
        return False
    return post.get("confirmed") != "yes"


def _act(request: HtmxHttpRequest, project: Project, action: str) -> None:
    """Parse the form and call the service; ApplicationError goes to the caller."""
    post, user = request.POST, request.user
    if action == "correct":
        spec = spec_for(project, post.get("stage", ""))
        name = post.get("field", "")
        if name not in spec.fields:
            raise ApplicationError(f"{spec.key} has no field {name!r}")
        stored = post.get("stored")
        now = field_shown(spec, name, project.stages.get(key=spec.key).fields.get(name))
        if stored is not None and stored != now:  # filled or changed since the page was made
            raise ApplicationError(
                _("This field changed after the page was opened: it is now “%(value)s”. "
                  "Check it and save again if yours is right.") % {"value": now or "—"}
            )  # fmt: skip
        value = field_value(spec, name, post.get("value", ""))
        field_correct(project=project, stage_key=spec.key, field=name, value=value, user=user)
    elif action == "lock":
        key, value = post.get("key", "").strip(), post.get("value", "")
        lock_set(project=project, key=key, value=value, user=user)
    elif action == "unlock":
        lock_remove(project=project, key=post.get("key", ""), user=user)
    elif action in ("lock_accept", "lock_reject"):
        proposal = plain_int(post.get("proposal", ""))
        if proposal is None:
            raise ApplicationError("which proposed change?")
        lock_change_decide(
            project=project, proposal_id=proposal, accept=action == "lock_accept", user=user
        )
    elif action == "takeover":
        takeover_start(project=project, user=user)
    elif action == "release":
        takeover_release(project=project, user=user)
    elif action == "message":
        producer_message_post(project=project, text=post.get("text", ""), user=user)
    elif action == "pause":
        project_pause(project=project, user=user)
    elif action == "resume":
        project_resume(project=project, user=user)
    elif action == "reopen":
        stage_reopen(project=project, stage_key=_stage_key(project, request), user=user)
    elif action in CONFIRMED_ACTIONS and _unconfirmed(project, action, post):
        raise ConfirmFirst(action)
    elif action == "rotate_link":
        client_link_rotate(project=project, user=user)
    elif action == "revoke_link":
        client_link_revoke(project=project, user=user)
    elif action == "assign":
        form = AssignForm(post)
        if not form.is_valid():
            raise ApplicationError(_("choose a producer from the list"))
        project_assign(project=project, producer=form.cleaned_data["producer"], user=user)
    elif action == "resolve":
        project_resolve(project=project, user=user)
    elif action == "reopen_briefing":
        project_reopen(project=project, user=user)
    elif action == "snooze":
        until = SnoozeForm(post).moment(now=timezone.now())
        project_snooze(project=project, until=until, user=user)
    elif action == "wake":
        project_wake(project=project, user=user)
    elif action == "mark_unread":
        project_mark_unread(project=project, user=user)
    elif action == "note":
        note_add(project=project, text=post.get("text", ""), user=user)
    elif action in ("strong_model_on", "strong_model_off"):
        project_strong_model_set(project=project, on=action == "strong_model_on", user=user)
    elif action in ("memory_correct", "memory_remove"):
        new = post.get("value", "") if action == "memory_correct" else ""
        if action == "memory_correct" and not new.strip():
            raise ApplicationError(_("Write the corrected fact, or remove it."))
        memory_fact_correct(
            project=project, field=post.get("fact", ""), old=post.get("old", ""), new=new,
            user=user,
        )  # fmt: skip
    elif action == "force_close":
        stage_key, reason = _stage_key(project, request), post.get("reason", "")
        stage_force_close(project=project, stage_key=stage_key, user=user, reason=reason)


@login_required
@require_POST
def project_action(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """One producer action (`action` names it). Without htmx: redirect back, the outcome in
    the messages. With htmx: the changed part of the page, or it again with the error in
    place and status 400."""
    project = _get_project_for_user(request, pk)
    if not request.user.has_perm("briefing.change_project"):
        raise PermissionDenied
    action = request.POST.get("action", "")
    section = ACTION_SECTIONS.get(action)
    if section is None:
        return HttpResponseBadRequest("unknown action")
    if action == "message" and "insert_canned" in request.POST:
        return _canned_insert(request, project)
    try:
        _act(request, project, action)
    except ConfirmFirst as ask:
        url = f"{reverse('project_detail', args=[project.pk])}?confirm={ask.action}#link-confirm"
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    except ApplicationError as error:
        problem = _problem(request, action, section, error)
        if not request.htmx:
            messages.error(request, error.message)
            return redirect(_back(project, section, problem.stage_key))
        project.refresh_from_db()
        context = _detail_context(request, project, problem=problem)
        if section == "stage":
            context["card"] = _card(context, problem.stage_key)
            if context["card"] is None:  # an unknown stage: nowhere to show it in place
                return HttpResponseBadRequest(error.message)
        return _sections(request, context, section, status=400)
    given_away = action == "assign" and not projects_for_user(request.user).filter(pk=pk).exists()
    if action == "mark_unread" or given_away:
        # Back to the inbox: opening the page would mark it read again, and a briefing given
        # to another producer is no longer the user's to see.
        done = ACTION_DONE[action]
        messages.success(request, _("Done: %(action)s.") % {"action": done})
        url = reverse("dashboard")
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if not request.htmx:
        done = ACTION_DONE.get(action) or action.replace("_", " ")
        messages.success(request, _("Done: %(action)s.") % {"action": done})
        stage_key = request.POST.get("stage", "") if section in ("stage", "stages") else ""
        return redirect(_back(project, section, stage_key))
    project.refresh_from_db()
    context = _detail_context(request, project)
    if section == "stage":
        context["card"] = _card(context, request.POST.get("stage", ""))
    response = _sections(request, context, section, oob=_follow_ups(action, section))
    if action == "message":
        # The new message joins the transcript as the poller would add it: appended after the
        # last turn the page shows (the form carries the poller's `after`).
        after = plain_int(request.POST.get("after", ""))
        if after is not None:
            update = _transcript_update(request, context, after=after, sections=("poller",))
            response.content += update.content
        else:
            response.content += render_to_string(
                f"{DETAIL_TEMPLATE}#oob", {**context, "oob_sections": ("transcript",)}, request
            ).encode()
    return response


def _problem(
    request: HtmxHttpRequest, action: str, section: str, error: ApplicationError
) -> Problem:
    post = request.POST
    stage_key = post.get("stage", "") if section in ("stage", "stages") else ""
    submitted = {
        name: post.get(name, "") for name in ("value", "reason", "text", "key") if name in post
    }
    return Problem(
        message=error.message,
        section=section,
        stage_key=stage_key,
        field_name=post.get("field", "") if action == "correct" else "",
        submitted=submitted,
    )


def _card(context: dict[str, Any], stage_key: str) -> StageCard | None:
    return next((c for c in context["cards"] if c.row.key == stage_key), None)


def _back(project: Project, section: str, stage_key: str = "") -> str:
    """The page again, scrolled to where the action was."""
    url = reverse("project_detail", args=[project.pk])
    anchor = f"stage-{stage_key}" if stage_key else section
    return f"{url}#{anchor}"


def _canned_insert(request: HtmxHttpRequest, project: Project) -> HttpResponse:
    """The canned reply chosen in the message box, added to what is typed there: the box
    again with both (with htmx), else the page with them in the box. With JavaScript the page
    inserts the reply itself (js/canned_replies.js) and never asks."""
    text = request.POST.get("text", "")
    reply = (
        canned_replies(language=project.language)
        .filter(pk=plain_int(request.POST.get("canned", "")) or 0)
        .first()
    )
    if reply is None:
        problem = Problem(
            message=_("Choose a canned reply to insert."), section="composer",
            submitted={"text": text},
        )  # fmt: skip
        if not request.htmx:
            messages.error(request, problem.message)
            request.session[_draft_key(project)] = text
            return redirect(_back(project, "composer"))
        context = _detail_context(request, project, problem=problem)
        return _sections(request, context, "composer", status=400)
    draft = f"{text.rstrip()}\n\n{reply.text}" if text.strip() else reply.text
    if not request.htmx:
        request.session[_draft_key(project)] = draft
        return redirect(_back(project, "composer"))
    return _sections(request, _detail_context(request, project, draft=draft), "composer")


# --- the inbox's count on every page ----------------------------------------------------------


@login_required
@require_GET
def inbox_unread(request: HtmxHttpRequest) -> HttpResponse:
    """The user's unread client messages for a page other than the inbox (a briefing's): its
    refresh sends the count it shows (`total`) and gets 204 while it is still right, else the
    counter again, which js/inbox_count.js puts into the tab title and the navigation."""
    total = inbox_unread_total(request.user)
    if request.GET.get("total") == str(total):
        return HttpResponse(status=204)
    return render(request, f"{DETAIL_TEMPLATE}#unread", {"inbox_unread": total})


# --- canned replies -----------------------------------------------------------------------------


@login_required
@permission_required("briefing.view_project", raise_exception=True)
@require_http_methods(["GET", "POST"])
def canned_replies_page(request: HtmxHttpRequest) -> HttpResponse:
    """The studio's canned replies, by language: producers add, edit and remove them (each
    change audited). A form posts and comes back here; with htmx only the list is swapped. An
    error is shown in place, the typed text kept."""
    # The languages the back office names in its own language (a briefing's client speaks one).
    names = dict(BRIEFING_LANGUAGES)
    language = request.GET.get("language", "")
    language = language if language in names else ""
    problem: dict[str, Any] = {}
    if request.method == "POST":
        if not request.user.has_perm("briefing.change_project"):
            raise PermissionDenied
        action = request.POST.get("action", "")
        try:
            done = _canned_act(request, action)
        except ApplicationError as error:
            problem = {
                "reply": request.POST.get("reply", "") if action == "edit" else "new",
                "message": error.message,
                "form": CannedReplyForm(request.POST),
            }
        else:
            if not request.htmx:
                messages.success(request, done)
                url = reverse("canned_replies")
                return redirect(f"{url}?language={language}" if language else url)
    replies = list(canned_replies(language=language))
    for reply in replies:
        reply.language_name = names.get(reply.language, reply.language)
    context = {
        "replies": replies,
        "language": language,
        "languages": BRIEFING_LANGUAGES,
        "new_form": problem.get("form")
        if problem.get("reply") == "new"
        else CannedReplyForm(initial={"language": language or "ru"}),
        "problem": problem,
        "can_act": request.user.has_perm("briefing.change_project"),
    }
    template = f"{CANNED_TEMPLATE}#replies" if request.htmx else CANNED_TEMPLATE
    return render(request, template, context, status=400 if problem else 200)


def _canned_act(request: HtmxHttpRequest, action: str) -> str:
    """Parse one canned-reply form and call the service; what was done, in words."""
    post, user = request.POST, request.user
    if action == "add":
        canned_reply_save(
            reply=None, title=post.get("title", ""), language=post.get("language", ""),
            text=post.get("text", ""), user=user,
        )  # fmt: skip
        return _("Canned reply added.")
    reply = get_object_or_404(CannedReply, pk=plain_int(post.get("reply", "")) or 0)
    if action == "edit":
        canned_reply_save(
            reply=reply, title=post.get("title", ""), language=post.get("language", ""),
            text=post.get("text", ""), user=user,
        )  # fmt: skip
        return _("Canned reply saved.")
    if action == "remove":
        canned_reply_remove(reply=reply, user=user)
        return _("Canned reply removed.")
    raise ApplicationError(_("Unknown action."))
