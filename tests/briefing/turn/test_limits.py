"""The client chat's rate notation and the check that refuses a mistyped one at start-up."""

from __future__ import annotations

import pytest

from briefing.turn.limits import Rate, rates_check


@pytest.mark.parametrize(
    ("text", "count", "period_s"),
    [
        ("10/min", 10, 60),
        ("120/hour", 120, 3600),
        ("5/10s", 5, 10),
        (" 3 / day ", 3, 86400),
        ("300/hours", 300, 3600),
    ],
)
def test_a_rate_reads_as_count_per_period(text, count, period_s):
    rate = Rate.parse(text)
    assert (rate.count, rate.period_s) == (count, period_s)


@pytest.mark.parametrize(
    "text", ["10", "10/fortnight", "10/ms", "10/hrs", "ten/min", "10/0min", "/min", ""]
)
def test_a_malformed_rate_is_refused(text):
    with pytest.raises(ValueError, match="is not a rate"):
        Rate.parse(text)


def test_the_system_check_names_a_mistyped_setting(settings):
    assert rates_check() == []
    settings.CLIENT_CHAT_RATE_PER_IP = ["30/min", "300/hr"]
    errors = rates_check()
    assert [e.id for e in errors] == ["briefing.E001"]
    assert "CLIENT_CHAT_RATE_PER_IP" in errors[0].msg
