# The API's keyset pages (api.pagination.Keyset): briefings by (created_at, id), briefs by
# (completed_at, id), each page one index range instead of a sort of every briefing.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("briefing", "0010_inbox_facts"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="project",
            index=models.Index(fields=["created_at", "id"], name="project_created"),
        ),
        migrations.AddIndex(
            model_name="project",
            index=models.Index(fields=["completed_at", "id"], name="project_completed"),
        ),
    ]
