"""Score the lead cards read from a folder of mails against its `expected.yaml`."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crm.evaluation import folder_score, score_line


class Command(BaseCommand):
    help = (
        "Read every mail of a folder into a lead card as a worker would (nothing is stored) "
        "and compare with the folder's expected.yaml: what is wrong, then one figure line."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", help="a folder of .eml files with an expected.yaml")

    def handle(self, *args, folder: str, **options) -> None:
        try:
            scores = folder_score(Path(folder))
        except (OSError, ValueError) as error:
            raise CommandError(str(error)) from None
        for score in scores:
            mark = "ok " if score.fully_right else "BAD"
            self.stdout.write(f"{mark} {score.name}")
            for wrong in score.wrong:
                self.stdout.write(
                    f"      {wrong.field}: expected {wrong.expected!r}, read {wrong.read!r}"
                )
            for refusal in score.refused:
                self.stdout.write(f"      refused: {refusal}")
        self.stdout.write(score_line(scores))
