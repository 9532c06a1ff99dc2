"""Each message counts its reading attempts (dead-lettered past CRM_MESSAGE_MAX_ATTEMPTS),
and a time stored before the entry points refused dates out of range (PostgreSQL held
9999-12-31T23:59:59-14:00, which is year 10000 in UTC and which Python cannot read back, so
the message's page and the admin list answered 500) becomes the time it was stored."""

from datetime import UTC, datetime

from django.db import migrations, models
from django.db.models import F, Q

# core.input's bounds when this was written (a migration keeps its own copy).
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(3000, 1, 1, tzinfo=UTC)


def dates_into_range(apps, schema_editor) -> None:
    # Compared and copied in the database: such a row cannot be loaded into Python.
    out_of_range = Q(received_at__lt=EARLIEST) | Q(received_at__gte=LATEST)
    InboundMessage = apps.get_model("crm", "InboundMessage")
    InboundMessage.objects.filter(out_of_range).update(received_at=F("created_at"))
    Lead = apps.get_model("crm", "Lead")
    Lead.objects.filter(Q(last_message_at__lt=EARLIEST) | Q(last_message_at__gte=LATEST)).update(
        last_message_at=F("created_at")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("crm", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="inboundmessage",
            name="attempts",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.RunPython(dates_into_range, migrations.RunPython.noop),
    ]
