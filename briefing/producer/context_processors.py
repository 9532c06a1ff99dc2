"""What every page's navigation shows about the inbox: the user's unread client messages."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from briefing.common.inbox import inbox_unread_total


def inbox(request: HttpRequest) -> dict:
    # Lazy: a page that shows no navigation (the client's chat) asks nothing.
    return {"inbox_unread": SimpleLazyObject(lambda: inbox_unread_total(request.user))}
