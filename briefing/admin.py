"""The briefing app's admin: briefings and their audited rows (transcript, events, locks,
stages, revoked links) are shown here, never edited or deleted: the back office changes them
through the services, which check each change and record it. A briefing is archived here
(an event says who); only forgetting the client (studio.memory.client_forget) erases what the
client wrote. A producer sees the rows of their own briefings only, as on the back office."""

from django.contrib import admin
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from briefing.common.access import projects_for_user
from briefing.common.labels import lock_label
from briefing.models import (
    BriefingEvent,
    BriefingNote,
    CannedReply,
    CannedReplyChange,
    LockedEntity,
    Project,
    RevokedClientLink,
    StaffProfile,
    StageRun,
    Turn,
)
from briefing.templatetags.labels import stage_title
from briefing.upkeep.retention import project_archive
from core.admin_mixins import (
    BackOfficeLinkMixin,
    NoEditMixin,
    ReadOnlyMixin,
    labelled_column,
    labelled_filter,
)

# Stage keys and lock keys under the titles and labels the briefing's page shows.
stage_column = labelled_column("stage_key", _("stage"), stage_title)
stage_filter = labelled_filter("stage_key", _("stage"), stage_title)

BRIEFING_PAGE_TEXT = _("The briefing's page, which checks and records every change")


class OwnBriefingsMixin:
    """Rows of the briefings the user may see (briefing.common.access): a producer's own, all for a
    manager or a superuser. `project_path` leads from the row to its briefing."""

    project_path = "project"

    def get_queryset(self, request):
        visible = projects_for_user(request.user).values("pk")
        return super().get_queryset(request).filter(**{f"{self.project_path}__in": visible})


class BriefingPageLinkMixin(BackOfficeLinkMixin):
    """The change page links to the briefing's page, where the row is changed."""

    back_office_text = BRIEFING_PAGE_TEXT

    def back_office_url(self, obj) -> str:
        return reverse("project_detail", args=[obj.project_id])


class StageRunInline(NoEditMixin, admin.TabularInline):
    model = StageRun
    extra = 0
    fields = ("order", "key", "status", "closed_by", "closed_at", "summary")
    readonly_fields = fields
    can_delete = False


class LockedEntityInline(NoEditMixin, admin.TabularInline):
    model = LockedEntity
    extra = 0
    can_delete = False
    fields = ("key", "value", "source", "set_by", "updated_at")
    readonly_fields = fields


@admin.register(Project)
class ProjectAdmin(OwnBriefingsMixin, BackOfficeLinkMixin, ReadOnlyMixin, admin.ModelAdmin):
    """Status, brief, counters and flags are kept by the services (a completed brief is
    rebuilt, the inbox's counters follow the dead letters): nothing is edited here. A briefing
    is made on the back office (with its stages); the action here archives it through
    briefing.upkeep.retention, which records who did."""

    project_path = "pk"
    back_office_text = BRIEFING_PAGE_TEXT
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

    def back_office_url(self, obj: Project) -> str:
        return reverse("project_detail", args=[obj.pk])

    def has_archive_permission(self, request) -> bool:
        # Who may change a briefing may archive it: through its service, not the change form.
        return admin.ModelAdmin.has_change_permission(self, request)

    @admin.action(description=_("Archive the selected briefings"), permissions=["archive"])
    def project_archive(self, request, queryset) -> None:
        archived = sum(project_archive(project=project, user=request.user) for project in queryset)
        self.message_user(
            request,
            ngettext("%(count)d briefing archived.", "%(count)d briefings archived.", archived)
            % {"count": archived},
        )


@admin.register(StageRun)
class StageRunAdmin(OwnBriefingsMixin, BriefingPageLinkMixin, ReadOnlyMixin, admin.ModelAdmin):
    """A stage's fields and status move through the orchestrator and the producer's
    corrections on the briefing's page (validated, with an event), never here."""

    list_display = (
        "project", "order", labelled_column("key", _("stage"), stage_title), "status",
        "closed_by", "closed_at",
    )  # fmt: skip
    list_filter = (labelled_filter("key", _("stage"), stage_title), "status", "closed_by")
    search_fields = ("project__title", "summary")


@admin.register(Turn)
class TurnAdmin(OwnBriefingsMixin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("project", "seq", "role", stage_column, "status", "created_at")
    list_filter = ("role", "status", stage_filter)
    search_fields = ("text", "project__title")
    raw_id_fields = ("project", "reply_to", "call", "author")


@admin.register(LockedEntity)
class LockedEntityAdmin(OwnBriefingsMixin, BriefingPageLinkMixin, ReadOnlyMixin, admin.ModelAdmin):
    """Locks are set and released on the briefing's page (an event says who), never here."""

    list_display = (
        "project", labelled_column("key", _("field"), lock_label), "value", "source", "set_by",
        "updated_at",
    )  # fmt: skip
    list_filter = (labelled_filter("key", _("field"), lock_label), "source")
    search_fields = ("value", "project__title")


@admin.register(BriefingEvent)
class BriefingEventAdmin(OwnBriefingsMixin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("created_at", "project", "kind", stage_column, "actor")
    list_filter = ("kind", stage_filter)
    search_fields = ("project__title",)
    raw_id_fields = ("project", "turn", "actor")


@admin.register(RevokedClientLink)
class RevokedClientLinkAdmin(OwnBriefingsMixin, ReadOnlyMixin, admin.ModelAdmin):
    """Client links that were revoked or rotated: they answer 410 instead of 404."""

    list_display = ("revoked_at", "project")
    search_fields = ("project__title",)
    raw_id_fields = ("project",)
    readonly_fields = ("token", "project", "revoked_at")


@admin.register(StaffProfile)
class StaffProfileAdmin(admin.ModelAdmin):
    """A back-office user's language (they set it with the navigation's switcher)."""

    list_display = ("user", "language")
    list_filter = ("language",)
    search_fields = ("user__username",)
    raw_id_fields = ("user",)


@admin.register(BriefingNote)
class BriefingNoteAdmin(OwnBriefingsMixin, BriefingPageLinkMixin, ReadOnlyMixin, admin.ModelAdmin):
    """The staff's notes are written on the briefing's page (an event says who), never here."""

    list_display = ("created_at", "project", "author")
    search_fields = ("project__title",)
    raw_id_fields = ("project", "author")


@admin.register(CannedReply)
class CannedReplyAdmin(BackOfficeLinkMixin, ReadOnlyMixin, admin.ModelAdmin):
    """Canned replies are edited on their back-office page, which audits every change."""

    back_office_text = _("The canned replies page, which records every change")
    list_display = ("title", "language", "updated_at")
    list_filter = ("language",)
    search_fields = ("title", "text")

    def back_office_url(self, obj) -> str:
        return reverse("canned_replies")


@admin.register(CannedReplyChange)
class CannedReplyChangeAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Who added, edited or removed a canned reply, with its old and new content."""

    list_display = ("created_at", "kind", "reply", "actor")
    list_filter = ("kind",)
    raw_id_fields = ("reply", "actor")
