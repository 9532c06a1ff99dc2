from django.apps import AppConfig


class DlqConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dlq"
    verbose_name = "Dead letters"
