"""`manage.py simulate_briefing FILE.yaml [--provider rules|local|<chain>] [--json]`."""

import json
import os

import yaml
from celery import current_app
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from briefing.common.selectors import project_report
from briefing.playback.simulation import simulation_run
from core.errors import ApplicationError
from dlq.services import llm_chain


class Command(BaseCommand):
    help = "Run a scripted conversation through the real orchestrator and print the result."

    def add_arguments(self, parser):
        parser.add_argument("file", help="YAML: language, and turns of client messages/actions")
        parser.add_argument(
            "--provider",
            help="the provider chain for this run, e.g. rules, local, gigachat,rules "
            "(default: LLM_PROVIDERS)",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, file: str, provider: str | None, json: bool, **options):
        try:
            with open(file, encoding="utf-8") as handle:
                script = yaml.safe_load(handle)
        except (OSError, yaml.YAMLError, UnicodeDecodeError) as error:
            raise CommandError(f"cannot read {file}: {error}") from None
        if provider:
            os.environ["LLM_PROVIDERS"] = provider
            llm_chain.cache_clear()
        # The turns run in this process, through the same task code a worker runs.
        current_app.conf.task_always_eager = True
        user, _ = get_user_model().objects.get_or_create(username="simulator")
        try:
            project = simulation_run(script=script, user=user)
        except ApplicationError as error:
            raise CommandError(error.message) from None
        report = project_report(project)
        if json:
            self.stdout.write(_dumps(report))
            return
        for line in report["transcript"]:
            self.stdout.write(f"{line['role']:>8}: {line['text']}")
        self.stdout.write(f"\nstatus: {report['status']}, language: {report['language']}")
        for stage in report["stages"]:
            by = f" by {stage['closed_by']}" if stage["closed_by"] else ""
            self.stdout.write(f"  {stage['key']}: {stage['status']}{by}")
        self.stdout.write("\n" + (report["summary_markdown"] or "(the brief is not complete)"))


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
