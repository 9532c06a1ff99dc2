"""Template filters that show CRM's stored codes and reasons as a person reads them in the
active language ({{ message.human_reason|human_reason }}, {{ lead.channel|channel_label }})."""

from __future__ import annotations

from django import template

from crm.human_reasons import human_reason_shown
from crm.models import InboundMessage

register = template.Library()


@register.filter
def human_reason(reason: str) -> str:
    return human_reason_shown(reason)


@register.filter
def channel_label(channel: str) -> str:
    """A channel's label ("form" → "веб-форма"); an unknown code is shown as it is."""
    try:
        return str(InboundMessage.Channel(channel).label)
    except ValueError:
        return channel
