"""Every page under the Content-Security-Policy in a real browser: each is visited (the admin's
and the API docs included) while the conftest's watch collects violations, and the parts
that moved out of the templates for it still work."""

from __future__ import annotations

import contextlib

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from briefing.services import project_create, turn_receive
from crm.models import InboundMessage, Lead
from crm.services import Inbound, inbound_store
from dlq.models import DeadLetter

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def admin_user():
    return get_user_model().objects.create_superuser("root", password="pw")


@pytest.fixture
def pages_data(admin_user, request):
    """A briefing with a turn, a lead read from a message, and a dead-lettered turn."""
    project = project_create(title="Кофейня «Зерно»", language="ru", producer=admin_user)
    # Autocommit (a transactional test): each reading runs on commit, at once (eager Celery).
    turn_receive(project=project, text="Здравствуйте, это Анна, +7 916 123-45-67")
    message, _ = inbound_store(
        Inbound(
            channel="form", body_text="Хочу рекламу кофейни за 500 тыс рублей, +7 916 123-45-67",
            received_at=timezone.now(),
        )
    )  # fmt: skip
    # From here on the model answers prose: the next turn is dead-lettered.
    request.getfixturevalue("scripted_model").answers("I am not sure what you mean.")
    failing = project_create(title="Promo", language="ru", producer=admin_user)
    turn_receive(project=failing, text="Анна, нужен ролик")
    return {
        "project": project,
        "message": InboundMessage.objects.get(pk=message.pk),
        "lead": Lead.objects.get(),
        "dead_letter": DeadLetter.objects.get(),
    }


def log_in(page, url: str, username: str = "root", password: str = "pw"):  # noqa: S107
    page.goto(url)
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("[type=submit]")
    page.wait_for_load_state()


def visit(page, url: str) -> None:
    response = page.goto(url)
    assert response.status < 500, (url, response.status)
    assert "script-src 'self'" in response.headers["content-security-policy"], url


def admin_urls() -> list[str]:
    urls = [reverse("admin:index"), reverse("admin:password_change")]
    for model in admin.site._registry:
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        urls.append(reverse(f"{prefix}_changelist"))
        with contextlib.suppress(NoReverseMatch):  # a model the admin never adds to
            urls.append(reverse(f"{prefix}_add"))
        first = model.objects.first()
        if first is not None:
            urls.append(reverse(f"{prefix}_change", args=[first.pk]))
    return urls


def test_every_page_keeps_to_the_policy(live_server, page, pages_data):
    base = live_server.url
    project, lead = pages_data["project"], pages_data["lead"]
    log_in(page, f"{base}/login/")
    assert page.url == f"{base}/"
    for path in [
        "/", "/briefings/new/", f"/briefings/{project.pk}/", f"/c/{project.client_token}/",
        "/crm/leads/", f"/crm/leads/{lead.pk}/", "/crm/human/",
        f"/crm/messages/{pages_data['message'].pk}/", "/dlq/dead-letters/",
        "/dlq/dead-letters/?view=list", f"/dlq/dead-letters/{pages_data['dead_letter'].pk}/",
        "/dlq/quality/", "/dlq/digest/", "/api/v1/briefings/", "/api/v1/leads/",
        *admin_urls(),
    ]:  # fmt: skip
        visit(page, base + path)


def test_the_parts_moved_out_of_the_templates_still_work(live_server, page, pages_data):
    base = live_server.url
    log_in(page, f"{base}/login/")

    # The client link selects itself on a click (static/js/app.js, not onclick=).
    visit(page, f"{base}/briefings/{pages_data['project'].pk}/")
    page.click("#client-link")
    selected = page.evaluate(
        "() => { const f = document.getElementById('client-link');"
        " return [f.selectionStart, f.selectionEnd, f.value.length]; }"
    )
    assert selected[0] == 0
    assert selected[1] == selected[2] > 0

    # htmx runs without injecting its indicator style and still swaps fragments in.
    visit(page, f"{base}/")
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.evaluate("htmx.config.includeIndicatorStyles") is False
    assert page.locator("#rows .project-row").count() == 2
    page.fill("input[name=q]", "Зерно")
    page.press("input[name=q]", "Enter")
    page.wait_for_function("() => document.querySelectorAll('#rows .project-row').length === 1")
    assert "q=" in page.url

    # A dead-letter group's trend bar is as tall as the busiest day without a style= attribute.
    visit(page, f"{base}/dlq/dead-letters/")
    bar = page.locator(".trend .bar.h20").first
    trend = page.locator(".trend").first
    assert bar.bounding_box()["height"] == pytest.approx(trend.bounding_box()["height"], abs=1)

    # The parse-quality charts are drawn.
    visit(page, f"{base}/dlq/quality/")
    page.wait_for_function(
        "() => window.Chart !== undefined && document.querySelector('canvas') !== null"
        " && Chart.getChart(document.querySelector('canvas')) !== undefined"
    )


def test_the_api_docs_render_under_the_policy(live_server, page, db):
    visit(page, f"{live_server.url}/api/v1/docs/")
    page.locator(".swagger-ui .opblock").first.wait_for()
    assert page.locator(".swagger-ui .opblock").count() > 5


def test_the_lockout_page_keeps_to_the_policy(live_server, page, admin_user, settings):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    for url in (f"{live_server.url}/login/", f"{live_server.url}/admin/login/"):
        for _ in range(3):
            log_in(page, url, password="wrong")
        page.get_by_role("heading", name="Too many failed log-ins").wait_for()


def test_the_watch_sees_a_violation(live_server, page, no_csp_violations, db):
    """The conftest's watch would fail a page that breaks the policy."""
    visit(page, f"{live_server.url}/login/")
    with page.expect_console_message(lambda message: "CSP violation" in message.text):
        page.evaluate(
            "document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">inline</p>')"
        )
    assert any("style-src-attr" in violation for violation in no_csp_violations)
    no_csp_violations.clear()
