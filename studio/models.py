"""The studio's rate card, portfolio and production calendar: the data its agents answer
price, similar-work and deadline questions from (studio.tools), edited on the back office
(studio.views, each change in the audit trail below) and pushed by the planning tools through
the API."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _


class Currency(models.TextChoices):
    RUB = "RUB"
    USD = "USD"
    EUR = "EUR"
    UAH = "UAH"


class RateCardItem(models.Model):
    """One service of the rate card: a price range per unit, and what moves it."""

    code = models.SlugField(_("code"), max_length=60, unique=True)
    title = models.CharField(_("title"), max_length=200)
    kind = models.CharField(
        _("kind"),
        max_length=40,
        help_text="The kind of work it prices: video, animation, photo, ...",
    )
    unit = models.CharField(
        _("unit"), max_length=60, help_text="What the price is for: a video, a day"
    )
    price_min = models.PositiveIntegerField(
        _("price from"),
    )
    price_max = models.PositiveIntegerField(
        _("price up to"),
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=Currency.choices, default=Currency.RUB
    )
    price_factors = models.TextField(
        _("price factors"), blank=True, help_text="What changes the price"
    )
    # Working days such a job usually takes from start to delivery (the calendar check's need).
    production_days = models.PositiveSmallIntegerField(default=15)
    # Words a client uses for this service (ru/uk/en, stems end in *), for the tools' matching.
    keywords = models.CharField(_("keywords"), max_length=400, blank=True)
    active = models.BooleanField(_("active"), default=True)
    order = models.PositiveSmallIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("rate card item")
        verbose_name_plural = _("rate card items")
        ordering = ["order", "code"]
        constraints = [
            models.CheckConstraint(
                condition=Q(price_min__lte=F("price_max")), name="rate_card_min_not_above_max"
            )
        ]

    def __str__(self) -> str:
        return self.title


class PortfolioItem(models.Model):
    """A finished work; only those with `may_be_shown` are ever offered to a client."""

    title = models.CharField(_("title"), max_length=200)
    client = models.CharField(_("client"), max_length=200, blank=True)
    kind = models.CharField(_("kind"), max_length=40)
    tags = models.JSONField(default=list, blank=True)
    year = models.PositiveSmallIntegerField(
        _("year"),
    )
    link = models.URLField(blank=True)
    may_be_shown = models.BooleanField(_("may be shown"), default=True)
    description = models.TextField(_("description"), blank=True)

    class Meta:
        verbose_name = _("portfolio item")
        verbose_name_plural = _("portfolio items")
        ordering = ["-year", "title"]
        constraints = [
            models.UniqueConstraint(fields=["title", "year"], name="portfolio_title_year_unique")
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.year})"


class CalendarPeriod(models.Model):
    """A stretch of the production calendar that is taken (busy) or pencilled (tentative).
    Planning tools push these through the API, keyed by their own id."""

    class Status(models.TextChoices):
        BUSY = "busy", _("busy")
        TENTATIVE = "tentative", _("tentative")

    starts_on = models.DateField(
        _("starts on"),
    )
    ends_on = models.DateField(
        _("ends on"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.BUSY
    )
    note = models.CharField(_("note"), max_length=200, blank=True)
    source = models.CharField(
        _("source"), max_length=60, default="admin", help_text="Who pushed it"
    )
    external_id = models.CharField(_("external ID"), max_length=100, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("calendar period")
        verbose_name_plural = _("calendar periods")
        ordering = ["starts_on", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(starts_on__lte=F("ends_on")), name="calendar_period_ordered"
            ),
            models.UniqueConstraint(
                fields=["source", "external_id"],
                condition=~Q(external_id=""),
                name="calendar_period_source_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.starts_on}–{self.ends_on} {self.status}"


class ClientSnapshot(models.Model):
    """What the studio knows about one client from earlier briefings, leads and works (the
    memory's daily horizon), keyed by a verified contact or the company. `text` is rendered
    by code, byte-for-byte the same for the same facts, so it can sit in the prompt's
    cacheable prefix; a producer may correct `facts` (the next rebuild renders them again
    unless `corrected` keeps them)."""

    key = models.CharField(
        _("client"), max_length=220, unique=True, help_text="company:… or contact:…"
    )
    facts = models.JSONField(default=dict)
    text = models.TextField(
        _("text"),
    )
    sources = models.JSONField(
        _("sources"), default=list, blank=True
    )  # ["project:12", "lead:4", "work:3"]
    corrected = models.BooleanField(
        _("corrected by a producer"), default=False, help_text="A producer's correction: kept"
    )
    rebuilt_at = models.DateTimeField(_("rebuilt"), auto_now=True)

    class Meta:
        verbose_name = _("client snapshot")
        verbose_name_plural = _("client snapshots")
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key


class MemoryItem(models.Model):
    """One line of what memory holds for a client (a fact, an earlier brief, a work), found
    per turn by full-text search over the client's own items (studio.memory)."""

    key = models.CharField(_("client"), max_length=220, db_index=True)
    text = models.TextField(
        _("text"),
    )
    source = models.CharField(_("source"), max_length=60, blank=True)

    class Meta:
        verbose_name = _("memory item")
        verbose_name_plural = _("memory items")
        ordering = ["key", "id"]

    def __str__(self) -> str:
        return f"{self.key}: {self.text[:60]}"


class StudioChange(models.Model):
    """The audit trail of the studio's data: who created, changed or deleted a service of the
    rate card, a work of the portfolio or a calendar period on the back office, when, and
    each field's old and new value. Written by studio.services only, never edited."""

    class Kind(models.TextChoices):
        CREATED = "created", _("created")
        CHANGED = "changed", _("changed")
        DELETED = "deleted", _("deleted")

    class Section(models.TextChoices):
        RATE_CARD = "rate_card", _("rate card")
        PORTFOLIO = "portfolio", _("portfolio")
        CALENDAR = "calendar", _("production calendar")

    at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("user"),
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    section = models.CharField(_("section"), max_length=12, choices=Section.choices)
    # The row's id and name, kept after the row is deleted.
    item_id = models.BigIntegerField()
    item_label = models.CharField(_("item"), max_length=300)
    # Field → {"old": …, "new": …}; a creation has only "new", a deletion only "old".
    changes = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = _("studio data change")
        verbose_name_plural = _("studio data changes")
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["section", "item_id"], name="studio_change_item")]

    def __str__(self) -> str:
        return f"{self.section} {self.item_id}: {self.kind}"
