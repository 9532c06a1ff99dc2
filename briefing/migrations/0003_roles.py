"""The roles: Producers run briefings assigned to them; Managers see and act on all."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from briefing.common.roles import roles_ensure

def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations; the roles need them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    roles_ensure(
        group_model=apps.get_model("auth", "Group"),
        permission_model=apps.get_model("auth", "Permission"),
    )


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["Producers", "Managers"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("briefing", "0002_project_permissions"),
        ("dlq", "0002_prompt_estimates"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
