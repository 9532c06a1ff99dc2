from django.contrib import admin

from briefing.models import (
    BriefingEvent,
    LockedEntity,
    Project,
    RevokedClientLink,
    StaffProfile,
    StageRun,
    Turn,
)


class StageRunInline(admin.TabularInline):
    model = StageRun
    extra = 0
    fields = ("order", "key", "status", "closed_by", "closed_at", "summary")
    readonly_fields = fields
    can_delete = False


class LockedEntityInline(admin.TabularInline):
    model = LockedEntity
    extra = 0
    fields = ("key", "value", "source", "set_by", "updated_at")
    readonly_fields = ("updated_at",)


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = (
        "title", "client_name", "status", "language", "producer", "taken_over_by", "updated_at",
    )  # fmt: skip
    list_filter = ("status", "language", "briefing_type", "producer")
    search_fields = ("title", "client_name", "client_contact")
    readonly_fields = ("client_token", "created_at", "updated_at", "completed_at")
    inlines = [StageRunInline, LockedEntityInline]


@admin.register(StageRun)
class StageRunAdmin(admin.ModelAdmin):
    list_display = ("project", "order", "key", "status", "closed_by", "closed_at")
    list_filter = ("key", "status", "closed_by")
    search_fields = ("project__title", "summary")


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ("project", "seq", "role", "stage_key", "status", "created_at")
    list_filter = ("role", "status", "stage_key")
    search_fields = ("text", "project__title")
    raw_id_fields = ("project", "reply_to", "call", "author")


@admin.register(LockedEntity)
class LockedEntityAdmin(admin.ModelAdmin):
    list_display = ("project", "key", "value", "source", "set_by", "updated_at")
    list_filter = ("key", "source")
    search_fields = ("value", "project__title")


@admin.register(BriefingEvent)
class BriefingEventAdmin(admin.ModelAdmin):
    list_display = ("created_at", "project", "kind", "stage_key", "actor")
    list_filter = ("kind", "stage_key")
    search_fields = ("project__title",)
    raw_id_fields = ("project", "turn", "actor")


@admin.register(RevokedClientLink)
class RevokedClientLinkAdmin(admin.ModelAdmin):
    """Client links that were revoked or rotated: they answer 410 instead of 404."""

    list_display = ("revoked_at", "project")
    search_fields = ("project__title",)
    raw_id_fields = ("project",)
    readonly_fields = ("token", "project", "revoked_at")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(StaffProfile)
class StaffProfileAdmin(admin.ModelAdmin):
    """A back-office user's language (they set it with the navigation's switcher)."""

    list_display = ("user", "language")
    list_filter = ("language",)
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
