"""Recompute every briefing's inbox facts from its rows (after an upgrade or a bulk import)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from briefing.common.inbox import inbox_counts_refresh, inbox_refresh
from briefing.models import Project


class Command(BaseCommand):
    help = (
        "Recompute the inbox facts (needs-you reason, unread count, order, dashboard flags) of "
        "every briefing."
    )

    def handle(self, *args, **options) -> None:
        count = 0
        for project_id in Project.objects.values_list("pk", flat=True).iterator():
            with transaction.atomic():
                inbox_refresh(project_id=project_id)
                inbox_counts_refresh(project_id=project_id)
            count += 1
        self.stdout.write(f"inbox facts rebuilt for {count} briefings")
