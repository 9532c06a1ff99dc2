"""The studio's data in the admin: rate card, portfolio, production calendar (edited here as
on the back office's pages, through the same services, so each change is in the audit trail);
the audit trail itself (shown only); client memory, whose snapshots are corrected here through
studio.memory and whose lines are rebuilt from them (shown only)."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from core.admin_mixins import (
    NoEditMixin,
    ReadOnlyMixin,
    code_shown,
    labelled_column,
    labelled_filter,
)
from studio.memory import snapshot_correct
from studio.models import (
    CalendarPeriod,
    ClientSnapshot,
    MemoryItem,
    PortfolioItem,
    RateCardItem,
    StudioChange,
)
from studio.services import studio_item_create, studio_item_delete, studio_item_update

# A kind of work is a code the studio types ("music_video"): quoted as code, as on its pages.
kind = labelled_column("kind", _("kind"), code_shown)
kind_filter = labelled_filter("kind", _("kind"), code_shown)


class AuditedStudioAdmin(admin.ModelAdmin):
    """Saves and deletes go through studio.services: validated, and recorded with who did it."""

    def save_model(self, request, obj, form, change):
        values = {
            field.name: getattr(obj, field.name)
            for field in obj._meta.concrete_fields
            if field.editable and not field.primary_key
        }
        if change:
            studio_item_update(item=obj, values=values, user=request.user)
        else:
            created = studio_item_create(model=type(obj), values=values, user=request.user)
            obj.pk = created.pk

    def delete_model(self, request, obj):
        studio_item_delete(item=obj, user=request.user)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            studio_item_delete(item=obj, user=request.user)


@admin.register(RateCardItem)
class RateCardItemAdmin(AuditedStudioAdmin):
    list_display = ["title", kind, "unit", "price_min", "price_max", "currency", "active"]
    list_filter = [kind_filter, "currency", "active"]
    search_fields = ["code", "title", "keywords", "price_factors"]


@admin.register(PortfolioItem)
class PortfolioItemAdmin(AuditedStudioAdmin):
    list_display = ["title", "client", kind, "year", "may_be_shown"]
    list_filter = [kind_filter, "year", "may_be_shown"]
    search_fields = ["title", "client", "description"]


@admin.register(CalendarPeriod)
class CalendarPeriodAdmin(AuditedStudioAdmin):
    list_display = ["starts_on", "ends_on", "status", "note", "source"]
    list_filter = ["status", "source"]
    search_fields = ["note", "external_id"]
    date_hierarchy = "starts_on"


@admin.register(StudioChange)
class StudioChangeAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """The audit trail of the studio's data: written by its services, never edited."""

    list_display = ["at", "user", "kind", "section", "item_label"]
    list_filter = ["kind", "section"]
    search_fields = ["item_label"]


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
