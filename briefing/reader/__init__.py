"""The reader: every client message read for every stage's fields at once (see `read`)."""

from briefing.reader.read import (
    ANSWER,
    CORRECTION,
    FINDING_FIELDS,
    MENTION,
    QUESTION,
    Finding,
    Reading,
    message_read,
)

__all__ = [
    "ANSWER",
    "CORRECTION",
    "FINDING_FIELDS",
    "MENTION",
    "QUESTION",
    "Finding",
    "Reading",
    "message_read",
]
