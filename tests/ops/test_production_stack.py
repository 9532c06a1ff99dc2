"""The production stack for real: scripts/serve starts gunicorn (2 processes), a Celery
worker (2 processes) and the beat with DEBUG off on PostgreSQL and Redis; a briefing is
played over HTTP as a browser would, /readyz and /metrics answer, the request id reaches the
worker's log, and SIGTERM stops every process. One of the worker's processes killed in the
middle of a turn leaves that turn answered exactly once."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from briefing.models import Turn
from briefing.services import project_create
from dlq.models import StructuredCall
from tests.conftest import ROOT, wait_for
from tests.llmkit.wire_servers import JsonReply, SlowReply, WireServer, openai_completion

METRICS_TOKEN = "stack-test-metrics-token"
ADMIN_PASSWORD = "stack-test-admin-pw"
REQUEST_ID = "stack-test-request-0001"
CLIENT_TEXT = "Здравствуйте, нужен ролик для выставки, Анна Зебрина"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _descendants(pid: int) -> set[int]:
    """Every process below `pid` (read from /proc: scripts/serve puts each in a session of
    its own, so a process group does not hold them)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        alive.add(pid)
    return alive


def _holding_connection_to(port: int, pids: set[int]) -> set[int]:
    """The processes among `pids` with a TCP connection open to 127.0.0.1:`port`."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote_port = int(fields[2].split(":")[1], 16)
        if remote_port == port and fields[3] == "01":  # ESTABLISHED
            inodes.add(f"socket:[{fields[9]}]")
    holders = set()
    for pid in pids:
        try:
            links = {os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()}
        except OSError:
            continue  # ended meanwhile
        if links & inodes:
            holders.add(pid)
    return holders


@contextmanager
def _serving(settings, tmp_path: Path, **environ: str) -> Iterator[tuple]:
    """scripts/serve on the test database and Redis (`environ` adds to its environment) until
    the block ends, then every process it started is stopped."""
    db = settings.DATABASES["default"]
    port = _free_port()
    env = {
        **os.environ,
        "DEBUG": "false",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "stack-test-secret-key",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "VAR_DIR": str(tmp_path / "var"),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
        "CELERY_WORKER_CONCURRENCY": "2",
        "METRICS_TOKEN": METRICS_TOKEN,
        "ADMIN_PASSWORD": ADMIN_PASSWORD,
        "LLM_PROVIDERS": "rules",
        # Plain HTTP on the loopback: no TLS redirect, cookies without the Secure flag.
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "LOG_FORMAT": "json",
        **environ,
    }
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log:
        serve = subprocess.Popen(
            [str(ROOT / "scripts" / "serve")], cwd=ROOT, env=env, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    processes: set[int] = set()
    try:

        def ready() -> bool:
            processes.update(_descendants(serve.pid))
            if serve.poll() is not None:
                return True  # ended: the assertion below says so
            try:
                return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        assert wait_for(ready, 120), f"not ready in 120 s:\n{log_path.read_text()[-4000:]}"
        assert serve.poll() is None, f"scripts/serve ended:\n{log_path.read_text()[-4000:]}"
        yield base, serve, log_path, processes
    finally:
        processes.update(_descendants(serve.pid))
        if serve.poll() is None:
            serve.send_signal(signal.SIGTERM)
            try:
                serve.wait(timeout=45)
            except subprocess.TimeoutExpired:
                serve.kill()
        for pid in _alive(processes):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def stack(postgres, redis_url, tmp_path, settings):
    with _serving(settings, tmp_path, CELERY_BROKER_URL=redis_url) as running:
        yield running


def _form_fields(html: str) -> dict[str, str]:
    fields = {}
    for name in ("csrfmiddlewaretoken", "idempotency_key"):
        match = re.search(rf'name="{name}" value="([^"]+)"', html)
        if match:
            fields[name] = match.group(1)
    return fields


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_production_stack_plays_a_briefing_and_reports_ready(stack, producer):
    base, serve, log_path, processes = stack

    # The probes: no login, JSON, every check named.
    health = httpx.get(f"{base}/healthz", timeout=5)
    assert health.status_code == 200
    assert health.json() == {"status": "ok"}
    ready = httpx.get(f"{base}/readyz", timeout=5, headers={"Host": "10.1.2.3"}).json()
    assert ready["status"] == "ok"
    assert set(ready["checks"]) == {"database", "migrations", "broker", "worker", "beat"}
    assert ready["checks"]["broker"]["transport"] == "redis"
    assert ready["checks"]["worker"]["live"] >= 1

    # The login page over DEBUG off: the CSP header, a hashed, compressed, far-cached CSS.
    browser = httpx.Client(base_url=base, timeout=10, follow_redirects=True)
    login_page = browser.get("/login/")
    assert login_page.status_code == 200
    assert "script-src 'self'" in login_page.headers["Content-Security-Policy"]
    css = re.search(r'href="(/static/[^"]+\.[0-9a-f]{12}\.css)"', login_page.text)
    assert css, "no hashed stylesheet on the login page"
    static = browser.get(css.group(1), headers={"Accept-Encoding": "gzip"})
    assert static.status_code == 200
    assert static.headers["Content-Encoding"] == "gzip"
    assert "immutable" in static.headers["Cache-Control"]
    assert int(re.search(r"max-age=(\d+)", static.headers["Cache-Control"]).group(1)) >= 31536000

    # A producer (the admin scripts/serve created) logs in and opens a new briefing's page.
    credentials = {"username": "admin", "password": ADMIN_PASSWORD}
    logged_in = browser.post("/login/", data={**credentials, **_form_fields(login_page.text)})
    assert logged_in.status_code == 200
    assert "/login/" not in str(logged_in.url)
    project = project_create(title="Stack test", language="ru", producer=producer)
    assert browser.get(f"/briefings/{project.pk}/").status_code == 200

    # The client's chat: the page, a message with the proxy's request id, the answer.
    client = httpx.Client(base_url=base, timeout=10)
    chat_url = f"/c/{project.client_token}/"
    page = client.get(chat_url)
    assert page.status_code == 200
    sent = client.post(chat_url, data={"text": CLIENT_TEXT, **_form_fields(page.text)},
                       headers={"X-Request-ID": REQUEST_ID})  # fmt: skip
    assert sent.status_code == 302, sent.text[-500:]
    assert sent.headers["X-Request-ID"] == REQUEST_ID
    turn = Turn.objects.get(project=project, role=Turn.Role.CLIENT)

    def answered() -> bool:
        turn.refresh_from_db()
        return turn.status != Turn.Status.RECEIVED and turn.status != Turn.Status.PROCESSING

    assert wait_for(answered, 60), f"the turn was not answered:\n{log_path.read_text()[-3000:]}"
    assert turn.status == Turn.Status.DONE
    replies = Turn.objects.filter(reply_to=turn, role=Turn.Role.AGENT)
    assert replies.count() == 1
    reply_start = replies.get().text[:30]
    assert reply_start
    assert reply_start in client.get(chat_url).text.replace("&#x27;", "'")

    # /metrics: closed without the token, Prometheus' text format with it.
    assert httpx.get(f"{base}/metrics", timeout=5).status_code == 401
    exposition = httpx.get(
        f"{base}/metrics", timeout=10, headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    assert exposition.status_code == 200
    samples = {}
    for family in text_string_to_metric_families(exposition.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    assert samples[("briefing_turns_processed_total", (("status", "done"),))] == 1
    assert samples[("briefing_turn_latency_seconds_count", ())] == 1
    assert samples[("briefing_turns_waiting", ())] == 0
    rules_calls = [v for (name, labels), v in samples.items()
                   if name == "llm_calls_total" and ("provider", "rules") in labels]  # fmt: skip
    assert sum(rules_calls) >= 1
    assert samples[("llm_rules_agent_share", ())] == 1.0
    assert ("celery_queue_depth", (("queue", "celery"),)) in samples

    # SIGTERM stops every process scripts/serve started.
    processes.update(_descendants(serve.pid))
    assert len(processes) >= 7  # 3 launchers' execs: gunicorn + 2, worker + 2, beat
    serve.send_signal(signal.SIGTERM)
    serve.wait(timeout=45)
    assert wait_for(lambda: not _alive(processes), 15), f"left running: {_alive(processes)}"

    # The worker logged the turn under the request id it came with; nothing the client wrote
    # reached the log.
    output = log_path.read_text()
    assert CLIENT_TEXT not in output
    assert "Зебрина" not in output
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    worker_lines = [r for r in records if r.get("request_id") == REQUEST_ID
                    and r["logger"].startswith("celery")]  # fmt: skip
    assert worker_lines, "no worker log line carries the request id"
    assert any(r.get("briefing_id") == str(project.pk) for r in worker_lines)
    access = [r for r in records if r["logger"] == "briefing.access"
              and r.get("request_id") == REQUEST_ID]  # fmt: skip
    assert access
    assert access[0]["view"] == "client_chat"
    assert access[0]["status"] == 302


ANSWER = {"message": "Как вас зовут?", "introStatus": False}


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_worker_process_killed_mid_turn_leaves_the_turn_answered_once(
    postgres, redis_url, tmp_path, settings
):
    path = "/v1/chat/completions"
    with WireServer() as model:
        # The first model call hangs (its worker process is killed while it waits); the next
        # one answers.
        model.route(path, SlowReply(60), JsonReply(openai_completion(json.dumps(ANSWER))))
        with _serving(
            settings, tmp_path, CELERY_BROKER_URL=redis_url, LLM_PROVIDERS="openai",
            OPENAI_BASE_URL=model.url("/v1"), OPENAI_MODEL="scripted",
            # A short budget makes a short claim (9 s): the turn is taken over soon.
            LLM_CALL_BUDGET_S="8", LLM_LEASE_MARGIN_S="1", CELERY_VISIBILITY_TIMEOUT_S="4",
        ) as (base, serve, log_path, _processes):  # fmt: skip
            project = project_create(title="Kill test", language="ru")
            client = httpx.Client(base_url=base, timeout=10)
            chat_url = f"/c/{project.client_token}/"
            page = client.get(chat_url)
            sent = client.post(chat_url, data={"text": "Здравствуйте!", **_form_fields(page.text)})
            assert sent.status_code == 302, sent.text[-500:]
            turn = Turn.objects.get(project=project, role=Turn.Role.CLIENT)

            # Mid-turn: the turn is claimed and its worker process waits on the model.
            assert model.wait_until(lambda: len(model.requests_to(path)) >= 1, timeout=60), (
                log_path.read_text()[-3000:]
            )
            holders = _holding_connection_to(model.port, _descendants(serve.pid))
            assert len(holders) == 1, holders
            turn.refresh_from_db()
            assert turn.status == Turn.Status.PROCESSING
            os.kill(holders.pop(), signal.SIGKILL)

            # Its claim expires, the beat's sweep (every 60 s) queues the turn again, and
            # another worker process answers it.
            def answered() -> bool:
                turn.refresh_from_db()
                return turn.status == Turn.Status.DONE

            assert wait_for(answered, 100), log_path.read_text()[-3000:]
            replies = Turn.objects.filter(reply_to=turn, role=Turn.Role.AGENT)
            # The killed task's message coming back from Redis (after 4 s) answers nothing.
            assert not wait_for(lambda: replies.count() > 1, 8)
            assert replies.get().text == ANSWER["message"]
            assert project.turns.filter(role=Turn.Role.AGENT).count() == 1
            assert StructuredCall.objects.filter(source_id=str(turn.pk)).count() == 1
            assert len(model.requests_to(path)) == 2

            # The stack is whole: the pool replaced its process, and the platform is ready.
            assert serve.poll() is None
            assert "exited with 'signal 9 (SIGKILL)'" in log_path.read_text()
            assert httpx.get(f"{base}/readyz", timeout=5).status_code == 200
