"""Import e-mails into CRM intake: `.eml` files, folders of them, or mbox files."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from crm.mail import mail_messages_count, mail_messages_from_paths
from crm.services import inbound_from_mail, inbound_store


class Command(BaseCommand):
    help = (
        "Store e-mails from .eml files, folders of .eml files or mbox files as inbound "
        "messages (each once, however often imported); workers read them into leads."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", help=".eml files, folders or mbox files")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar (for logs)")

    def handle(self, *args, paths: list[str], no_progress: bool, **options) -> None:
        try:
            total = mail_messages_count(paths)
        except OSError as error:
            raise CommandError(str(error)) from None
        created = duplicates = failed = 0
        bar = tqdm(total=total, unit="mail", disable=no_progress, file=sys.stderr)
        for label, raw in mail_messages_from_paths(paths):
            try:
                inbound = inbound_from_mail(raw, source=label[:100])
                _, is_new = inbound_store(inbound)
            except Exception as error:  # one broken file must not stop the import
                failed += 1
                self.stderr.write(f"{label}: not stored: {error}")
            else:
                created += is_new
                duplicates += not is_new
            bar.update(1)
        bar.close()
        self.stdout.write(
            f"{created} stored, {duplicates} already there, {failed} failed (of {total})"
        )
