"""Forget a client on their request: the one erasure there is (studio.memory.client_forget)."""

from django.core.management.base import BaseCommand, CommandError

from studio.memory import client_forget


class Command(BaseCommand):
    help = (
        "Erase a client's data on their request, by company and/or contact: their memory, and "
        "in every briefing of theirs the identity, the messages' text, the events' values, "
        "dead letters and model calls (each briefing keeps a record of the erasure, without "
        "the data, and is archived). It cannot be undone."
    )

    def add_arguments(self, parser):
        parser.add_argument("--company", default="", help="The client's company, as written")
        parser.add_argument("--contact", default="", help="The client's phone or e-mail")
        parser.add_argument(
            "--yes", action="store_true", help="Do not ask for confirmation (for scripts)"
        )

    def handle(self, *args, company: str, contact: str, yes: bool, **options):
        if not company.strip() and not contact.strip():
            raise CommandError("name the client: --company, --contact or both")
        if not yes:
            answer = input(f"Erase everything about {company or contact!r}? Type 'yes': ")
            if answer.strip().lower() != "yes":
                raise CommandError("nothing erased")
        removed = client_forget(company=company, contact=contact)
        self.stdout.write(
            "Erased: {briefings_unlinked} briefing(s), {snapshots} snapshot(s), {items} memory "
            "item(s).".format(**removed)
        )
