"""Replay: a dead-lettered turn runs again through today's prompts and providers, on a Celery
worker; the outcome is applied through the gate, or becomes a new dead letter linked to the
old one. Nothing happens twice, and every action is in the letter's audit trail."""

from __future__ import annotations

import pytest
from django.urls import reverse

from briefing.models import BriefingEvent, StageRun, Turn
from briefing.services import stage_force_close
from core.errors import ApplicationError
from dlq.models import DeadLetter, DeadLetterAction
from dlq.services import (
    dead_letter_discard,
    dead_letter_replay_request,
    dead_letter_replay_run,
    dead_letters_replay_group,
)
from tests.briefing.conftest import FIXED_INTRO

pytestmark = pytest.mark.django_db

NEXT_QUESTION = {"message": "Как называется продукт?", "visionStatus": False}
Kind = DeadLetterAction.Kind


@pytest.fixture
def replay(django_capture_on_commit_callbacks, manager):
    """Ask for a replay as the manager and let the queued task run (eager Celery)."""

    def run(letter):
        with django_capture_on_commit_callbacks(execute=True):
            dead_letter_replay_request(dead_letter=letter, user=manager)
        letter.refresh_from_db()
        return letter

    return run


def _kinds(letter):
    return list(letter.actions.values_list("kind", flat=True))


def test_a_replay_that_parses_is_applied_through_the_gate(
    project, dead_lettered_turn, scripted_model, replay, manager
):
    turn, letter = dead_lettered_turn
    scripted_model.answers(FIXED_INTRO)
    letter = replay(letter)
    turn.refresh_from_db()
    assert letter.status == DeadLetter.Status.REPLAYED
    assert (letter.resolved_by, letter.replay_requested_at) == (manager, None)
    assert _kinds(letter) == [Kind.REPLAY_REQUESTED, Kind.REPLAYED]
    replayed = letter.actions.get(kind=Kind.REPLAYED)
    assert (replayed.data["applied"], replayed.data["new_dead_letter"]) == (True, None)
    assert turn.status == Turn.Status.DONE
    assert StageRun.objects.get(project=project, key="intro").fields["clientName"] == "Анна"
    assert StageRun.objects.get(project=project, key="vision").status == "open"
    # The holding reply of the first failure, then the one real answer: the next stage's
    # question, written by code.
    assert "Как называется продукт" in [t.text for t in turn.replies.order_by("seq")][-1]
    assert turn.replies.count() == 2
    # The replay's call is recorded like any call, under the same turn.
    assert replayed.data["call"] != letter.call_id


def test_a_replay_that_fails_again_is_a_new_letter_linked_to_the_old_one(
    project, dead_lettered_turn, scripted_model, replay
):
    turn, letter = dead_lettered_turn
    scripted_model.answers("Still no JSON, sorry.")
    letter = replay(letter)
    turn.refresh_from_db()
    new_letter = DeadLetter.objects.get(replay_of=letter)
    assert letter.status == DeadLetter.Status.REPLAYED
    assert new_letter.status == DeadLetter.Status.OPEN
    assert new_letter.source_id == str(turn.pk)
    assert letter.actions.get(kind=Kind.REPLAYED).data["new_dead_letter"] == new_letter.pk
    assert turn.status == Turn.Status.FAILED
    # The client already has the holding reply: no second one.
    assert turn.replies.count() == 1
    kinds = list(project.events.values_list("kind", flat=True))
    assert kinds.count(BriefingEvent.Kind.DEAD_LETTERED) == 2
    assert kinds.count(BriefingEvent.Kind.HOLDING_REPLY_SENT) == 1
    # The new letter can itself be replayed and then applies.
    scripted_model.answers(FIXED_INTRO, NEXT_QUESTION)
    assert replay(new_letter).status == DeadLetter.Status.REPLAYED
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE


def test_replaying_twice_has_one_effect(
    project, dead_lettered_turn, scripted_model, replay, manager
):
    turn, letter = dead_lettered_turn
    scripted_model.answers(FIXED_INTRO, NEXT_QUESTION)
    replay(letter)
    with pytest.raises(ApplicationError, match="only an open dead letter"):
        replay(letter)
    # The task delivered a second time (a broker redelivery) does nothing either.
    requests_before = len(scripted_model.requests)
    assert dead_letter_replay_run(dead_letter_id=letter.pk, user_id=manager.pk).status == (
        DeadLetter.Status.REPLAYED
    )
    assert len(scripted_model.requests) == requests_before
    assert turn.replies.count() == 2
    assert _kinds(letter) == [Kind.REPLAY_REQUESTED, Kind.REPLAYED]


