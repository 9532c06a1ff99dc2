"""Why a message waits in the human queue, in words: the reasons are stored in English (the
column keeps what the reader decided, whatever the office's language) and shown translated;
a reason written in another way (a mail set aside in the worker's language) is shown as is."""

from __future__ import annotations

import functools
import re

from django.utils.translation import gettext, gettext_noop

NOTHING_TO_ACT_ON = gettext_noop(
    "nothing to act on: no request, product, budget, term, call-back or phone"
)
NOTHING_TO_ACT_ON_INSTRUCTIONS = gettext_noop(
    "nothing to act on: no request, product, budget, term, call-back or phone (it contains "
    "instructions to the machine, ignored)"
)
EMPTY = gettext_noop("the message is empty")
ATTACHMENTS_ONLY = gettext_noop("attachments only (%(names)s): a person must open them")
READING_LOST = gettext_noop(
    "its reading was lost %(lost)s times (a worker died or ran out of time)"
)
REASONS = (
    NOTHING_TO_ACT_ON,
    NOTHING_TO_ACT_ON_INSTRUCTIONS,
    EMPTY,
    ATTACHMENTS_ONLY,
    READING_LOST,
)
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@functools.cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each reason as a pattern that reads its stored text back, placeholders as groups."""
    patterns = []
    for reason in REASONS:
        parts = _PLACEHOLDER.split(reason)
        regex = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>.*?)" for i, part in enumerate(parts)
        )
        patterns.append((re.compile(regex), reason))
    return tuple(patterns)


def human_reason_shown(reason: str) -> str:
    """A stored reason in the active language."""
    for pattern, template in _patterns():
        match = pattern.fullmatch(reason)
        if match:
            translated = gettext(template)
            return translated % match.groupdict() if match.groupdict() else translated
    return reason
