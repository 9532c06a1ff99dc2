from django.apps import AppConfig


class BriefingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "briefing"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from briefing.roles import roles_ensure_after_migrate

        post_migrate.connect(roles_ensure_after_migrate, sender=self)
