"""The briefing app's admin: briefings are archived here, never deleted, and their audited
rows (transcript, events, locks, stages, revoked links) cannot be deleted either; only
forgetting the client (studio.memory.client_forget) erases what the client wrote."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from briefing.models import (
    BriefingEvent,
    LockedEntity,
    Project,
    RevokedClientLink,
    StaffProfile,
    StageRun,
    Turn,
)
from briefing.retention import project_archive
from core.admin_mixins import NoDeleteMixin, ReadOnlyMixin


class StageRunInline(admin.TabularInline):
    model = StageRun
    extra = 0
    fields = ("order", "key", "status", "closed_by", "closed_at", "summary")
    readonly_fields = fields
    can_delete = False


class LockedEntityInline(admin.TabularInline):
    model = LockedEntity
    extra = 0
    can_delete = False
    fields = ("key", "value", "source", "set_by", "updated_at")
    readonly_fields = ("updated_at",)


@admin.register(Project)
class ProjectAdmin(NoDeleteMixin, admin.ModelAdmin):
    list_display = (
        "title", "client_name", "status", "language", "producer", "taken_over_by", "updated_at",
        "archived_at",
    )  # fmt: skip
    list_filter = (
        "status", ("archived_at", admin.EmptyFieldListFilter), "language", "briefing_type",
        "producer",
    )  # fmt: skip
    search_fields = ("title", "client_name", "client_contact")
    readonly_fields = ("client_token", "created_at", "updated_at", "completed_at", "archived_at")
    inlines = [StageRunInline, LockedEntityInline]
    actions = ["project_archive"]

    @admin.action(description=_("Archive the selected briefings"), permissions=["change"])
    def project_archive(self, request, queryset) -> None:
        archived = sum(project_archive(project=project, user=request.user) for project in queryset)
        self.message_user(
            request,
            ngettext("%(count)d briefing archived.", "%(count)d briefings archived.", archived)
            % {"count": archived},
        )


@admin.register(StageRun)
class StageRunAdmin(NoDeleteMixin, admin.ModelAdmin):
    list_display = ("project", "order", "key", "status", "closed_by", "closed_at")
    list_filter = ("key", "status", "closed_by")
    search_fields = ("project__title", "summary")


@admin.register(Turn)
class TurnAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("project", "seq", "role", "stage_key", "status", "created_at")
    list_filter = ("role", "status", "stage_key")
    search_fields = ("text", "project__title")
    raw_id_fields = ("project", "reply_to", "call", "author")


@admin.register(LockedEntity)
class LockedEntityAdmin(NoDeleteMixin, admin.ModelAdmin):
    list_display = ("project", "key", "value", "source", "set_by", "updated_at")
    list_filter = ("key", "source")
    search_fields = ("value", "project__title")


@admin.register(BriefingEvent)
class BriefingEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("created_at", "project", "kind", "stage_key", "actor")
    list_filter = ("kind", "stage_key")
    search_fields = ("project__title",)
    raw_id_fields = ("project", "turn", "actor")


@admin.register(RevokedClientLink)
class RevokedClientLinkAdmin(NoDeleteMixin, admin.ModelAdmin):
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
