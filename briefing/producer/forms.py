"""Forms of the producer's pages: a new briefing, the dashboard filters, and the inline
editors of stage fields (one input per field, its kind read from the stage's schema)."""

from __future__ import annotations

import datetime
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _lazy

from briefing.common.inbox import INBOX_VIEWS, inbox_view
from briefing.common.labels import field_label
from briefing.common.selectors import ASSIGNEE_GROUPS, assignees, person_name
from briefing.common.status import WaitingFor
from briefing.models import Project
from briefing.stages.base import LANGUAGES, StageSpec, is_empty
from briefing.stages.readers import read_budget
from briefing.turn.field_states import ASKED, CONFIRMED, LEFT, READ, TO_CHECK, asks, field_state
from core.errors import ApplicationError
from llmkit.extract import find_deadlines

_LANGUAGE_NAMES = {"ru": _lazy("Russian"), "uk": _lazy("Ukrainian"), "en": _lazy("English")}
LANGUAGE_CHOICES = tuple((code, _LANGUAGE_NAMES.get(code, code)) for code in LANGUAGES)


def producer_choices(user: Any) -> QuerySet:
    """Whom a new briefing may be assigned to: a manager picks any producer or manager; a
    producer only themself (a briefing given away would vanish from their own list)."""
    users = get_user_model().objects.filter(is_active=True)
    if not user.has_perm("briefing.view_all_projects"):
        return users.filter(pk=user.pk)
    return (
        users.filter(Q(groups__name__in=ASSIGNEE_GROUPS) | Q(pk=user.pk))
        .distinct()
        .order_by("first_name", "last_name", "username")
    )


class PersonChoiceField(forms.ModelChoiceField):
    """A colleague picked by full name (the username only for one who has none)."""

    def label_from_instance(self, obj: Any) -> str:
        return person_name(obj)