def test_no_action_while_a_replay_is_running(dead_lettered_turn, manager):
    _, letter = dead_lettered_turn
    dead_letter_replay_request(dead_letter=letter, user=manager)  # queued, not run
    with pytest.raises(ApplicationError, match="replay of this dead letter is running"):
        dead_letter_replay_request(dead_letter=letter, user=manager)
    with pytest.raises(ApplicationError, match="running"):
        dead_letter_discard(dead_letter=letter, user=manager, reason="noise")


def test_a_replay_after_the_conversation_moved_on_is_refused_and_audited(
    project, producer, dead_lettered_turn, scripted_model, replay
):
    turn, letter = dead_lettered_turn
    stage_force_close(project=project, stage_key="intro", user=producer, reason="by phone")
    requests_before = len(scripted_model.requests)
    letter = replay(letter)
    assert letter.status == DeadLetter.Status.OPEN
    assert letter.replay_requested_at is None  # it may be discarded now
    refused = letter.actions.get(kind=Kind.REPLAY_REFUSED)
    assert "conversation moved on" in refused.note
    assert len(scripted_model.requests) == requests_before
    turn.refresh_from_db()
    assert turn.status == Turn.Status.FAILED


def test_a_whole_signature_group_is_replayed(
    producer, say, scripted_model, manager, django_capture_on_commit_callbacks
):
    from briefing.services import project_create

    scripted_model.answers("I am not sure what you mean.")
    turns = [
        say(project_create(title=f"P{i}", language="ru", producer=producer), "Анна, ролик")
        for i in range(3)
    ]
    letters = DeadLetter.objects.filter(source_id__in=[str(t.pk) for t in turns])
    signature = letters[0].error_signature
    assert set(letters.values_list("error_signature", flat=True)) == {signature}
    discarded = letters.order_by("id").last()
    dead_letter_discard(dead_letter=discarded, user=manager, reason="test client")
    scripted_model.answers(FIXED_INTRO, NEXT_QUESTION, FIXED_INTRO, NEXT_QUESTION)
    with django_capture_on_commit_callbacks(execute=True):
        queued, skipped = dead_letters_replay_group(signature=signature, user=manager)
    assert (queued, skipped) == (2, {})
    statuses = dict(letters.values_list("pk", "status"))
    assert sorted(statuses.values()) == ["discarded", "replayed", "replayed"]
    done = Turn.objects.filter(pk__in=[t.pk for t in turns], status=Turn.Status.DONE).count()
    assert done == 2


# --- pages ------------------------------------------------------------------------------------


def test_the_replay_button_queues_and_the_status_part_shows_the_outcome(
    manager_client, dead_lettered_turn, scripted_model, django_capture_on_commit_callbacks
):
    _, letter = dead_lettered_turn
    detail = reverse("dlq:dead_letter_detail", args=[letter.pk])
    assert reverse("dlq:dead_letter_replay", args=[letter.pk]) in (
        manager_client.get(detail).content.decode()
    )
    scripted_model.answers("Still no JSON.")
    with django_capture_on_commit_callbacks(execute=True):
        response = manager_client.post(
            reverse("dlq:dead_letter_replay", args=[letter.pk]), headers={"HX-Request": "true"}
        )
        # The answer leaves before the worker runs: the part says so and polls.
        queued = response.content.decode()
        assert response.status_code == 200
        assert "<html" not in queued
        assert "replay running" in queued
    html = manager_client.get(detail, headers={"HX-Request": "true"}).content.decode()
    new_letter = DeadLetter.objects.get(replay_of=letter)
    assert "<html" not in html
    assert 'id="dead-letter-status"' in html
    assert 'hx-trigger="every 2s"' not in html  # settled: the poll stops
    assert f'href="{reverse("dlq:dead_letter_detail", args=[new_letter.pk])}"' in html
    assert "replay requested" in html
    assert "failed again" in html
    # The new letter's page points back to the one it replays.
    new_page = manager_client.get(reverse("dlq:dead_letter_detail", args=[new_letter.pk]))
    assert f'href="{detail}"' in new_page.content.decode()


