"""A lead's budget in any currency (issue 29): `budget_rub` becomes `budget_amount` with a
`budget_currency`, every existing budget marked RUB (the only currency there was). The
studio's catalogue gains a "supplier" intent, and spam and suppliers are marked as no
request to the studio (no budget, term or call-back is read from them)."""

from django.db import migrations, models

from crm.catalogue_seed import STUDIO

NOT_REQUESTS = ("spam", "supplier")


def budgets_in_roubles(apps, schema_editor) -> None:
    Lead = apps.get_model("crm", "Lead")
    Lead.objects.filter(budget_amount__isnull=False).update(budget_currency="RUB")


def budgets_back(apps, schema_editor) -> None:
    # Going back keeps only what `budget_rub` could hold: rouble budgets.
    Lead = apps.get_model("crm", "Lead")
    Lead.objects.exclude(budget_currency="RUB").update(budget_amount=None)


def supplier_intent(apps, schema_editor) -> None:
    LeadType = apps.get_model("crm", "LeadType")
    LeadIntent = apps.get_model("crm", "LeadIntent")
    studio = LeadType.objects.filter(code=STUDIO["code"]).first()
    if studio is None:
        return
    seed = next(i for i in STUDIO["intents"] if i["code"] == "supplier")
    spam = LeadIntent.objects.filter(lead_type=studio, code="spam").first()
    if not LeadIntent.objects.filter(lead_type=studio, code="supplier").exists():
        # Right after spam (tried before a quote request: a pitch asks for a call too), or
        # first when an administrator removed spam.
        position = spam.position + 1 if spam else 0
        LeadIntent.objects.filter(lead_type=studio, position__gte=position).update(
            position=models.F("position") + 1
        )
        LeadIntent.objects.create(
            lead_type=studio, position=position, code="supplier", label=seed["label"],
            description=seed["description"], reads_product=False,
            **{f"words_{lang}": "\n".join(seed[lang]) for lang in ("ru", "uk", "en")},
        )  # fmt: skip
    LeadIntent.objects.filter(lead_type=studio, code__in=NOT_REQUESTS).update(is_request=False)


class Migration(migrations.Migration):
    dependencies = [
        ("crm", "0006_mailbox_poll"),
    ]

    operations = [
        migrations.RenameField(model_name="lead", old_name="budget_rub", new_name="budget_amount"),
        migrations.AddField(
            model_name="lead",
            name="budget_currency",
            field=models.CharField(blank=True, db_index=True, max_length=3),
        ),
        migrations.RunPython(budgets_in_roubles, budgets_back),
        migrations.AddField(
            model_name="leadintent",
            name="is_request",
            field=models.BooleanField(
                default=True,
                help_text="Off for messages that sell to the business (spam, a supplier's "
                "pitch): no budget, term or call-back is read from them.",
                verbose_name="a request to the business",
            ),
        ),
        migrations.RunPython(supplier_intent, migrations.RunPython.noop),
    ]
