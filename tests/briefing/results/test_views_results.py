"""The results table across briefings: who sees which rows, the human column labels, the
filters, keyset pages (full page and htmx fragment) and the CSV and XLSX exports of the
filtered set."""

from __future__ import annotations

import csv
import datetime
import io

import openpyxl
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone

from briefing.models import Project
from briefing.results import views as results_views
from briefing.services import field_correct, project_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english_back_office(settings):
    """The texts asserted here are the English back office's (Russian is the default)."""
    settings.LANGUAGE_CODE = "en"


HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def briefs(producer, outsider):
    """Three briefings: the producer's completed one with a budget, the producer's one at
    its start, and another producer's."""
    done = project_create(title="Ромашка: ролик", client_name="Анна", producer=producer)
    field_correct(project=done, stage_key="budget", field="budget", value=1200000, user=producer)
    field_correct(project=done, stage_key="service", field="deliverables", value=["ролик", "тизер"])
    field_correct(project=done, stage_key="extra", field="notes", value="=HYPERLINK(1)")
    field_correct(project=done, stage_key="budget", field="deadline", value="2027-03-15")
    field_correct(project=done, stage_key="intro", field="contact",
                  value="+79161234567, anna@romashka.ru, @anna_r, +74951234567")  # fmt: skip
    brief = {key: dict(values) for key, values in done.profile.items()}
    brief["additionalRequests"] = [
        {"text": "И ещё версия для ВК.", "receivedAt": "2026-12-01T10:00:00"},
        {"text": "а субтитры?", "receivedAt": "2026-12-01T10:05:00"},
    ]
    done.stages.update(status="closed", closed_at=timezone.now())
    Project.objects.filter(pk=done.pk).update(
        status=Project.Status.COMPLETED, completed_at=timezone.now(), brief=brief
    )
    started = project_create(title="Started", producer=producer)
    other = project_create(title="Someone else's", producer=outsider)
    return done, started, other


def rows(response) -> list[int]:
    html = response.content.decode()
    return [int(part.split('"')[0]) for part in html.split('data-briefing="')[1:]]


def export(client, fmt, **query):
    return client.get(reverse("results_export", args=[fmt]), query)


def csv_rows(response) -> list[list[str]]:
    assert isinstance(response, StreamingHttpResponse)
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text.startswith("\ufeff")  # Excel reads the file as UTF-8
    return list(csv.reader(io.StringIO(text[1:])))


def test_anonymous_users_are_sent_to_the_login_page(client):
    assert client.get(reverse("results")).status_code == 302
    assert export(client, "csv").status_code == 302


def test_a_producer_sees_their_own_briefings_and_a_manager_all(client, producer, manager, briefs):
    done, started, other = briefs
    client.force_login(producer)
    assert rows(client.get(reverse("results"))) == [started.pk, done.pk]
    assert [r[0] for r in csv_rows(export(client, "csv"))[1:]] == [str(started.pk), str(done.pk)]
    client.force_login(manager)
    assert rows(client.get(reverse("results"))) == [other.pk, started.pk, done.pk]


def test_columns_have_human_labels_and_rows_show_the_fields(client, producer, briefs):
    client.force_login(producer)
    html = client.get(reverse("results")).content.decode()
    assert 'data-column="budget.budget">Budget</th>' in html
    assert 'data-column="vision.coreIdea">Core idea</th>' in html
    assert ">Additional requests</th>" in html
    assert ">coreIdea<" not in html
    assert ">clientName<" not in html
    assert "ролик; тизер" in html
    assert "1\u202f200\u202f000" in html
    assert "а субтитры?" in html


def test_labels_follow_the_back_office_language(client, producer, briefs, settings):
    settings.LANGUAGE_CODE = "ru"
    client.force_login(producer)
    html = client.get(reverse("results")).content.decode()
    assert ">Бюджет</th>" in html
    assert ">Основная идея</th>" in html
    header = csv_rows(export(client, "csv"))[0]
    assert header[:4] == ["№", "Брифинг", "Статус", "Этап"]
    assert "Дополнительные запросы" in header


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"status": "completed"}, "done"),
        ({"status": "active"}, "started"),
        ({"stage": "intro"}, "started"),
        ({"stage": "budget"}, None),
    ],
)
def test_filters_by_status_and_stage(client, manager, briefs, query, expected):
    done, started, _ = briefs
    client.force_login(manager)
    shown = rows(client.get(reverse("results"), query))
    if expected is None:
        assert shown == []
    elif expected == "done":
        assert shown == [done.pk]
    else:
        assert started.pk in shown
        assert done.pk not in shown


