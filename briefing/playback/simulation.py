"""Run a scripted conversation through the real orchestrator: client messages and producer
actions from a YAML file, as `manage.py simulate_briefing` and the example tests do."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from briefing import services
from briefing.models import Project
from core.errors import ApplicationError

PRODUCER_ACTIONS = {
    "lock": lambda p, u, a: services.lock_set(project=p, key=a["key"], value=a["value"], user=u),
    "unlock": lambda p, u, a: services.lock_remove(project=p, key=a["key"], user=u),
    "correct": lambda p, u, a: services.field_correct(
        project=p, stage_key=a["stage"], field=a["field"], value=a["value"], user=u
    ),
    "takeover": lambda p, u, a: services.takeover_start(project=p, user=u),
    "release": lambda p, u, a: services.takeover_release(project=p, user=u),
    "message": lambda p, u, a: services.producer_message_post(project=p, text=a["text"], user=u),
    "reopen": lambda p, u, a: services.stage_reopen(project=p, stage_key=a["stage"], user=u),
    "force_close": lambda p, u, a: services.stage_force_close(
        project=p, stage_key=a["stage"], user=u, reason=a.get("reason", "")
    ),
    "pause": lambda p, u, a: services.project_pause(project=p, user=u),
    "resume": lambda p, u, a: services.project_resume(project=p, user=u),
}


def script_validate(script: Any) -> list[Mapping[str, Any]]:
    """The script's steps, or an ApplicationError saying what is wrong with the file."""
    if not isinstance(script, Mapping) or not isinstance(script.get("turns"), list):
        raise ApplicationError("the script must be a mapping with a list under 'turns'")
    steps = []
    for index, step in enumerate(script["turns"], start=1):
        if isinstance(step, Mapping) and isinstance(step.get("client"), str):
            steps.append(step)
        elif isinstance(step, Mapping) and isinstance(step.get("producer"), Mapping):
            action = step["producer"].get("action")
            if action not in PRODUCER_ACTIONS:
                raise ApplicationError(
                    f"turn {index}: unknown producer action {action!r}; "
                    f"known: {', '.join(sorted(PRODUCER_ACTIONS))}"
                )
            steps.append(step)
        else:
            raise ApplicationError(
                f"turn {index}: expected {{client: text}} or {{producer: {{action: ...}}}}"
            )
    return steps


def simulation_run(*, script: Mapping[str, Any], user: Any) -> Project:
    """Create a project and play the script through it. Tasks run where Celery sends them:
    the caller decides (the command runs them eagerly, in process)."""
    steps = script_validate(script)
    if script.get("studio") == "demo":  # the studio's sample data, as scripts/run loads it
        from django.utils import timezone

        from studio.services import studio_demo_load

        studio_demo_load(today=timezone.localdate())
    project = services.project_create(
        title=str(script.get("title") or "Simulated briefing"),
        client_name=str(script.get("client_name") or ""),
        language=str(script.get("language") or "ru"),
        producer=user,
    )
    for step in steps:
        if "client" in step:
            services.turn_receive(project=project, text=step["client"])
        else:
            action = step["producer"]
            PRODUCER_ACTIONS[action["action"]](project, user, action)
        project.refresh_from_db()
    return project
