"""The studio's own data: rate card, portfolio, production calendar."""

from django.apps import AppConfig


class StudioConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "studio"
    verbose_name = "Studio"
