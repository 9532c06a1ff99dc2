"""The final brief: every stage's fields, typed, with its published JSON Schema and a markdown
summary written by code from the fields (never by a model)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import Field

from briefing.reader.contacts import contacts_typed
from briefing.stages.base import StageSpec
from briefing.stages.budget import BudgetFields
from briefing.stages.extra import ExtraFields
from briefing.stages.intro import IntroFields
from briefing.stages.readers import collapse
from briefing.stages.registry import stage_title
from briefing.stages.service import ServiceFields
from briefing.stages.vision import VisionFields
from llmkit.fields import StructuredModel

Language = Literal["ru", "uk", "en"]


class AdditionalRequest(StructuredModel):
    """Something the client wrote after the brief was complete, kept as the client wrote it."""

    text: str = Field(description="The client's message")
    receivedAt: str = Field(description="When it arrived, ISO 8601 with the time zone")


class Contacts(StructuredModel):
    """Every way to reach the client, each kind in its own list, split by code from the
    contact field (briefing.reader.contacts): none is lost when a client gives several."""

    phones: list[str] = Field(default_factory=list, description="Phone numbers, E.164")
    emails: list[str] = Field(default_factory=list, description="E-mail addresses")
    messengers: list[str] = Field(
        default_factory=list, description='Messenger handles and links ("@anna_k", "t.me/…")'
    )
    websites: list[str] = Field(default_factory=list, description="The client's websites")
    other: list[str] = Field(
        default_factory=list, description="Anything else written as a contact, as written"
    )


class Brief(StructuredModel):
    """A finished (or partial) production brief: one object per stage, keyed by stage key,
    each holding that stage's fields (the answer model's fields less message and status),
    and what the client asked for after completion."""

    intro: IntroFields = Field(default_factory=IntroFields)
    vision: VisionFields = Field(default_factory=VisionFields)
    service: ServiceFields = Field(default_factory=ServiceFields)
    budget: BudgetFields = Field(default_factory=BudgetFields)
    extra: ExtraFields = Field(default_factory=ExtraFields)
    contacts: Contacts = Field(
        default_factory=Contacts, description="The intro stage's contact, split by kind"
    )
    language: Language = Field(description="The language of the briefing: ru, uk or en")
    additionalRequests: list[AdditionalRequest] = Field(
        default_factory=list,
        description="What the client asked for after the brief was complete, oldest first",
    )

    @classmethod
    def stage_keys(cls) -> tuple[str, ...]:
        return tuple(
            name
            for name in cls.model_fields
            if name not in ("contacts", "language", "additionalRequests")
        )

    @classmethod
    def from_profile(
        cls,
        profile: Mapping[str, Mapping[str, Any]],
        *,
        language: str,
        additional_requests: Iterable[Mapping[str, Any]] = (),
    ) -> Brief:
        """Build from a project's profile (stage key → that stage's fields). Keys that are
        not stages, and a stage's message/status keys, are ignored; a value of the wrong
        shape raises pydantic's ValidationError naming the field."""
        keys = cls.stage_keys()
        stages = {key: dict(values) for key, values in profile.items() if key in keys}
        contacts = contacts_typed(stages.get("intro", {}).get("contact"))
        return cls.model_validate(
            {**stages, "contacts": contacts, "language": language,
             "additionalRequests": list(additional_requests)}
        )  # fmt: skip


def brief_json_schema() -> dict[str, Any]:
    """The brief's published JSON Schema (what REST consumers validate against)."""
    return Brief.model_json_schema()


# --- markdown ----------------------------------------------------------------------------

# Client text is untrusted, and people copy the markdown as text (a reference's URL must
# survive): only what CommonMark would read as markup is escaped, with a backslash. Code
# spans, emphasis stars and link brackets always; "_" only where it could open or close
# emphasis (not inside a word: snake_case and URLs stay whole); "&" only before what would
# read as an entity ("&amp;"), "<" only before what would open a tag or an autolink; a
# backslash only before punctuation (elsewhere it is literal). Block markers only where
# they would open a block (the start of a line, or of a list item's text).
_ALWAYS = frozenset("`*[]")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_TAG_START = re.compile(r"<[A-Za-z/!?]")
_BLOCK_MARK = re.compile(r"^[#+=|~>-]")
_ORDERED_ITEM = re.compile(r"^(\d{1,9})([.)])")

_NO_DATA = {"ru": "Нет данных", "uk": "Немає даних", "en": "No data"}
_ADDITIONAL = {
    "ru": "Дополнительные запросы",
    "uk": "Додаткові запити",
    "en": "Additional requests",
}


def _needs_escape(text: str, at: int) -> bool:
    char = text[at]
    if char in _ALWAYS:
        return True
    if char == "\\":
        return at + 1 < len(text) and text[at + 1] in _PUNCTUATION
    if char == "_":
        before = text[at - 1] if at else " "
        after = text[at + 1] if at + 1 < len(text) else " "
        return not (before.isalnum() and after.isalnum())
    if char == "&":
        return _ENTITY.match(text, at) is not None
    if char == "<":
        return _TAG_START.match(text, at) is not None
    return False


def markdown_escape(text: str) -> str:
    """One line of untrusted text as literal markdown: no HTML, links, code, emphasis,
    headings or list markers can come out of it (new lines are collapsed first), and
    nothing else is touched ("R&D", "a < b", "https://x.example/a_b?c=1&d=2" stay)."""
    line = collapse(text)
    line = "".join("\\" + char if _needs_escape(line, at) else char for at, char in enumerate(line))
    line = _BLOCK_MARK.sub(lambda m: "\\" + m.group(), line)
    return _ORDERED_ITEM.sub(r"\1\\\2", line)


def brief_markdown(
    brief: Brief, *, title: str, language: str, stage_specs: Iterable[StageSpec]
) -> str:
    """A heading, then a section per stage (its title in `language`) listing the stage's
    summary lines; every line comes from code and the stored fields, escaped."""
    out = [f"# {markdown_escape(title)}"]
    for spec in stage_specs:
        stage = getattr(brief, spec.key, None)
        values = stage.model_dump() if isinstance(stage, StructuredModel) else {}
        lines = [line for line in spec.summary(values, language).splitlines() if line.strip()]
        out += ["", f"## {markdown_escape(stage_title(spec, language))}", ""]
        if lines:
            out += [f"- {markdown_escape(line)}" for line in lines]
        else:
            out.append(f"- {_NO_DATA.get(language, _NO_DATA['en'])}")
    if brief.additionalRequests:
        out += ["", f"## {_ADDITIONAL.get(language, _ADDITIONAL['en'])}", ""]
        out += [
            f"- {markdown_escape(item.receivedAt[:16].replace('T', ' '))}: "
            f"{markdown_escape(item.text)}"
            for item in brief.additionalRequests
        ]
    return "\n".join(out) + "\n"


__all__ = [
    "AdditionalRequest",
    "Brief",
    "Contacts",
    "Language",
    "brief_json_schema",
    "brief_markdown",
    "markdown_escape",
]
