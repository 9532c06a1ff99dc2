"""The reader: every client message read for every stage's fields at once (see `read`)."""

from briefing.reader.findings import (
    ANSWER,
    CORRECTION,
    FINDING_FIELDS,
    MENTION,
    QUESTION,
    Finding,
    Reading,
)
from briefing.reader.read import message_read

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
