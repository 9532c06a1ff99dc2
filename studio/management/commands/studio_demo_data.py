"""Load the sample rate card, portfolio and production calendar (idempotent)."""

from django.core.management.base import BaseCommand
from django.utils import timezone

from studio.services import studio_demo_load, studio_is_empty


class Command(BaseCommand):
    help = (
        "Load a sample rate card, portfolio and production calendar (loading twice adds nothing)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty", action="store_true",
            help="Load only when the studio has no data at all (what scripts/run does)",
        )  # fmt: skip

    def handle(self, *args, **options):
        if options["if_empty"] and not studio_is_empty():
            self.stdout.write("The studio already has data: nothing loaded.")
            return
        created = studio_demo_load(today=timezone.localdate())
        self.stdout.write(
            "Studio sample data: {rate_card} rate card rows, {portfolio} portfolio works, "
            "{calendar} calendar periods added.".format(**created)
        )
