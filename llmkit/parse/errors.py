"""Field-level errors and coercion records shared by every layer of the parse pipeline."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class FieldError:
    """One thing wrong with a model answer, pinned to a field.

    `path` is a dotted path into the answer (`deliverables.0`, `$` for the whole answer);
    `kind` is a stable machine word (`int_parsing`, `missing`, `no_json`, ...). Together
    they form the error signature that dead letters are grouped by.
    """

    path: str
    kind: str
    message: str
    input: Any = None

    @property
    def signature(self) -> str:
        return f"{self.path}: {self.kind}"

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "input": _jsonable(self.input)}


@dataclass(frozen=True, slots=True)
class Coercion:
    """One value the pipeline changed to fit the schema, kept so nothing changes silently."""

    path: str
    kind: str
    before: Any
    after: Any

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "before": _jsonable(self.before),
            "after": _jsonable(self.after),
        }


def join_path(parent: str, key: str | int) -> str:
    return str(key) if parent in ("", "$") else f"{parent}.{key}"


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    return repr(value)
