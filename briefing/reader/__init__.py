"""The reader: every client message read for every stage's fields at once (see `read`)."""

from briefing.reader.read import (
    ANSWER,
    CORRECTION,
    FIELD_STAGES,
    MENTION,
    QUESTION,
    Finding,
    Reading,
    message_read,
)

__all__ = [
    "ANSWER",
    "CORRECTION",
    "FIELD_STAGES",
    "MENTION",
    "QUESTION",
    "Finding",
    "Reading",
    "message_read",
]
