from django.db import migrations, models
from django.db.models import Count, Q


def backfill(apps, schema_editor):
    """Count each briefing's open dead letters, blocked renames and holding replies once; from
    here on the transactions that change them keep them (briefing.inbox)."""
    Project = apps.get_model("briefing", "Project")
    Turn = apps.get_model("briefing", "Turn")
    BriefingEvent = apps.get_model("briefing", "BriefingEvent")
    counts = BriefingEvent.objects.filter(
        kind__in=["lock_violation_blocked", "holding_reply_sent"]
    ).values("project_id").annotate(
        violations=Count("pk", filter=Q(kind="lock_violation_blocked")),
        holding=Count("pk", filter=Q(kind="holding_reply_sent")),
    )  # fmt: skip
    for row in counts.iterator():
        Project.objects.filter(pk=row["project_id"]).update(
            lock_violations=row["violations"], holding_replies=row["holding"]
        )
    letters: dict[int, list[int]] = {}
    dead = Turn.objects.filter(call__dead_letter__status="open").order_by("project_id", "-seq")
    for project_id, letter_id in dead.values_list("project_id", "call__dead_letter__pk"):
        letters.setdefault(project_id, []).append(letter_id)
    for project_id, ids in letters.items():
        Project.objects.filter(pk=project_id).update(
            open_dead_letters=len(ids), open_dead_letter_id=ids[0]
        )


class Migration(migrations.Migration):
    dependencies = [
        ("briefing", "0015_staff_profile"),
        ("dlq", "0008_call_latency"),
    ]

    operations = [
        migrations.AddField(
            model_name="project",
            name="open_dead_letters",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="project",
            name="open_dead_letter_id",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="project",
            name="lock_violations",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="project",
            name="holding_replies",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
