"""Lead types: the catalogue of intents and products a lead card is read with, edited in the
admin. Seeds the production studio's catalogue (the default CRM_LEAD_TYPE) and the first
seed's car dealer one; leads read before are marked as the dealer's, whose words they hold."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models

from crm.catalogue_seed import SEEDED

TERM_FIELDS = ("code", "label", "description")


def seed_catalogues(apps, schema_editor) -> None:
    LeadType = apps.get_model("crm", "LeadType")
    LeadIntent = apps.get_model("crm", "LeadIntent")
    LeadProduct = apps.get_model("crm", "LeadProduct")
    for data in SEEDED.values():
        lead_type, created = LeadType.objects.get_or_create(
            code=data["code"], defaults={"name": data["name"], "business": data["business"]}
        )
        if not created:  # an administrator's catalogue of that code stays as it is
            continue
        for model, terms in ((LeadIntent, data["intents"]), (LeadProduct, data["products"])):
            for position, term in enumerate(terms):
                fields = {name: term.get(name, "") for name in TERM_FIELDS}
                words = {
                    f"words_{lang}": "\n".join(term.get(lang, ())) for lang in ("ru", "uk", "en")
                }
                if model is LeadIntent:
                    fields |= {
                        "fallback": term.get("fallback", False),
                        "product_only": term.get("product_only", False),
                        "reads_product": term.get("reads_product", True),
                    }
                model.objects.create(lead_type=lead_type, position=position, **fields, **words)
    Lead = apps.get_model("crm", "Lead")
    Lead.objects.filter(lead_type="").update(lead_type="dealer")


def unseed_catalogues(apps, schema_editor) -> None:
    apps.get_model("crm", "LeadType").objects.filter(code__in=list(SEEDED)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("crm", "0002_inbound_attempts"),
    ]

    operations = [
        migrations.CreateModel(
            name="LeadType",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("code", models.SlugField(unique=True)),
                ("name", models.CharField(max_length=200)),
                (
                    "business",
                    models.CharField(
                        help_text='Who the messages are written to, for the model\'s prompt: "a video and content production studio".',
                        max_length=300,
                    ),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "ordering": ["code"],
            },
        ),
        migrations.AddField(
            model_name="lead",
            name="lead_type",
            field=models.CharField(blank=True, max_length=50),
        ),
        migrations.AlterField(
            model_name="lead",
            name="client_intent",
            field=models.CharField(db_index=True, max_length=50),
        ),
        migrations.AlterField(
            model_name="lead",
            name="product_class",
            field=models.CharField(blank=True, db_index=True, max_length=200),
        ),
        migrations.CreateModel(
            name="LeadProduct",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "code",
                    models.CharField(
                        max_length=50,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[\\w][\\w .-]*$",
                                "letters, digits, spaces, dots, hyphens and underscores only",
                            )
                        ],
                    ),
                ),
                ("label", models.CharField(max_length=100)),
                ("description", models.CharField(blank=True, max_length=300)),
                (
                    "words_ru",
                    models.TextField(
                        blank=True,
                        help_text='One word or phrase a line, in its dictionary form ("ролик" also finds "ролика"); a word ending in * is a stem ("анимаци*"); a word in capitals matches only capitals ("КП").',
                        verbose_name="words (Russian)",
                    ),
                ),
                (
                    "words_uk",
                    models.TextField(
                        blank=True,
                        help_text='One word or phrase a line, in its dictionary form ("ролик" also finds "ролика"); a word ending in * is a stem ("анимаци*"); a word in capitals matches only capitals ("КП").',
                        verbose_name="words (Ukrainian)",
                    ),
                ),
                (
                    "words_en",
                    models.TextField(
                        blank=True,
                        help_text='One word or phrase a line, in its dictionary form ("ролик" also finds "ролика"); a word ending in * is a stem ("анимаци*"); a word in capitals matches only capitals ("КП").',
                        verbose_name="words (English)",
                    ),
                ),
                (
                    "position",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Tried in this order: the first that matches a message wins.",
                    ),
                ),
                (
                    "lead_type",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="products",
                        to="crm.leadtype",
                    ),
                ),
            ],
            options={
                "ordering": ["position", "id"],
                "abstract": False,
                "constraints": [
                    models.UniqueConstraint(
                        fields=("lead_type", "code"), name="lead_product_code_unique"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="LeadIntent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "code",
                    models.CharField(
                        max_length=50,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[\\w][\\w .-]*$",
                                "letters, digits, spaces, dots, hyphens and underscores only",
                            )
                        ],
                    ),
                ),
                ("label", models.CharField(max_length=100)),
                ("description", models.CharField(blank=True, max_length=300)),
                (
                    "words_ru",
                    models.TextField(
                        blank=True,
                        help_text='One word or phrase a line, in its dictionary form ("ролик" also finds "ролика"); a word ending in * is a stem ("анимаци*"); a word in capitals matches only capitals ("КП").',
                        verbose_name="words (Russian)",
                    ),
                ),
                (
                    "words_uk",
                    models.TextField(
                        blank=True,
                        help_text='One word or phrase a line, in its dictionary form ("ролик" also finds "ролика"); a word ending in * is a stem ("анимаци*"); a word in capitals matches only capitals ("КП").',
                        verbose_name="words (Ukrainian)",
                    ),
                ),
                (
                    "words_en",
                    models.TextField(
                        blank=True,
                        help_text='One word or phrase a line, in its dictionary form ("ролик" also finds "ролика"); a word ending in * is a stem ("анимаци*"); a word in capitals matches only capitals ("КП").',
                        verbose_name="words (English)",
                    ),
                ),
                (
                    "position",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Tried in this order: the first that matches a message wins.",
                    ),
                ),
                (
                    "fallback",
                    models.BooleanField(
                        default=False,
                        help_text="Read when nothing else is; with nothing else to act on, the message goes to the human queue. One per lead type.",
                    ),
                ),
                (
                    "product_only",
                    models.BooleanField(
                        default=False,
                        help_text="Read when a message names a product and no intent's words. One per type.",
                        verbose_name="when only a product is named",
                    ),
                ),
                (
                    "reads_product",
                    models.BooleanField(
                        default=True,
                        help_text="Off where a product named is not what the client asks for (a job applicant's skill, a spammer's offer).",
                    ),
                ),
                (
                    "lead_type",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="intents",
                        to="crm.leadtype",
                    ),
                ),
            ],
            options={
                "ordering": ["position", "id"],
                "abstract": False,
                "constraints": [
                    models.UniqueConstraint(
                        fields=("lead_type", "code"), name="lead_intent_code_unique"
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("fallback", True)),
                        fields=("lead_type",),
                        name="lead_intent_one_fallback",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("product_only", True)),
                        fields=("lead_type",),
                        name="lead_intent_one_product_only",
                    ),
                ],
            },
        ),
        migrations.RunPython(seed_catalogues, unseed_catalogues),
    ]
