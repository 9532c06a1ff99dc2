from django.db import migrations, models


def last_seq_from_turns(apps, schema_editor):
    """Each briefing's last turn number, from its turns, as the turn numbering now reads it."""
    Project = apps.get_model("briefing", "Project")
    Turn = apps.get_model("briefing", "Turn")
    last = Turn.objects.filter(project_id=models.OuterRef("pk")).order_by("-seq").values("seq")[:1]
    Project.objects.update(last_seq=models.functions.Coalesce(models.Subquery(last), 0))


class Migration(migrations.Migration):
    dependencies = [
        ("briefing", "0018_memory_keys"),
    ]

    operations = [
        migrations.AddField(
            model_name="project",
            name="last_seq",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(last_seq_from_turns, migrations.RunPython.noop),
    ]
