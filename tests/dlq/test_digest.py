"""The weekly digest: its figures, the retry-share call-out, the text, the e-mail to
managers only, and the management command."""

from __future__ import annotations

from datetime import date, timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from dlq.digest import REWRITE_ADVICE, render_digest_text, weekly_digest_build, weekly_digest_send
from tests.conftest import user_in_group
from tests.dlq.test_selectors import at, make_call, make_letter

pytestmark = pytest.mark.django_db

SUNDAY = date(2025, 3, 16)
MONDAY = SUNDAY - timedelta(days=6)


@pytest.fixture
def week():
    """BriefCard: 5 calls, 2 retried (40%); LeadCard: 5 calls, 1 retried (20%, not above)."""
    for i in range(5):
        make_call(
            created_at=at(MONDAY + timedelta(days=i)),
            schema_name="BriefCard",
            provider="gigachat",
            providers=["gigachat"],
            outcome="failed" if i < 2 else "fast",
            retry_used=i < 2,
            attempts=2 if i < 2 else 1,
        )
        make_call(
            created_at=at(SUNDAY, 10 + i),
            schema_name="LeadCard",
            outcome="repaired" if i == 0 else "fast",
            retry_used=i == 0,
            attempts=2 if i == 0 else 1,
        )
    make_call(created_at=at(SUNDAY + timedelta(days=1), 0), retry_used=True, attempts=2)
    make_letter(created_at=at(MONDAY), raw_responses=["first", "old answer"])
    make_letter(created_at=at(MONDAY + timedelta(days=1)), raw_responses=["x"])
    make_letter(
        created_at=at(MONDAY + timedelta(days=2)),
        raw_responses=["first try", '{"budget_rub": "ask my wife"}'],
        errors=[{"path": "budget_rub", "kind": "int_parsing", "message": "Input should be int"}],
        status="fixed",
    )
    make_letter(
        created_at=at(MONDAY),
        error_signature="phones.0: value_error",
        errors=[{"path": "phones.0", "kind": "value_error", "message": "not a phone"}],
        raw_responses=["y" * 500],
    )
    make_letter(created_at=at(MONDAY - timedelta(days=1)), error_signature="old: missing")


def test_digest_figures_of_the_week(week):
    digest = weekly_digest_build(week_ending=SUNDAY)
    assert (digest["week_start"], digest["week_ending"]) == (MONDAY, SUNDAY)
    assert digest["total"] == 10
    assert digest["outcomes"]["fast"] == {"count": 7, "share": 0.7}
    assert digest["outcomes"]["failed"] == {"count": 2, "share": 0.2}
    assert digest["retry_share"] == 0.3
    assert digest["retry_per_schema"] == {
        "BriefCard": {"total": 5, "retry_share": 0.4},
        "LeadCard": {"total": 5, "retry_share": 0.2},
    }
    assert digest["retry_per_provider"] == {
        "gigachat": {"total": 5, "retry_share": 0.4},
        "rules": {"total": 5, "retry_share": 0.2},
    }


def test_digest_top_signatures_carry_the_newest_example(week):
    top = weekly_digest_build(week_ending=SUNDAY)["top_signatures"]
    assert [(g["error_signature"], g["count"]) for g in top] == [
        ("budget_rub: int_parsing", 3),
        ("phones.0: value_error", 1),
    ]
    assert top[0]["example"] == {
        "raw_response": '{"budget_rub": "ask my wife"}',
        "error_message": "budget_rub: Input should be int",
        "error_label": "expected a whole number",
    }
    assert len(top[1]["example"]["raw_response"]) == 200


def test_only_schemas_above_the_retry_share_threshold_are_called_out(week, settings):
    alerts = weekly_digest_build(week_ending=SUNDAY)["alerts"]
    assert alerts == [{"schema_name": "BriefCard", "retry_share": 0.4, "advice": REWRITE_ADVICE}]
    settings.DLQ_RETRY_SHARE_ALERT = 0.1
    alerts = weekly_digest_build(week_ending=SUNDAY)["alerts"]
    assert [a["schema_name"] for a in alerts] == ["BriefCard", "LeadCard"]


def test_digest_text_says_the_figures_and_the_advice(week):
    text = render_digest_text(weekly_digest_build(week_ending=SUNDAY))
    assert "Parse quality, 2025-03-10 to 2025-03-16" in text
    assert "Structured calls: 10" in text
    assert "  fast: 7 (70.0%)" in text
    assert "Retry share: 30.0%" in text
    assert "  3 × budget_rub: int_parsing" in text
    assert "    error: expected a whole number" in text
    assert "    technical detail: budget_rub: Input should be int" in text
    assert "  BriefCard: 40.0%: rewrite the prompt rather than patch it" in text
    assert "LeadCard: 20.0%: rewrite" not in text


def _user(name: str, group: str, email: str = "", is_active: bool = True):
    return user_in_group(name, group, email=email, is_active=is_active)


def test_digest_is_mailed_to_active_managers_with_an_address_only(week, mailoutbox):
    _user("ann", "Managers", "ann@example.com")
    _user("bob", "Managers", "bob@example.com")
    _user("nomail", "Managers")
    _user("gone", "Managers", "gone@example.com", is_active=False)
    _user("pat", "Producers", "pat@example.com")
    assert weekly_digest_send(week_ending=SUNDAY) == 2
    assert sorted(m.to[0] for m in mailoutbox) == ["ann@example.com", "bob@example.com"]
    assert all(len(m.to) == 1 for m in mailoutbox)
    assert mailoutbox[0].subject == "Parse quality digest, week ending 2025-03-16"
    assert "BriefCard: 40.0%: rewrite the prompt rather than patch it" in mailoutbox[0].body


def test_the_digest_is_written_in_the_back_offices_language(week, mailoutbox, settings):
    settings.LANGUAGE_CODE = "ru"
    _user("ann", "Managers", "ann@example.com")
    assert weekly_digest_send(week_ending=SUNDAY) == 1
    assert mailoutbox[0].subject == "Сводка качества разбора, неделя до 2025-03-16"
    assert "Качество разбора, 2025-03-10 — 2025-03-16" in mailoutbox[0].body
    assert "Структурированных вызовов: 10" in mailoutbox[0].body


def test_no_manager_no_mail(week, mailoutbox):
    _user("pat", "Producers", "pat@example.com")
    assert weekly_digest_send(week_ending=SUNDAY) == 0
    assert mailoutbox == []


def test_command_prints_the_digest(week, mailoutbox):
    out = StringIO()
    call_command("dlq_digest", "--week-ending", "2025-03-16", stdout=out)
    assert out.getvalue().startswith("Parse quality, 2025-03-10 to 2025-03-16\n")
    assert "Structured calls: 10" in out.getvalue()
    assert mailoutbox == []


def test_command_sends_with_send(week, mailoutbox):
    _user("ann", "Managers", "ann@example.com")
    out = StringIO()
    call_command("dlq_digest", "--week-ending", "2025-03-16", "--send", stdout=out)
    assert out.getvalue() == "sent to 1 manager(s)\n"
    assert [m.to for m in mailoutbox] == [["ann@example.com"]]


def test_command_rejects_a_bad_date():
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        call_command("dlq_digest", "--week-ending", "16.03.2025")


def test_the_weekly_task_mails_last_weeks_digest_to_managers(mailoutbox, settings):
    from dlq.tasks import weekly_digest

    user_in_group("boss", "Managers", email="boss@example.com")
    get_user_model().objects.create_user("prod", email="prod@example.com")
    assert weekly_digest.apply().get() == 1
    assert [m.to for m in mailoutbox] == [["boss@example.com"]]
