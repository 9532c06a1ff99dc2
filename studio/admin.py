"""The studio's data in the admin: rate card, portfolio, production calendar (edited here);
client memory, whose snapshots are corrected here through studio.memory and whose lines are
rebuilt from them (shown only)."""

from django.contrib import admin

from core.admin_mixins import NoEditMixin
from studio.memory import snapshot_correct
from studio.models import (
    CalendarPeriod,
    ClientSnapshot,
    MemoryItem,
    PortfolioItem,
    RateCardItem,
)


@admin.register(RateCardItem)
class RateCardItemAdmin(admin.ModelAdmin):
    list_display = ["title", "kind", "unit", "price_min", "price_max", "currency", "active"]
    list_filter = ["kind", "currency", "active"]
    search_fields = ["code", "title", "keywords", "price_factors"]


@admin.register(PortfolioItem)
class PortfolioItemAdmin(admin.ModelAdmin):
    list_display = ["title", "client", "kind", "year", "may_be_shown"]
    list_filter = ["kind", "year", "may_be_shown"]
    search_fields = ["title", "client", "description"]


@admin.register(CalendarPeriod)
class CalendarPeriodAdmin(admin.ModelAdmin):
    list_display = ["starts_on", "ends_on", "status", "note", "source"]
    list_filter = ["status", "source"]
    search_fields = ["note", "external_id"]
    date_hierarchy = "starts_on"


@admin.register(ClientSnapshot)
class ClientSnapshotAdmin(admin.ModelAdmin):
    """What memory holds for a client: a producer reads it here and corrects the facts."""

    list_display = ["key", "corrected", "rebuilt_at"]
    list_filter = ["corrected"]
    search_fields = ["key", "text"]
    readonly_fields = ["text", "sources", "rebuilt_at"]

    def save_model(self, request, obj, form, change):
        if change:  # a correction: rendered again and kept by the daily rebuilds
            snapshot_correct(key=obj.key, facts=obj.facts)
        else:
            super().save_model(request, obj, form, change)


@admin.register(MemoryItem)
class MemoryItemAdmin(NoEditMixin, admin.ModelAdmin):
    """The lines per-turn retrieval searches, per client key: rebuilt with the snapshots, so
    a change is made to the snapshot's facts (a line edited here would vanish at the next
    rebuild, one added here would reach a client's prompts from nowhere)."""

    list_display = ["key", "text", "source"]
    search_fields = ["key", "text"]
