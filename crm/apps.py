"""CRM intake: inbound messages turned into lead cards."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CrmConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "crm"
    verbose_name = _("CRM")

    def ready(self) -> None:
        from crm.dead_letters import InboundMessageSource
        from crm.records import Leads
        from crm.services import SOURCE_KIND
        from dlq.sources import dead_letter_source_register
        from studio.records import records_register

        dead_letter_source_register(SOURCE_KIND, InboundMessageSource())
        records_register(leads=Leads())
