from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DlqConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dlq"
    verbose_name = _("Dead letters")
