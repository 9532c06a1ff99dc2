"""The login backend: Django's ModelBackend, with a user's permissions read in one query
(its own and its groups' together) instead of two on every request that checks one."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import backends
from django.contrib.auth.models import Permission
from django.db.models import Q


class ModelBackend(backends.ModelBackend):
    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if user_obj.is_superuser:  # every permission: Django's own reading
            return super().get_all_permissions(user_obj, obj)
        if not hasattr(user_obj, "_perm_cache"):
            rows = (
                Permission.objects.filter(Q(user=user_obj) | Q(group__user=user_obj))
                .values_list("content_type__app_label", "codename")
                .distinct()
            )
            user_obj._perm_cache = {f"{app_label}.{codename}" for app_label, codename in rows}
        return user_obj._perm_cache
