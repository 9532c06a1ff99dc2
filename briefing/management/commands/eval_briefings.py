"""`manage.py eval_briefings DIR [--provider rules]`: play every conversation in DIR and
score the stored fields against each file's expectations."""

import logging
import os
from pathlib import Path

import yaml
from celery import current_app
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from briefing.playback.evaluation import (
    conversation_load,
    conversation_paths,
    conversation_score,
    scores_table,
    summary_line,
)
from dlq.services import llm_chain


class Command(BaseCommand):
    help = "Play natural conversations with expected fields and print what the briefing got wrong."

    def add_arguments(self, parser):
        parser.add_argument("directory", help="a folder of conversation YAML files")
        parser.add_argument(
            "--provider", help="the provider chain for this run (default: LLM_PROVIDERS)"
        )

    def handle(self, *args, directory: str, provider: str | None, **options):
        paths = conversation_paths(Path(directory))
        if not paths:
            raise CommandError(f"no *.yaml conversations in {directory}")
        if provider:
            os.environ["LLM_PROVIDERS"] = provider
            llm_chain.cache_clear()
        current_app.conf.task_always_eager = True
        # A line per eager task would bury the report.
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
        user, _ = get_user_model().objects.get_or_create(username="evaluator")
        scores = []
        for path in paths:
            try:
                script = conversation_load(path)
            except (OSError, ValueError, yaml.YAMLError) as error:
                raise CommandError(str(error)) from None
            score = conversation_score(name=path.stem, script=script, user=user)
            scores.append(score)
            mark = "ok" if score.fully_right else "WRONG"
            self.stdout.write(
                f"{mark:>5} {score.name}: {score.status}, "
                f"{len(score.fields) - len(score.wrong)}/{len(score.fields)} fields right"
            )
            for item in score.wrong:
                self.stdout.write(
                    f"        {item.stage}.{item.field}: expected {item.expected!r}, "
                    f"stored {item.stored!r}"
                )
            for where in score.chatter:
                self.stdout.write(f"        {where}: holds a confirmation, greeting or question")
        self.stdout.write("\nfield                    right  total  accuracy")
        for key, right, total in scores_table(scores):
            self.stdout.write(f"{key:<24} {right:>5}  {total:>5}  {100 * right / total:6.1f}%")
        self.stdout.write("\n" + summary_line(scores))
