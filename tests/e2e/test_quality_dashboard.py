"""A manager in a real browser opens the parse-quality dashboard, sees Chart.js draw it, and
narrows it to one provider: the figures are swapped in by htmx and drawn again, and again
after going back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.conftest import user_in_group
from tests.dlq.test_selectors import at, make_call

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CHARTS = [
    "outcomes-per-day",
    "outcomes-per-schema",
    "outcomes-per-provider",
    "tokens-per-day",
    "cacheable-per-day",
    "latency-per-day",
    "failovers-per-day",
]
# True once every canvas of the page holds a Chart.js chart.
ALL_DRAWN = """keys => window.Chart !== undefined && keys.every(key => {
    const canvas = document.getElementById("chart-" + key);
    return canvas !== null && Chart.getChart(canvas) !== undefined;
})"""


def test_a_manager_reads_the_charts_and_narrows_them_to_one_provider(live_server, page):
    user_in_group("boss", "Managers")
    today = timezone.localdate()
    for hours, outcome, provider in [
        (9, "fast", "rules"),
        (10, "repaired", "rules"),
        (11, "failed", "gigachat"),
        (12, "fast", "gigachat"),
    ]:
        make_call(
            created_at=at(today - timedelta(days=1), hours),
            outcome=outcome,
            provider=provider,
            providers=[provider],
            latency_ms=100 * hours,
        )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "boss")
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    page.get_by_role("link", name="Parse quality").click()
    page.wait_for_url(f"{live_server.url}/dlq/quality/")

    page.wait_for_function(ALL_DRAWN, arg=CHARTS)
    assert page.locator("#figure-total").inner_text() == "4"
    assert page.evaluate(
        "Chart.getChart(document.getElementById('chart-outcomes-per-provider')).data.labels"
    ) == ["gigachat", "rules"]
    # Drawn, the tables fold away (they are open for whoever has no JavaScript).
    assert page.locator("details.chart-table[open]").count() == 0
    page.evaluate("document.getElementById('chart-outcomes-per-provider').dataset.before = '1'")

    page.select_option("select[name=provider]", "gigachat")
    page.wait_for_url("**/dlq/quality/?*provider=gigachat*")
    page.wait_for_function(
        """() => {
            const canvas = document.getElementById("chart-outcomes-per-provider");
            const chart = canvas && !canvas.dataset.before && Chart.getChart(canvas);
            return Boolean(chart) && chart.data.labels.join() === "gigachat";
        }"""
    )
    page.wait_for_function(ALL_DRAWN, arg=CHARTS)
    assert page.locator("#figure-total").inner_text() == "2"
    assert page.locator("#figure-dead_lettered_share").inner_text() == "50.0%"
    # Still one page: the form was not reloaded, only the figures were swapped.
    assert page.locator("select[name=provider]").input_value() == "gigachat"
    assert page.locator("#quality-figures").count() == 1

    # Back to every provider: htmx restores the page from its history and it is drawn again.
    page.go_back()
    page.wait_for_function("() => !location.search.includes('provider=gigachat')")
    page.wait_for_function(ALL_DRAWN, arg=CHARTS)
    assert page.evaluate(
        "Chart.getChart(document.getElementById('chart-outcomes-per-provider')).data.labels"
    ) == ["gigachat", "rules"]
    assert errors == []
