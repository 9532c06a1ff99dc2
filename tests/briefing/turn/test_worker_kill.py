"""Exactly-once turn processing with a real Redis broker and real worker processes, including
a worker killed (SIGKILL) in the middle of a turn."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from celery import current_app

from briefing.models import Turn
from briefing.services import project_create, turn_append
from briefing.tasks import project_drain
from dlq.models import StructuredCall
from tests.conftest import celery_worker, wait_for
from tests.llmkit.wire_servers import JsonReply, SlowReply, WireServer, openai_completion

ANSWER = {"message": "Как вас зовут?", "introStatus": False}


def _worker(redis_url: str, server: WireServer, log: Path) -> subprocess.Popen:
    return celery_worker(
        redis_url, "--pool=solo", "--loglevel=INFO", stdout=log.open("ab"),
        # A short budget makes a short lease (9 s): the second worker takes over soon.
        CELERY_VISIBILITY_TIMEOUT_S="4", LLM_CALL_BUDGET_S="8", LLM_LEASE_MARGIN_S="1",
        LLM_PROVIDERS="openai",
        OPENAI_BASE_URL=server.url("/v1"), OPENAI_MODEL="scripted",
    )  # fmt: skip


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_turn_survives_a_worker_killed_mid_turn(postgres, redis_url, eager_off, tmp_path):
    project = project_create(title="Kill test", language="ru")
    turn = turn_append(project=project, role="client", text="Здравствуйте!", stage_key="intro",
                       status=Turn.Status.RECEIVED)  # fmt: skip
    log = tmp_path / "worker.log"
    with WireServer() as server:
        path = "/v1/chat/completions"
        # The first model call hangs (the worker is killed while it waits); later ones answer.
        server.route(path, SlowReply(60), JsonReply(openai_completion(json.dumps(ANSWER))))
        first = _worker(redis_url, server, log)
        try:
            with current_app.connection_for_write(redis_url) as conn:
                project_drain.apply_async(args=[project.pk], connection=conn)
            assert server.wait_until(lambda: len(server.requests_to(path)) >= 1, timeout=60), (
                log.read_text(errors="replace")[-3000:]
            )
            turn.refresh_from_db()
            assert turn.status == Turn.Status.PROCESSING
            os.kill(first.pid, signal.SIGKILL)
            first.wait(timeout=10)
        finally:
            if first.poll() is None:
                first.kill()
        assert not turn.replies.exists()

        second = _worker(redis_url, server, log)
        try:

            def answered() -> bool:
                turn.refresh_from_db()
                return turn.status == Turn.Status.DONE

            assert wait_for(answered, 60), log.read_text(errors="replace")[-3000:]
            # Give the redelivered original message time to arrive and find nothing to do.
            time.sleep(6)
        finally:
            second.terminate()
            second.wait(timeout=20)
    assert turn.replies.count() == 1
    assert turn.replies.get().text == ANSWER["message"]
    assert StructuredCall.objects.filter(source_id=str(turn.pk)).count() == 1
    assert project.turns.filter(role="agent").count() == 1
