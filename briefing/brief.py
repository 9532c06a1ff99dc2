"""The final brief: every stage's fields, typed, with its published JSON Schema and a markdown
summary written by code from the fields (never by a model)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import Field

from briefing.stages import collapse
from briefing.stages.base import StageSpec
from briefing.stages.budget import BudgetFields
from briefing.stages.extra import ExtraFields
from briefing.stages.intro import IntroFields
from briefing.stages.registry import stage_title
from briefing.stages.service import ServiceFields
from briefing.stages.vision import VisionFields
from llmkit.fields import StructuredModel

Language = Literal["ru", "uk", "en"]


class Brief(StructuredModel):
    """A finished (or partial) production brief: one object per stage, keyed by stage key,
    each holding that stage's fields (the answer model's fields less message and status)."""

    intro: IntroFields = Field(default_factory=IntroFields)
    vision: VisionFields = Field(default_factory=VisionFields)
    service: ServiceFields = Field(default_factory=ServiceFields)
    budget: BudgetFields = Field(default_factory=BudgetFields)
    extra: ExtraFields = Field(default_factory=ExtraFields)
    language: Language = Field(description="The language of the briefing: ru, uk or en")

    @classmethod
    def stage_keys(cls) -> tuple[str, ...]:
        return tuple(name for name in cls.model_fields if name != "language")

    @classmethod
    def from_profile(cls, profile: Mapping[str, Mapping[str, Any]], *, language: str) -> Brief:
        """Build from a project's profile (stage key → that stage's fields). Keys that are
        not stages, and a stage's message/status keys, are ignored; a value of the wrong
        shape raises pydantic's ValidationError naming the field."""
        keys = cls.stage_keys()
        stages = {key: dict(values) for key, values in profile.items() if key in keys}
        return cls.model_validate({**stages, "language": language})


def brief_json_schema() -> dict[str, Any]:
    """The brief's published JSON Schema (what REST consumers validate against)."""
    return Brief.model_json_schema()


# --- markdown ----------------------------------------------------------------------------

# Client text is untrusted: inline characters that would make markup are escaped wherever
# they are, block markers only where they would open a block (the start of a line).
_INLINE = {
    "\\": "\\\\",
    "`": "\\`",
    "*": "\\*",
    "_": "\\_",
    "[": "\\[",
    "]": "\\]",
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
}
_INLINE_RE = re.compile("[" + re.escape("".join(_INLINE)) + "]")
_BLOCK_MARK = re.compile(r"^[#+=|~-]")
_ORDERED_ITEM = re.compile(r"^(\d{1,9})([.)])")

_NO_DATA = {"ru": "Нет данных", "uk": "Немає даних", "en": "No data"}


def markdown_escape(text: str) -> str:
    """One line of untrusted text as literal markdown: no HTML, links, code, emphasis,
    headings or list markers can come out of it (new lines are collapsed first)."""
    line = _INLINE_RE.sub(lambda m: _INLINE[m.group()], collapse(text))
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
    return "\n".join(out) + "\n"


__all__ = ["Brief", "Language", "brief_json_schema", "brief_markdown", "markdown_escape"]
