"""The parse pipeline that turns a raw model answer into a validated object."""

from llmkit.parse.errors import Coercion, FieldError
from llmkit.parse.pipeline import LAYERS, Layer, ParseOutcome, parse
from llmkit.parse.semantic import SemanticValidator, number_in_source, one_of_context
from llmkit.parse.target import ModelTarget, SchemaTarget, Target, as_target

__all__ = [
    "LAYERS",
    "Coercion",
    "FieldError",
    "Layer",
    "ModelTarget",
    "ParseOutcome",
    "SchemaTarget",
    "SemanticValidator",
    "Target",
    "as_target",
    "number_in_source",
    "one_of_context",
    "parse",
]
