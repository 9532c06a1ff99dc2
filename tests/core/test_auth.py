"""The login backend reads a user's permissions, their own and their groups', in one query,
and grants exactly what Django's ModelBackend grants."""

from __future__ import annotations

import pytest
from django.contrib.auth import backends, get_user_model
from django.contrib.auth.models import Group, Permission

from core.auth import ModelBackend

pytestmark = pytest.mark.django_db


def _perm(codename: str) -> Permission:
    return Permission.objects.get(codename=codename)


@pytest.fixture
def reviewer():
    user = get_user_model().objects.create_user("reviewer", password="x")
    user.user_permissions.add(_perm("view_all_projects"))
    group = Group.objects.create(name="Reviewers")
    group.permissions.add(_perm("view_deadletter"), _perm("view_all_projects"))
    user.groups.add(group)
    return user


def test_own_and_group_permissions_come_from_one_query(reviewer, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert reviewer.has_perm("briefing.view_all_projects")  # own and the group's
        assert reviewer.has_perm("dlq.view_deadletter")  # the group's only
        assert not reviewer.has_perm("dlq.change_deadletter")
        assert not reviewer.has_perm("briefing.view_all_projects", obj=object())


def test_it_grants_what_djangos_backend_grants(reviewer, manager, producer, outsider):
    for user in (reviewer, manager, producer, outsider):
        fresh = get_user_model().objects.get(pk=user.pk)
        expected = backends.ModelBackend().get_all_permissions(fresh)
        fresh = get_user_model().objects.get(pk=user.pk)
        assert ModelBackend().get_all_permissions(fresh) == expected


def test_an_inactive_user_has_no_permission(reviewer):
    reviewer.is_active = False
    reviewer.save()
    assert not get_user_model().objects.get(pk=reviewer.pk).has_perm("dlq.view_deadletter")


def test_a_superuser_has_every_permission():
    admin = get_user_model().objects.create_superuser("root", password="x")
    assert ModelBackend().get_all_permissions(admin) == {
        f"{p.content_type.app_label}.{p.codename}"
        for p in Permission.objects.select_related("content_type")
    }
