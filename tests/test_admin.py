"""Every ModelAdmin: the list (with its filters and search) and the change page open."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse
from django.utils import timezone

from briefing.services import project_create, turn_receive
from crm.services import Inbound, inbound_store
from dlq.services import llm_check_run

pytestmark = pytest.mark.django_db

OUR_APPS = {"api", "briefing", "crm", "dlq", "webhooks", "studio"}
OURS = [m for m in admin.site._registry if m._meta.app_label in OUR_APPS]


@pytest.fixture
def data(django_capture_on_commit_callbacks):
    project = project_create(title="Admin smoke", language="ru")
    with django_capture_on_commit_callbacks(execute=True):
        turn_receive(project=project, text="Здравствуйте! Бюджет 500 тыс рублей")
    llm_check_run(source_id="admin")
    with django_capture_on_commit_callbacks(execute=True):
        inbound_store(
            Inbound(
                channel="form", body_text="Хочу купить седан за 500 тыс рублей, +7 916 123-45-67",
                received_at=timezone.now(),
            )
        )  # fmt: skip
    return project


@pytest.mark.parametrize("model", OURS, ids=[m.__name__ for m in OURS])
def test_changelist_and_change_page_open(admin_client, data, model):
    meta = model._meta
    changelist = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
    assert admin_client.get(changelist).status_code == 200
    assert admin_client.get(changelist, {"q": "500"}).status_code == 200
    first = model.objects.first()
    if first is not None:
        change = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[first.pk])
        assert admin_client.get(change).status_code == 200


def test_every_model_of_ours_is_in_the_admin():
    from django.apps import apps

    apps_of_ours = ("briefing", "crm", "dlq", "webhooks", "studio")
    models = {m for app in apps_of_ours for m in apps.get_app_config(app).get_models()}
    assert models <= set(OURS)