def test_a_running_replay_is_polled_by_the_status_part(manager_client, dead_lettered_turn):
    _, letter = dead_lettered_turn
    response = manager_client.post(reverse("dlq:dead_letter_replay", args=[letter.pk]))
    assert response.status_code == 302  # without htmx: back to the page
    detail = reverse("dlq:dead_letter_detail", args=[letter.pk])
    page = manager_client.get(detail).content.decode()
    assert 'hx-trigger="every 2s"' in page
    assert "replay running" in page
    part = manager_client.get(detail, headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in part
    assert 'hx-trigger="every 2s"' in part
    again = manager_client.post(
        reverse("dlq:dead_letter_replay", args=[letter.pk]), headers={"HX-Request": "true"}
    )
    assert again.status_code == 400
    assert "running" in again.content.decode()


def test_the_fix_editor_checks_as_you_type(manager_client, dead_lettered_turn):
    import json

    _, letter = dead_lettered_turn
    url = reverse("dlq:dead_letter_fix_check", args=[letter.pk])
    bad = manager_client.post(url, {"data": json.dumps({**FIXED_INTRO, "introStatus": "maybe"})})
    assert "<code>introStatus</code>" in bad.content.decode()
    good = manager_client.post(url, {"data": json.dumps(FIXED_INTRO)}).content.decode()
    assert 'id="fix-errors"' in good
    assert "<li>" not in good
    letter.refresh_from_db()
    assert letter.status == DeadLetter.Status.OPEN  # checking changes nothing


def test_the_group_replay_button_full_page_and_fragment(
    manager_client, dead_lettered_turn, scripted_model, django_capture_on_commit_callbacks
):
    _, letter = dead_lettered_turn
    groups = manager_client.get(reverse("dlq:dead_letters")).content.decode()
    assert reverse("dlq:dead_letters_replay_group") in groups
    url = reverse("dlq:dead_letters_replay_group")
    scripted_model.answers(FIXED_INTRO, NEXT_QUESTION)
    with django_capture_on_commit_callbacks(execute=True):
        part = manager_client.post(
            url, {"signature": letter.error_signature}, headers={"HX-Request": "true"}
        )
    assert "<html" not in part.content.decode()
    assert "1 replay queued" in part.content.decode()
    full = manager_client.post(url, {"signature": letter.error_signature}, follow=True)
    assert "0 replays queued" in full.content.decode()  # the only letter is settled already
    assert manager_client.post(url, {"signature": ""}).status_code == 400


@pytest.mark.parametrize("who", ["producer", "anonymous"])
def test_replay_is_for_managers_only(client, who, dead_lettered_turn, producer):
    _, letter = dead_lettered_turn
    if who == "producer":
        client.force_login(producer)
    for url in [
        reverse("dlq:dead_letter_replay", args=[letter.pk]),
        reverse("dlq:dead_letter_fix_check", args=[letter.pk]),
        reverse("dlq:dead_letters_replay_group"),
    ]:
        response = client.post(url, {"signature": letter.error_signature, "data": "{}"})
        assert response.status_code == (403 if who == "producer" else 302), url
    letter.refresh_from_db()
    assert (letter.status, letter.replay_requested_at) == ("open", None)
    assert not letter.actions.exists()


def test_discard_and_fix_are_audited(dead_lettered_turn, manager, scripted_model):
    from dlq.services import dead_letter_fix_apply

    _, letter = dead_lettered_turn
    scripted_model.answers(NEXT_QUESTION)
    dead_letter_fix_apply(dead_letter=letter, data=FIXED_INTRO, user=manager)
    fixed = letter.actions.get()
    assert (fixed.kind, fixed.user) == (Kind.FIXED, manager)
    assert '"clientName": "Анна"' in fixed.note


def test_a_replay_lost_with_its_worker_stops_blocking_the_page(
    manager_client, dead_lettered_turn, settings
):
    from datetime import timedelta

    from django.utils import timezone

    _, letter = dead_lettered_turn
    lost = timezone.now() - timedelta(seconds=settings.BRIEFING_TURN_LEASE_S * 2 + 1)
    DeadLetter.objects.filter(pk=letter.pk).update(replay_requested_at=lost)
    page = manager_client.get(reverse("dlq:dead_letter_detail", args=[letter.pk]))
    html = page.content.decode()
    assert 'hx-trigger="every 2s"' not in html
    assert reverse("dlq:dead_letter_replay", args=[letter.pk]) in html
