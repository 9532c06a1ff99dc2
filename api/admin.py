from django.contrib import admin, messages

from api.models import ApiToken, TokenProject


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are made here; the secret is shown once, in the message after saving."""

    list_display = ("name", "prefix", "scopes", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix")
    readonly_fields = ("prefix", "created_at", "created_by", "last_used_at")

    def save_model(self, request, obj: ApiToken, form, change) -> None:
        if not change:
            token = obj.issue()
            obj.created_by = request.user
            super().save_model(request, obj, form, change)
            messages.warning(
                request, f"The token for {obj.name} (copy it now, it is not shown again): {token}"
            )
            return
        super().save_model(request, obj, form, change)


@admin.register(TokenProject)
class TokenProjectAdmin(admin.ModelAdmin):
    list_display = ("project", "token")
    raw_id_fields = ("project",)
