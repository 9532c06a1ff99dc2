"""The shipped example conversations (`briefing/examples/*.yaml`) played through the real
orchestrator with the rules agent, each checked against its own `expect` section: status,
who closed each stage, skipped stages, fields (in the stages and in the final brief), locks
and events. Plus the `simulate_briefing` command's JSON shape and its errors.

The examples run under `transactional_db`: a client turn is processed in the on-commit
callback of `turn_receive` (eager Celery), and only without the test's wrapping transaction
does that callback run at once, in script order between the producer's actions (as in the
command). Inside one transaction every turn would wait for the end of the script."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

import briefing
from briefing.common.selectors import project_report, stage_closed_by
from briefing.models import Project, Turn
from briefing.playback.simulation import simulation_run
from briefing.stages.base import is_empty
from briefing.stages.registry import stage_by_key
from dlq.models import DeadLetter
from llmkit.guard import guard_reply

EXAMPLES_DIR = Path(briefing.__file__).resolve().parent / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.yaml"))
EXPECT_KEYS = {
    "status",
    "language",
    "closed_by",
    "skipped",
    "fields",
    "locks",
    "events_include",
    "events_exclude",
    "transcript_include",
    "guarded",
    "tool_calls",
}
REPORT_KEYS = {
    "project",
    "status",
    "language",
    "stages",
    "locks",
    "brief",
    "summary_markdown",
    "transcript",
    "events",
}


def load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


# The examples are written for the rules agent, whatever the environment configures.
pytestmark = pytest.mark.usefixtures("rules_agent")


def test_the_examples_cover_the_languages_and_the_cases():
    scripts = {path.stem: load(path) for path in EXAMPLES}
    assert len(scripts) >= 10
    assert {s["language"] for s in scripts.values()} == {"ru", "uk", "en"}
    for name, script in scripts.items():
        assert set(script) - {"studio"} == {"title", "language", "turns", "expect"}, name
        assert set(script["expect"]) <= EXPECT_KEYS, f"{name}: unknown expect keys"
        assert {"status", "closed_by", "fields", "locks"} <= set(script["expect"]), name
    everything_first = [s for n, s in scripts.items() if "everything_first" in n]
    assert {s["language"] for s in everything_first} == {"ru", "uk", "en"}
    assert all(s["expect"]["skipped"] == ["budget"] for s in everything_first)
    actions = {
        step["producer"]["action"]
        for script in scripts.values()
        for step in script["turns"]
        if "producer" in step
    }
    assert {"correct", "takeover", "message", "release", "pause", "resume"} <= actions


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_example(path, transactional_db):
    script = load(path)
    expect = script["expect"]
    user = get_user_model().objects.create_user("producer")

    project = simulation_run(script=script, user=user)
    report = project_report(project)
    events = list(project.events.order_by("id"))
    kinds = [event.kind for event in events]

    # Every client message was handled: answered by the agent, the guard or a producer.
    assert not project.turns.filter(role=Turn.Role.CLIENT).exclude(status=Turn.Status.DONE)
    assert not DeadLetter.objects.exists()

    assert report["status"] == expect["status"]
    assert report["language"] == expect.get("language", script["language"])
    assert stage_closed_by(project) == expect["closed_by"]
    skipped = [event.stage_key for event in events if event.kind == "stage_skipped"]
    assert skipped == expect.get("skipped", [])
    assert report["locks"] == expect["locks"]

    stages = {stage["key"]: stage["fields"] for stage in report["stages"]}
    for stage_key, fields in expect["fields"].items():
        assert set(fields) <= set(stage_by_key(project.briefing_type, stage_key).fields)
        for name, value in fields.items():
            found = [("stage", stages[stage_key].get(name))]
            if report["status"] == "completed":  # the final brief holds the same value
                found.append(("brief", report["brief"][stage_key][name]))
            for where, actual in found:
                assert actual == value or (is_empty(value) and is_empty(actual)), (
                    f"{where} {stage_key}.{name}: {actual!r} != {value!r}"
                )

    for kind in expect.get("events_include", []):
        assert kind in kinds, f"no {kind} event"
    for kind in expect.get("events_exclude", []):
        assert kind not in kinds, f"unexpected {kind} event"

    said = [line["text"] for line in report["transcript"] if line["role"] != "client"]
    for fragment in expect.get("transcript_include", []):
        assert any(fragment in text for text in said), f"{fragment!r} not in the transcript"
    # The studio's tools the agent called, in order (the demo data examples), each an event.
    called = [e.data["name"] for e in events if e.kind == "tool_called"]
    assert called == expect.get("tool_calls", [])
    guarded = [e.data["guard"] for e in events if e.kind == "guard_answered"]
    assert guarded == expect.get("guarded", [])
    for kind in guarded:
        assert guard_reply(kind, report["language"]) in said

    if report["status"] == "completed":
        assert kinds.count("brief_completed") == 1
        assert report["brief"]["language"] == report["language"]
        for value in report["locks"].values():
            assert value in report["summary_markdown"]


def test_the_command_prints_the_report_as_json(transactional_db):
    out = io.StringIO()
    call_command("simulate_briefing", str(EXAMPLES_DIR / "ru_orderly.yaml"), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert set(report) == REPORT_KEYS
    assert report["status"] == "completed"
    assert [stage["key"] for stage in report["stages"]] == [
        "intro",
        "vision",
        "service",
        "budget",
        "extra",
    ]
    script = load(EXAMPLES_DIR / "ru_orderly.yaml")
    client_lines = [line["text"] for line in report["transcript"] if line["role"] == "client"]
    assert client_lines == [step["client"] for step in script["turns"]]
    assert report["events"][-1] == "brief_completed"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("title: broken\nturns: [{client: 'hi'}\n", "cannot read"),
        ("title: no turns\nlanguage: ru\n", "a list under 'turns'"),
        ("- client: hi\n", "a list under 'turns'"),
        ("turns:\n  - client: hi\n  - 42\n", "turn 2: expected {client: text}"),
        (
            "turns:\n  - client: hi\n  - producer: {action: dance}\n",
            "turn 2: unknown producer action 'dance'; known: correct, force_close, lock",
        ),
    ],
    ids=["malformed-yaml", "no-turns", "not-a-mapping", "bad-turn", "unknown-action"],
)
def test_a_bad_script_is_a_command_error(tmp_path, db, content, message):
    path = tmp_path / "script.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError) as error:
        call_command("simulate_briefing", str(path), "--json", stdout=io.StringIO())
    assert message in str(error.value)
    assert not Project.objects.exists()


def test_a_missing_file_is_a_command_error(tmp_path, db):
    with pytest.raises(CommandError, match=r"cannot read .*missing\.yaml"):
        call_command("simulate_briefing", str(tmp_path / "missing.yaml"), stdout=io.StringIO())
