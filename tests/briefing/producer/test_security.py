"""Security that must hold: CSRF on every state change (htmx included), client text and
model output shown as text, a client link opening one chat only, a clean deploy check."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from briefing.models import Turn
from briefing.services import turn_append

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]

HOSTILE = [
    "<script>alert('x')</script>",
    '<img src=x onerror="alert(1)">',
    '<a href="javascript:alert(1)">click</a>',
]


@pytest.fixture
def producer_client(producer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(producer)
    return client


def _csrf(client: Client, url: str) -> str:
    client.get(url)
    return client.cookies["csrftoken"].value


def test_producer_actions_need_the_csrf_token(producer_client, project):
    url = f"/briefings/{project.pk}/action/"
    data = {"action": "takeover"}
    assert producer_client.post(url, data).status_code == 403
    assert producer_client.post(url, data, headers={"HX-Request": "true"}).status_code == 403
    project.refresh_from_db()
    assert project.taken_over_by is None
    token = _csrf(producer_client, f"/briefings/{project.pk}/")
    headers = {"HX-Request": "true", "X-CSRFToken": token}
    assert producer_client.post(url, data, headers=headers).status_code == 200
    project.refresh_from_db()
    assert project.taken_over_by is not None


def test_the_client_chat_needs_the_csrf_token(project):
    client = Client(enforce_csrf_checks=True)
    url = f"/c/{project.client_token}/"
    assert client.post(url, {"text": "Привет"}).status_code == 403
    assert not project.turns.exists()
    token = _csrf(client, url)
    response = client.post(url, {"text": "Привет"}, headers={"X-CSRFToken": token})
    assert response.status_code == 302
    assert project.turns.filter(role=Turn.Role.CLIENT).count() == 1


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_client_text_and_model_output_are_shown_as_text(client, producer, project, hostile):
    turn_append(project=project, role=Turn.Role.CLIENT, text=f"client {hostile}")
    turn_append(project=project, role=Turn.Role.AGENT, text=f"model {hostile}")
    client.force_login(producer)
    pages = [
        client.get(f"/c/{project.client_token}/").content.decode(),
        client.get(f"/briefings/{project.pk}/").content.decode(),
    ]
    for body in pages:
        assert hostile not in body
        assert "<script>alert" not in body
        assert 'onerror="alert' not in body
        assert 'href="javascript:' not in body


def test_a_client_link_opens_one_chat_and_nothing_else(client, project, producer):
    from briefing.services import project_create

    other = project_create(title="Other", language="ru", producer=producer)
    turn_append(project=other, role=Turn.Role.CLIENT, text="secret of the other project")
    body = client.get(f"/c/{project.client_token}/").content.decode()
    assert "secret of the other project" not in body
    # The link is no key to anything else: the producer pages still want a login.
    assert client.get(f"/briefings/{project.pk}/").status_code == 302
    assert client.get("/").status_code == 302


def test_the_deploy_check_is_clean_with_debug_off(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(60),
        "VAR_DIR": str(tmp_path),
        "ALLOWED_HOSTS": "brief.example.com",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout
