"""Template filters that show CRM's stored codes and reasons as a person reads them in the
active language ({{ message.human_reason|human_reason }}, {{ lead.channel|channel_label }},
{{ contact.value|phone_country_name }})."""

from __future__ import annotations

from django import template
from django.utils.translation import get_language

from crm.human_reasons import human_reason_shown
from crm.models import InboundMessage
from crm.reading import phone_country

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


@register.filter
def phone_country_name(phone: str) -> str:
    """The country a phone was read as, in the page's language ("Украина"), or ""."""
    return phone_country(phone, (get_language() or "en").split("-")[0])
