from django.db import migrations, models


def skipped_from_events(apps, schema_editor):
    """Stages whose stage_skipped event was recorded are marked, as the turn now reads it."""
    StageRun = apps.get_model("briefing", "StageRun")
    BriefingEvent = apps.get_model("briefing", "BriefingEvent")
    skipped = BriefingEvent.objects.filter(
        kind="stage_skipped", project_id=models.OuterRef("project_id"),
        stage_key=models.OuterRef("key"),
    )  # fmt: skip
    StageRun.objects.filter(models.Exists(skipped)).update(skipped=True)


class Migration(migrations.Migration):
    dependencies = [
        ("briefing", "0016_dashboard_facts"),
    ]

    operations = [
        migrations.AddField(
            model_name="stagerun",
            name="skipped",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(skipped_from_events, migrations.RunPython.noop),
    ]
