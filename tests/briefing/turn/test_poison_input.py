"""A message no budget can be read from costs what any message costs and poisons nothing:
runs of thousands of digits or letters are answered like any turn, read as no value, and the
briefing's later messages are read as usual (issue 25: 5,000 digits raised in tool use and
dead-lettered every later turn; 49,000 took the reader past the task's time limit)."""

from __future__ import annotations

import pytest

from briefing.models import Turn
from dlq.models import DeadLetter

pytestmark = pytest.mark.django_db


def stage_fields(project, key: str) -> dict:
    return project.stages.get(key=key).fields


@pytest.mark.parametrize(
    "poison",
    [
        "Our budget is " + "9" * 5000 + " rubles",
        "Бюджет " + "9" * 49_000 + " рублей",
        "Бюджет " + "а" * 49_000,
        "Бюджет " + "9" * 20_000 + "," + "9" * 20_000 + " рублей",
    ],
    ids=["5k-digits", "49k-digits", "49k-letters", "digits-comma-digits"],
)
def test_a_poison_message_is_answered_and_later_messages_are_read(project, say, poison):
    answered = say(project, poison)
    assert answered.status == Turn.Status.DONE
    assert "budget" not in stage_fields(project, "budget")
    say(project, "Бюджет 500 тысяч рублей, звоните 8 916 123-45-67")
    assert stage_fields(project, "budget")["budget"] == 500_000
    assert not DeadLetter.objects.exists()
    replies = project.turns.filter(role=Turn.Role.AGENT)
    assert replies.count() == 2


def test_a_deadline_no_person_means_is_not_read(project, say):
    say(project, "Сдать нужно к 31 декабря 9999 года, бюджет 500 тысяч рублей")
    assert "deadline" not in stage_fields(project, "budget")
    assert stage_fields(project, "budget")["budget"] == 500_000


def test_a_turn_that_raises_is_answered_once_and_does_not_hold_up_the_next(
    project, say, monkeypatch
):
    from briefing.reader import read

    real = read._read_cached

    def poisoned(text, *args, **kwargs):
        if "POISON" in text:
            raise RecursionError("a reading no code foresaw")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(read, "_read_cached", poisoned)
    failed = say(project, "POISON")
    assert failed.status == Turn.Status.FAILED
    letter = DeadLetter.objects.get(source_id=str(failed.pk))
    assert letter.errors[0]["kind"] == "processing_failed"
    assert "RecursionError: a reading no code foresaw" in letter.errors[0]["message"]
    holding = project.turns.filter(role=Turn.Role.AGENT)
    assert holding.count() == 1  # one holding reply, not one per attempt
    answered = say(project, "Бюджет 500 тысяч рублей")
    assert answered.status == Turn.Status.DONE
    assert stage_fields(project, "budget")["budget"] == 500_000
