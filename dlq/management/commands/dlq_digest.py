"""`manage.py dlq_digest`: the weekly parse-quality digest, printed or e-mailed to managers."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from dlq.digest import render_digest_text, weekly_digest_build, weekly_digest_send


class Command(BaseCommand):
    help = "Print the weekly parse-quality digest, or e-mail it to the Managers group."

    def add_arguments(self, parser):
        parser.add_argument(
            "--week-ending", help="last day of the week, YYYY-MM-DD (default: today)"
        )
        parser.add_argument("--send", action="store_true", help="e-mail it to every active manager")

    def handle(self, *args, week_ending: str | None, send: bool, **options):
        try:
            day = date.fromisoformat(week_ending) if week_ending else timezone.localdate()
        except ValueError as error:
            message = f"--week-ending: expected YYYY-MM-DD, got {week_ending!r}"
            raise CommandError(message) from error
        if send:
            sent = weekly_digest_send(week_ending=day)
            self.stdout.write(f"sent to {sent} manager(s)")
            return
        self.stdout.write(render_digest_text(weekly_digest_build(week_ending=day)), ending="")
