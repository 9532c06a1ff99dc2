from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BriefingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "briefing"
    verbose_name = _("Briefings")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in
        from django.core import checks
        from django.db.models.signals import post_migrate

        from briefing.common.roles import roles_ensure_after_migrate
        from briefing.common.selectors import turn_figures
        from briefing.producer.profiles import profile_language_restore
        from briefing.turn.limits import rates_check
        from briefing.upkeep.dead_letters import SOURCE_KIND, BriefingTurnSource
        from briefing.upkeep.records import CompletedBriefings
        from dlq.figures import turn_figures_register
        from dlq.sources import dead_letter_source_register
        from studio.records import records_register

        post_migrate.connect(roles_ensure_after_migrate, sender=self)
        dead_letter_source_register(SOURCE_KIND, BriefingTurnSource())
        turn_figures_register(turn_figures)
        checks.register(rates_check)
        records_register(briefings=CompletedBriefings())
        user_logged_in.connect(profile_language_restore, dispatch_uid="profile_language_restore")
