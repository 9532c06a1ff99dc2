"""What a briefing stage is: its answer schema, required fields, status flag, prompt and the
rules agent's question templates. Stages are data; the orchestrator knows only this shape."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from llmkit.fields import StructuredModel

LANGUAGES = ("ru", "uk", "en")


class StageAnswer(StructuredModel):
    """Every stage agent answers with this much: a message to the client, the field it asks
    about, the stage's own fields (declared by the subclass) and a status flag named
    `<stage>Status`."""

    message: str = Field(max_length=2000)
    askedField: str | None = Field(
        default=None,
        description="The key of the one field your message asks the client about (a field "
        "still missing), or null when it asks about none",
    )


# Reads a value the rules agent finds in a client's direct answer to its question:
# (the client's text, the language) -> the field's value or None.
AnswerReader = Callable[[str, str], Any]


@dataclass(frozen=True)
class StageSpec:
    """One stage of a briefing type.

    `answer_model` is the pydantic model of the agent's JSON; `fields` are the keys of the
    stage's own fields in that model (everything but `message` and the status flag), in
    the order the rules agent asks for them; `required` the ones the gate insists on.
    `questions[language][field]` are the rules agent's questions (Russian, Ukrainian,
    English); `opening[language]` greets the client when the stage starts. `prompt` is the
    stage's short English instruction block (role, task, one example question); the response
    schema is appended by the engine from `answer_model`, so it cannot drift from the code.
    `reasks[language][field]` asks a required field the second time, in other words.
    `readers[field]` lets the rules agent take a direct answer to its own question.
    `prefill` maps the reader's findings (briefing.reader) to this stage's fields.
    `summary(fields, language)` writes the stage's summary line(s) from its fields (code,
    never the model).
    """

    key: str
    title: str
    answer_model: type[StageAnswer]
    status_field: str
    fields: tuple[str, ...]
    required: tuple[str, ...]
    prompt: str
    questions: Mapping[str, Mapping[str, str]]
    opening: Mapping[str, str]
    summary: Callable[[Mapping[str, Any], str], str]
    readers: Mapping[str, AnswerReader] = field(default_factory=dict)
    # Which of the reader's findings fills which field of this stage: {"budget": "budget",
    # ...}; findings are those of `briefing.reader.FINDING_FIELDS`.
    prefill: Mapping[str, str] = field(default_factory=dict)
    # Fields whose value is locked once known, and under which key: {"clientName":
    # "client_name"}. Locks are shared by all stages of a project.
    locks: Mapping[str, str] = field(default_factory=dict)
    # The second, reworded question for each required field (`reasks[language][field]`): a
    # field is asked at most twice (briefing.turn.field_states), never with the same sentence.
    reasks: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def missing(self, values: Mapping[str, Any], left: Iterable[str] = ()) -> list[str]:
        """Required fields still empty (None, "", [] count as empty; False does not), but for
        those `left` for the producer (briefing.turn.field_states): the gate does not wait for
        them."""
        left = frozenset(left)
        return [n for n in self.required if is_empty(values.get(n)) and n not in left]


def is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}
