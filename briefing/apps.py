from django.apps import AppConfig


class BriefingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "briefing"
