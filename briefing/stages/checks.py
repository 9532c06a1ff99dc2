"""Import-time consistency check of a stage's parts (fields, questions, readers, locks)."""

from __future__ import annotations

from briefing.stages.base import LANGUAGES, StageAnswer, StageSpec


def check_stage(spec: StageSpec) -> None:
    """Raise ValueError when a stage's parts disagree (a field without a question, a
    required field the model lacks, ...): drift is caught at import, not mid-briefing."""
    model_fields = set(spec.answer_model.model_fields)
    problems = []
    if not issubclass(spec.answer_model, StageAnswer):
        problems.append("answer_model is not a StageAnswer")
    if spec.status_field not in model_fields:
        problems.append(f"status field {spec.status_field!r} not in the model")
    own = model_fields - set(StageAnswer.model_fields) - {spec.status_field}
    if set(spec.fields) != own:
        problems.append(f"fields {sorted(spec.fields)} differ from the model's {sorted(own)}")
    if not set(spec.required) <= set(spec.fields):
        problems.append("required fields must be among the fields")
    if not set(spec.readers) <= set(spec.fields):
        problems.append("readers for unknown fields")
    if not set(spec.prefill.values()) <= set(spec.fields):
        problems.append("prefill into unknown fields")
    if not set(spec.locks) <= set(spec.fields):
        problems.append("locks on unknown fields")
    for language in LANGUAGES:
        asked = set(spec.questions.get(language, {}))
        if asked != set(spec.fields):
            problems.append(f"{language} questions do not match the fields")
        if set(spec.reasks.get(language, {})) != set(spec.required):
            problems.append(f"{language} second questions do not match the required fields")
        if not spec.opening.get(language):
            problems.append(f"no {language} opening")
    if problems:
        raise ValueError(f"stage {spec.key!r}: " + "; ".join(problems))