class AssignForm(forms.Form):
    """Give a briefing to another producer: every active producer and manager, by name."""

    producer = PersonChoiceField(queryset=get_user_model().objects.none(), label=_lazy("Assign to"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["producer"].queryset = assignees()


# Snooze choices offered as buttons; "until" takes any time (the studio's time zone).
SNOOZE_PRESETS = (
    ("1h", _lazy("for an hour")),
    ("3h", _lazy("for 3 hours")),
    ("tomorrow", _lazy("until tomorrow, 9:00")),
    ("next_week", _lazy("until Monday, 9:00")),
)
MORNING = datetime.time(9, 0)


def snooze_until(preset: str, *, now: datetime.datetime) -> datetime.datetime | None:
    """The moment a snooze preset stands for, from `now` in the studio's time zone."""
    local = timezone.localtime(now)
    if preset == "1h":
        return now + datetime.timedelta(hours=1)
    if preset == "3h":
        return now + datetime.timedelta(hours=3)
    if preset == "tomorrow":
        day = local.date() + datetime.timedelta(days=1)
    elif preset == "next_week":
        day = local.date() + datetime.timedelta(days=7 - local.weekday())
    else:
        return None
    return timezone.make_aware(datetime.datetime.combine(day, MORNING))


class SnoozeForm(forms.Form):
    """A snooze: one of the presets (the button pressed), else the time typed."""

    preset = forms.ChoiceField(choices=SNOOZE_PRESETS, required=False)
    until = forms.DateTimeField(
        required=False,
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )

    def moment(self, *, now: datetime.datetime) -> datetime.datetime:
        """The chosen moment, or ApplicationError saying what is missing or wrong."""
        if not self.is_valid():
            raise ApplicationError(gettext("write the time as day, month, year and hours"))
        preset = self.cleaned_data["preset"]
        if preset:
            return snooze_until(preset, now=now)
        if self.cleaned_data["until"] is None:
            raise ApplicationError(gettext("choose how long to snooze, or a time"))
        return self.cleaned_data["until"]


class CannedReplyForm(forms.Form):
    """A canned reply as the producer edits it (the service checks what it must hold)."""

    title = forms.CharField(required=False, max_length=200)
    language = forms.ChoiceField(choices=LANGUAGE_CHOICES)
    text = forms.CharField(required=False, widget=forms.Textarea)


class ProjectNewForm(forms.Form):
    title = forms.CharField(max_length=200, label=_lazy("Title"))
    client_name = forms.CharField(max_length=200, required=False, label=_lazy("Client name"))
    client_company = forms.CharField(max_length=200, required=False, label=_lazy("Client company"))
    client_contact = forms.CharField(
        max_length=200,
        required=False,
        label=_lazy("Client contact"),
        help_text=_lazy("A phone number or an e-mail address"),
    )
    language = forms.ChoiceField(
        choices=LANGUAGE_CHOICES, initial="ru", label=_lazy("The client's language")
    )
    producer = PersonChoiceField(queryset=get_user_model().objects.none(), label=_lazy("Producer"))

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["producer"].queryset = producer_choices(user)
        self.fields["producer"].initial = user.pk


class DashboardFilterForm(forms.Form):
    q = forms.CharField(required=False, label=_lazy("Search"), max_length=200)
    status = forms.ChoiceField(
        required=False, choices=[("", _lazy("any status")), *Project.Status.choices]
    )
    producer = PersonChoiceField(
        required=False,
        queryset=get_user_model().objects.none(),
        empty_label=_lazy("any producer"),
    )
    waiting = forms.ChoiceField(
        required=False,
        label=_lazy("Waiting for"),
        choices=[("", _lazy("anyone")), *WaitingFor.CHOICES],
    )
    view = forms.ChoiceField(required=False, label=_lazy("Show"), choices=INBOX_VIEWS)

    def __init__(self, *args: Any, projects: QuerySet[Project], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["producer"].queryset = (
            get_user_model()
            .objects.filter(pk__in=projects.exclude(producer=None).values("producer"))
            .order_by("first_name", "last_name", "username")
        )

    def inbox_list(self) -> str:
        """Which of the inbox's lists to show: the open one unless another is asked for (an
        unknown name too, so a stale link still shows the inbox)."""
        asked = self.data.get("view", "") if self.is_bound else ""
        return asked if asked in dict(INBOX_VIEWS) else "open"

    def filter(self, projects: QuerySet[Project]) -> QuerySet[Project]:
        """`projects` must carry the `waiting_for` annotation. Invalid filters filter
        nothing (a stale link still shows the list)."""
        if not self.is_valid():
            return projects
        data = self.cleaned_data
        if data["q"]:
            projects = projects.filter(
                Q(title__icontains=data["q"]) | Q(client_name__icontains=data["q"])
            )
        if data["status"]:
            projects = projects.filter(status=data["status"])
        if data["producer"]:
            projects = projects.filter(producer=data["producer"])
        if data["waiting"]:
            projects = projects.filter(waiting_for=data["waiting"])
        return projects

    def filter_view(self, projects: QuerySet[Project], *, now: Any = None) -> QuerySet[Project]:
        """`filter`, then the inbox's list (`view`): the open one by default."""
        return inbox_view(self.filter(projects), self.inbox_list(), now=now)


# --- stage fields --------------------------------------------------------------------------

FieldKind = Literal["text", "list", "bool", "int", "choice"]


def _unwrap(annotation: Any) -> Any:
    """The annotation less Annotated and Optional: str, int, bool, list[...] or Literal."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            rest = [a for a in get_args(annotation) if a is not type(None)]
            if len(rest) != 1:
                return str
            annotation = rest[0]
        else:
            return annotation


def field_kind(spec: StageSpec, name: str) -> tuple[FieldKind, tuple[str, ...]]:
    """Which input edits a stage field, and its choices for a Literal."""
    annotation = _unwrap(spec.answer_model.model_fields[name].annotation)
    origin = get_origin(annotation)
    if origin is list:
        return "list", ()
    if origin is Literal:
        return "choice", tuple(str(a) for a in get_args(annotation))
    if annotation is bool:
        return "bool", ()
    if annotation is int:
        return "int", ()
    return "text", ()


def field_value(spec: StageSpec, name: str, raw: str) -> Any:
    """A posted string as the value the stage's schema validates (the service says whether
    it is valid): one list item per line, yes/no for a flag, blank for unknown. Amounts and
    dates are read as the bot reads a client ("1,2 млн", "1 200 000 ₽"; "20 мая" → an ISO
    date); an amount that cannot be read is an ApplicationError that says so in words."""
    kind, _ = field_kind(spec, name)
    raw = raw.replace("\x00", "")
    if kind == "list":
        return [line.strip() for line in raw.splitlines() if line.strip()]
    if kind == "bool":
        return raw.strip().lower() in ("true", "yes", "on", "1")
    if not raw.strip():
        return None
    finding = {target: found for found, target in spec.prefill.items()}.get(name)
    if kind == "int":
        amount = read_budget(raw, "ru")
        if amount is None:
            raise ApplicationError(
                gettext(
                    "%(field)s: “%(raw)s” is not an amount; write it as 1 200 000, 1,2 млн or "
                    "500 тыс."
                )
                % {"field": field_label(spec.key, name), "raw": raw.strip()[:60]},
                extra={"field": name},
            )
        return amount
    if finding == "deadline":
        # The date the bot would read from the same words, else the words themselves.
        deadlines = find_deadlines(raw, today=datetime.date.today())
        return deadlines[0].value.isoformat() if deadlines else raw.strip()
    return raw.strip()


@dataclass(frozen=True)
class FieldInput:
    """One stage field's inline editor."""

    name: str
    kind: FieldKind
    choices: tuple[str, ...]
    value: str  # as the input shows it
    # The stored value as the input shows it when the page was made: a save checks that it
    # did not change meanwhile (the agents fill fields while a producer edits).
    stored: str
    required: bool
    empty: bool
    set_by_producer: bool
    error: str = ""
    # The field's dialogue state (briefing.turn.field_states) and how often the agent asked for it.
    state: str = ""
    asked: int = 0

    @property
    def state_label(self) -> str:
        """What the producer reads beside the field: "to check", "left for you", "asked x2"."""
        if self.state == ASKED:
            return ngettext("asked %(count)d time", "asked %(count)d times", self.asked) % {
                "count": self.asked
            }
        return str(STATE_LABELS.get(self.state, ""))


def field_shown(spec: StageSpec, name: str, value: Any) -> str:
    """A stage field's value as its editor shows it."""
    return _shown(field_kind(spec, name)[0], value)


def _shown(kind: FieldKind, value: Any) -> str:
    if kind == "list":
        return "\n".join(str(v) for v in value or [])
    if kind == "bool":
        return "true" if value else "false"
    return "" if value is None else str(value)


STATE_LABELS = {
    READ: _lazy("read from the client"),
    TO_CHECK: _lazy("to check"),
    LEFT: _lazy("left for you"),
    CONFIRMED: _lazy("confirmed by the client"),
}


def field_inputs(
    spec: StageSpec,
    values: Mapping[str, Any],
    producer_fields: Sequence[str],
    *,
    dialogue: Mapping[str, Any] | None = None,
    confirmed: bool = False,
    error_field: str = "",
    error: str = "",
    submitted: str | None = None,
) -> list[FieldInput]:
    """The editors of a stage's fields, each with its dialogue state; the one that failed
    shows what was posted and why."""
    dialogue = dialogue or {}
    inputs = []
    for name in spec.fields:
        kind, choices = field_kind(spec, name)
        failed = name == error_field
        shown = submitted if failed and submitted is not None else _shown(kind, values.get(name))
        inputs.append(
            FieldInput(
                name=name,
                kind=kind,
                choices=choices,
                value=shown,
                stored=_shown(kind, values.get(name)),
                required=name in spec.required,
                empty=is_empty(values.get(name)),
                set_by_producer=name in producer_fields,
                error=error if failed else "",
                state=field_state(dialogue, name, values.get(name), confirmed=confirmed),
                asked=asks(dialogue, name),
            )
        )
    return inputs
