"""Request typing shared by the apps' views."""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request that went through django-htmx's middleware (for the type checker)."""

    htmx: HtmxDetails