def test_filters_by_producer_and_start_date(client, manager, producer, outsider, briefs):
    done, started, other = briefs
    client.force_login(manager)
    assert rows(client.get(reverse("results"), {"producer": outsider.pk})) == [other.pk]
    Project.objects.filter(pk=done.pk).update(
        created_at=timezone.now() - datetime.timedelta(days=10)
    )
    today = timezone.localdate().isoformat()
    shown = rows(client.get(reverse("results"), {"started_from": today}))
    assert done.pk not in shown
    assert started.pk in shown
    earlier = (timezone.localdate() - datetime.timedelta(days=9)).isoformat()
    assert rows(client.get(reverse("results"), {"started_to": earlier})) == [done.pk]
    # The export takes the same filters.
    exported = csv_rows(export(client, "csv", started_to=earlier))
    assert [r[0] for r in exported[1:]] == [str(done.pk)]


def test_a_bad_filter_filters_nothing_and_says_why(client, manager, briefs):
    client.force_login(manager)
    response = client.get(reverse("results"), {"started_from": "yesterday"})
    assert response.status_code == 200
    assert len(rows(response)) == 3
    assert 'class="error"' in response.content.decode()


def test_pages_by_keyset_and_htmx_appends_the_next_page(client, manager, briefs, monkeypatch):
    done, started, other = briefs
    monkeypatch.setattr(results_views, "PAGE_SIZE", 2)
    client.force_login(manager)
    first = client.get(reverse("results"))
    assert rows(first) == [other.pk, started.pk]
    assert f"after={started.pk}" in first.content.decode()
    # A briefing started meanwhile does not shift the next page.
    project_create(title="Newer", producer=manager)
    fragment = client.get(reverse("results"), {"after": started.pk}, **HTMX)
    html = fragment.content.decode()
    assert rows(fragment) == [done.pk]
    assert "<table" not in html
    assert "<html" not in html
    assert "more-row" not in html  # the last page offers no more


def test_csv_export_is_streamed_with_text_that_cannot_run(client, producer, briefs):
    client.force_login(producer)
    response = export(client, "csv", status="completed")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'attachment; filename="briefs-' in response["Content-Disposition"]
    header, row = csv_rows(response)
    values = dict(zip(header, row, strict=True))
    assert values["Briefing"] == "Ромашка: ролик"
    assert values["Budget"] == "1200000"
    assert values["Deliverables"] == "ролик; тизер"
    assert values["Notes"] == "'=HYPERLINK(1)"
    assert values["Additional requests"] == "И ещё версия для ВК; а субтитры?"
    assert values["Status"] == "completed"
    # Every contact in the column of its kind, none lost (a leading + or @ would start a formula).
    assert values["Phones"] == "'+79161234567; +74951234567"
    assert values["E-mails"] == "anna@romashka.ru"
    assert values["Messengers"] == "'@anna_r"
    assert values["Websites"] == ""


def test_xlsx_export_reads_back_typed(client, producer, briefs):
    client.force_login(producer)
    response = export(client, "xlsx", status="completed")
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    sheet = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content))).active
    header, *data = [list(r) for r in sheet.iter_rows(values_only=True)]
    assert len(data) == 1
    values = dict(zip(header, data[0], strict=True))
    assert values["Budget"] == 1200000
    assert values["Briefing"] == "Ромашка: ролик"
    assert values["Notes"] == "=HYPERLINK(1)"
    notes = sheet.cell(row=2, column=header.index("Notes") + 1)
    assert notes.data_type == "s"  # a string cell, not a formula
    assert isinstance(values["Started"], datetime.datetime)
    # As a spreadsheet user expects: a deadline is a date, numbers have separators, the
    # header is frozen and filtered, columns have widths.
    assert values["Deadline"] == datetime.datetime(2027, 3, 15)
    budget = sheet.cell(row=2, column=header.index("Budget") + 1)
    assert budget.number_format == "#,##0"
    assert sheet.freeze_panes == "A2"
    assert sheet.auto_filter.ref == f"A1:{openpyxl.utils.get_column_letter(len(header))}2"
    assert all(sheet.column_dimensions[c].width >= 10 for c in ("A", "B", "C"))
    requests = next(v for v in values.values() if "ещё версия" in str(v))
    assert requests.startswith("И ещё версия для ВК; а субтитры?")


def test_an_unknown_export_format_is_a_404(client, producer):
    client.force_login(producer)
    assert export(client, "pdf").status_code == 404
