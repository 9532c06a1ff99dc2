"""`manage.py llm_check`: which provider answers a small structured call, and how it parsed."""

import json

from django.core.management.base import BaseCommand

from dlq.services import llm_check_run
from dlq.tasks import llm_check


class Command(BaseCommand):
    help = "Send one small structured call through the configured provider chain and record it."

    def add_arguments(self, parser):
        parser.add_argument(
            "--queue",
            action="store_true",
            help="run it on a Celery worker instead of in this process",
        )

    def handle(self, *args, queue: bool, **options):
        if queue:
            llm_check.delay(source_id="manage.py")
            self.stdout.write("queued; the worker records the call (see admin: structured calls)")
            return
        result, call = llm_check_run(source_id="manage.py")
        self.stdout.write(
            json.dumps(
                {
                    "ok": result.ok,
                    "provider": call.provider,
                    "model": call.model,
                    "outcome": call.outcome,
                    "retry_used": call.retry_used,
                    "latency_ms": call.latency_ms,
                    "errors": [e.as_dict() for e in result.errors] if not result.ok else [],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
