"""Forms of the studio's back-office pages: a rate card service, a portfolio work and a
calendar period, each input labelled in the back office's language and each error at its
field in words (the model's own messages would name "Rate card item" and a constraint)."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from studio.models import CalendarPeriod, Currency, PortfolioItem, RateCardItem

# The first and last year a work of the portfolio may have.
YEAR_MIN, YEAR_MAX = 1950, 2100


class AmountField(forms.IntegerField):
    """A whole amount as people type it, digits grouped or not: "1 200 000" (a text input:
    a number input takes no spaces)."""

    widget = forms.TextInput(attrs={"inputmode": "numeric"})

    def to_python(self, value: Any) -> int | None:
        if isinstance(value, str):
            value = re.sub(r"[\s\u00a0\u202f_]", "", value)
        return super().to_python(value)


class RateCardItemForm(forms.ModelForm):
    class Meta:
        model = RateCardItem
        fields = [
            "title", "code", "kind", "unit", "price_min", "price_max", "currency",
            "price_factors", "production_days", "keywords", "active", "order",
        ]  # fmt: skip
        labels = {
            "title": _("Service"),
            "code": _("Code"),
            "kind": _("Kind of work"),
            "unit": _("Unit"),
            "price_min": _("Lowest price"),
            "price_max": _("Highest price"),
            "currency": _("Currency"),
            "price_factors": _("What changes the price"),
            "production_days": _("Working days from start to delivery"),
            "keywords": _("Words clients use for it"),
            "active": _("Quoted to clients"),
            "order": _("Position in the list"),
        }
        help_texts = {
            "code": _("Latin letters, digits and hyphens: the API names the service by it."),
            "kind": _("video, animation, event, photo, …"),
            "unit": _("What the price is for: a video up to 60 seconds, a shooting day"),
            "keywords": _(
                "Russian, Ukrainian and English words separated by spaces; a * ends a stem: "
                "реклам* ролик* commercial*"
            ),
            "price_factors": "",  # the label says it (the model's help text is not translated)
        }
        error_messages = {
            "code": {"unique": _("A service with this code is already on the rate card.")},
        }
        widgets = {"price_factors": forms.Textarea(attrs={"rows": 3})}
        field_classes = {"price_min": AmountField, "price_max": AmountField}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The codes as they are written (the model's choices read "Rub", "Usd").
        self.fields["currency"].choices = [(code, code) for code in Currency.values]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        low, high = data.get("price_min"), data.get("price_max")
        if low is not None and high is not None and low > high:
            self.add_error("price_max", _("The highest price is below the lowest."))
        return data


class TagsField(forms.CharField):
    """A portfolio work's tags typed as one line, separated by commas."""

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return ", ".join(str(tag) for tag in value)
        return value

    def to_python(self, value: Any) -> list[str]:
        text = super().to_python(value)
        return list(dict.fromkeys(tag.strip() for tag in text.split(",") if tag.strip()))


class PortfolioItemForm(forms.ModelForm):
    tags = TagsField(
        required=False,
        max_length=500,
        label=_("Tags"),
        help_text=_("Separated by commas: the tools find similar works by them."),
    )
    year = forms.IntegerField(min_value=YEAR_MIN, max_value=YEAR_MAX, label=_("Year"))
    link = forms.URLField(
        required=False,
        max_length=200,
        assume_scheme="https",
        label=_("Link"),
        widget=forms.URLInput(attrs={"placeholder": "https://"}),
    )

    class Meta:
        model = PortfolioItem
        fields = ["title", "client", "kind", "year", "tags", "link", "may_be_shown", "description"]
        labels = {
            "title": _("Title"),
            "client": _("Client"),
            "kind": _("Kind of work"),
            "may_be_shown": _("May be shown to clients"),
            "description": _("Description"),
        }
        help_texts = {
            "kind": _("video, animation, event, photo, …"),
            "may_be_shown": _("Unticked (a work under an NDA): never offered to a client."),
        }
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        title, year = data.get("title"), data.get("year")
        if title and year is not None:
            taken = PortfolioItem.objects.filter(title=title, year=year)
            if self.instance.pk:
                taken = taken.exclude(pk=self.instance.pk)
            if taken.exists():
                self.add_error("title", _("A work with this title and year is already there."))
        return data


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self) -> None:
        super().__init__(format="%Y-%m-%d")


class CalendarPeriodForm(forms.ModelForm):
    class Meta:
        model = CalendarPeriod
        fields = ["starts_on", "ends_on", "status", "note"]
        labels = {
            "starts_on": _("First day"),
            "ends_on": _("Last day"),
            "status": _("Status"),
            "note": _("Note"),
        }
        help_texts = {"status": _("Tentative: pencilled in, not confirmed yet.")}
        widgets = {"starts_on": DateInput(), "ends_on": DateInput()}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        first, last = data.get("starts_on"), data.get("ends_on")
        if first and last and first > last:
            self.add_error("ends_on", _("The last day is before the first."))
        return data


FORMS: dict[type, type[forms.ModelForm]] = {
    RateCardItem: RateCardItemForm,
    PortfolioItem: PortfolioItemForm,
    CalendarPeriod: CalendarPeriodForm,
}
