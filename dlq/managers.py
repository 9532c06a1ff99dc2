"""Who the managers are, for what is sent to them: the weekly digest and producers' requests
for help with a dead letter."""

from __future__ import annotations

from django.contrib.auth import get_user_model

MANAGERS_GROUP = "Managers"


def manager_addresses() -> list[str]:
    """The e-mail addresses of the active members of the Managers group, sorted, each once."""
    return list(
        get_user_model()
        .objects.filter(is_active=True, groups__name=MANAGERS_GROUP)
        .exclude(email="")
        .order_by("email")
        .values_list("email", flat=True)
        .distinct()
    )
