"""The results table in a real browser: a producer filters it, pages through it with htmx,
downloads the CSV and the XLSX of the filtered set and both read back with its rows."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from django.utils import timezone

from briefing.models import Project
from briefing.results import views as results_views
from briefing.services import field_correct, project_create
from tests.conftest import user_in_group

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def log_in(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "prod")
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def completed(title: str, producer, budget: int) -> Project:
    project = project_create(title=title, client_name="Анна", producer=producer)
    field_correct(project=project, stage_key="budget", field="budget", value=budget)
    project.refresh_from_db()
    Project.objects.filter(pk=project.pk).update(
        status=Project.Status.COMPLETED, completed_at=timezone.now(), brief=project.profile
    )
    return project


def test_filter_page_and_export_the_results(live_server, page, producer, monkeypatch):
    monkeypatch.setattr(results_views, "PAGE_SIZE", 2)
    done = [completed(f"Бриф {n}", producer, 100000 * n) for n in (1, 2, 3)]
    project_create(title="Ещё идёт", producer=producer)
    someone_else = project_create(title="Чужой", producer=user_in_group("other", "Producers"))
    log_in(page, live_server)

    page.get_by_role("link", name="Results").click()
    page.wait_for_url("**/results/")
    assert page.locator("tr.result-row").count() == 2
    assert page.locator("th", has_text="Budget").count() >= 1

    page.select_option("select[name=status]", "completed")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**status=completed**")
    assert page.locator("tr.result-row").count() == 2
    # htmx appends the next page under the rows already shown, without a reload.
    url = page.url
    page.locator("tr.more-row a").click()
    page.locator("tr.result-row").nth(2).wait_for()
    assert page.url == url
    shown = page.locator("tr.result-row").evaluate_all(
        "rows => rows.map(row => Number(row.dataset.briefing))"
    )
    assert shown == [p.pk for p in reversed(done)]
    assert someone_else.pk not in shown
    assert page.locator("tr.more-row").count() == 0

    with page.expect_download() as waiting:
        page.locator("#export-csv").click()
    with open(waiting.value.path(), encoding="utf-8-sig") as file:
        text = file.read()
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header[1] == "Briefing"
    assert [row[1] for row in rows] == ["Бриф 3", "Бриф 2", "Бриф 1"]
    assert [row[header.index("Budget")] for row in rows] == ["300000", "200000", "100000"]

    with page.expect_download() as waiting:
        page.locator("#export-xlsx").click()
    assert waiting.value.suggested_filename.endswith(".xlsx")
    with open(waiting.value.path(), "rb") as file:
        sheet = openpyxl.load_workbook(io.BytesIO(file.read())).active
    header, *rows = list(sheet.iter_rows(values_only=True))
    assert [row[1] for row in rows] == ["Бриф 3", "Бриф 2", "Бриф 1"]
    assert [row[header.index("Budget")] for row in rows] == [300000, 200000, 100000]
    assert all(row[header.index("Status")] == "completed" for row in rows)
