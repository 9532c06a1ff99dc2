"""The dead-letter fix editor as a form: the answer schema's fields as labelled inputs in the
manager's language (the letter's source names them), read back into the JSON the parse
pipeline checks, so a manager corrects a field or two instead of hand-writing `clientName`
and `introStatus`. The raw JSON stays on the page as the advanced view."""

from __future__ import annotations

import json
import re
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from llmkit.parse.extraction import first_object

FixKind = Literal["text", "long_text", "list", "bool", "int", "choice"]
# The prefix of a field's input name: a schema field may be called anything, "data" too.
INPUT_PREFIX = "field-"
# A text field longer than this is edited in a box of several lines.
SHORT_TEXT_MAX = 300
_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,19}")
_DIGIT_GROUPS = re.compile(r"[\s\u00a0\u202f_]")


@dataclass(frozen=True)
class AnswerForm:
    """What a dead letter's source says about the answer its letters should have held: the
    schema, a label for each field in the active language, and labels for the values of a
    field with choices (`{"askedField": {"contact": "Контакт"}}`). Fields the schema has and
    `labels` lacks are shown under their key spelled out, never left out of the answer."""

    model: type[BaseModel]
    labels: Mapping[str, str]
    choice_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # Fields with choices that a source offers beyond a Literal's (a free-text key that must
    # name one of a list, such as the field a stage's message asks about).
    choices: Mapping[str, Sequence[str]] = field(default_factory=dict)
    help_texts: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FixField:
    """One input of the fix form."""

    name: str
    label: str
    kind: FixKind
    value: str  # as the input shows it (a list one item a line, a flag "true"/"false")
    required: bool
    choices: tuple[tuple[str, str], ...] = ()
    help_text: str = ""
    error: str = ""

    @property
    def input_name(self) -> str:
        return f"{INPUT_PREFIX}{self.name}"

    @property
    def checked(self) -> bool:
        return self.value == "true"


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """The annotation less Annotated and Optional, and whether None was allowed."""
    nullable = False
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            rest = [a for a in get_args(annotation) if a is not type(None)]
            nullable = nullable or len(rest) < len(get_args(annotation))
            if len(rest) != 1:
                return str, nullable
            annotation = rest[0]
        else:
            return annotation, nullable


def _max_length(info: Any) -> int | None:
    for meta in info.metadata:
        length = getattr(meta, "max_length", None)
        if length is not None:
            return length
    return None


def _kind(form: AnswerForm, name: str) -> tuple[FixKind, tuple[str, ...]]:
    info = form.model.model_fields[name]
    annotation, _ = _unwrap(info.annotation)
    origin = get_origin(annotation)
    if name in form.choices:
        return "choice", tuple(form.choices[name])
    if origin is list:
        return "list", ()
    if origin is Literal:
        return "choice", tuple(str(a) for a in get_args(annotation))
    if annotation is bool:
        return "bool", ()
    if annotation is int:
        return "int", ()
    length = _max_length(info)
    return ("text" if length is not None and length <= SHORT_TEXT_MAX else "long_text"), ()


def _spelled_out(name: str) -> str:
    """`keyMessage` or `key_message` → "Key message": a field without a label is still no code."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").split()
    return " ".join(words).capitalize() if words else name


def _shown(kind: FixKind, value: Any) -> str:
    if kind == "list":
        items = value if isinstance(value, list) else ([] if value is None else [value])
        return "\n".join(
            item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)
            for item in items
        )
    if kind == "bool":
        return "true" if value is True else "false"
    if value is None:
        return ""
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def fix_fields(
    form: AnswerForm,
    *,
    values: Mapping[str, Any] | None = None,
    typed: Mapping[str, str] | None = None,
    errors: Mapping[str, str] | None = None,
) -> list[FixField]:
    """The form's inputs in the schema's order: each shows what the manager typed (`typed`,
    after a refused fix) or else the value in `values` (the model's last answer)."""
    values, typed, errors = values or {}, typed or {}, errors or {}
    inputs = []
    for name, info in form.model.model_fields.items():
        kind, codes = _kind(form, name)
        labels = form.choice_labels.get(name, {})
        inputs.append(
            FixField(
                name=name,
                label=form.labels.get(name) or _spelled_out(name),
                kind=kind,
                value=typed[name] if name in typed else _shown(kind, values.get(name)),
                required=info.is_required(),
                choices=tuple((code, labels.get(code, code)) for code in codes),
                help_text=form.help_texts.get(name, ""),
                error=errors.get(name, ""),
            )
        )
    return inputs


def _read(kind: FixKind, raw: str, *, nullable: bool) -> Any:
    """A posted string as the JSON value a model would have written. Text that is no plain
    number stays text, so the pipeline's coercion reads it as it reads a model's
    ("1,2 млн", "около 500 тыс") and names the field when it cannot."""
    if kind == "list":
        return [line.strip() for line in raw.splitlines() if line.strip()]
    if kind == "bool":
        return raw == "true"
    text = raw.strip()
    if not text:
        return "" if kind in ("text", "long_text") and not nullable else None
    if kind == "int":
        digits = _DIGIT_GROUPS.sub("", text)
        return int(digits) if _WHOLE_NUMBER.fullmatch(digits) else text
    return text


@dataclass(frozen=True)
class PostedFix:
    """A fix form as posted: the answer as JSON data for the pipeline, what the manager typed
    in each input (shown again when the fix is refused, so nothing typed is lost), and the
    required inputs left blank."""

    data: dict[str, Any]
    typed: dict[str, str]
    blank_required: list[str]


def fix_data_from_post(form: AnswerForm, post: Mapping[str, Any]) -> PostedFix:
    """Read a posted fix form. An unticked checkbox posts nothing: it is false."""
    data: dict[str, Any] = {}
    typed: dict[str, str] = {}
    blank: list[str] = []
    for name, info in form.model.model_fields.items():
        kind, _ = _kind(form, name)
        raw = str(post.get(f"{INPUT_PREFIX}{name}", "") or "").replace("\x00", "")
        if kind == "bool":
            raw = "true" if raw in ("true", "on", "1") else "false"
        typed[name] = raw
        _, nullable = _unwrap(info.annotation)
        data[name] = _read(kind, raw, nullable=nullable)
        if info.is_required() and kind != "bool" and data[name] in (None, "", []):
            blank.append(name)
    return PostedFix(data=data, typed=typed, blank_required=blank)


def answer_start(raw: str | None) -> dict[str, Any]:
    """The values the form starts from: the JSON object in the model's answer where it wrote
    one (most fixes are a field or two), nothing where it wrote prose."""
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        value = first_object(raw)
    return value if isinstance(value, dict) else {}


def errors_by_field(form: AnswerForm, errors: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The pipeline's errors at the inputs they belong to (`deliverables.0` is the
    deliverables box); one an input cannot hold (`$`) is left to the form's own list."""
    fields = form.model.model_fields
    placed: dict[str, str] = {}
    for error in errors:
        head = str(error.get("path", "")).split(".", 1)[0]
        if head in fields:
            message = str(error.get("message", ""))
            placed[head] = f"{placed[head]}; {message}" if head in placed else message
    return placed


def errors_unplaced(form: AnswerForm, errors: Sequence[Mapping[str, Any]]) -> list[dict]:
    fields = form.model.model_fields
    return [e for e in errors if str(e.get("path", "")).split(".", 1)[0] not in fields]
