"""The studio's data in the admin: rate card, portfolio, production calendar."""

from django.contrib import admin

from studio.models import CalendarPeriod, PortfolioItem, RateCardItem


@admin.register(RateCardItem)
class RateCardItemAdmin(admin.ModelAdmin):
    list_display = ["title", "kind", "unit", "price_min", "price_max", "currency", "active"]
    list_filter = ["kind", "currency", "active"]
    search_fields = ["code", "title", "keywords", "price_factors"]


@admin.register(PortfolioItem)
class PortfolioItemAdmin(admin.ModelAdmin):
    list_display = ["title", "client", "kind", "year", "may_be_shown"]
    list_filter = ["kind", "year", "may_be_shown"]
    search_fields = ["title", "client", "description"]


@admin.register(CalendarPeriod)
class CalendarPeriodAdmin(admin.ModelAdmin):
    list_display = ["starts_on", "ends_on", "status", "note", "source"]
    list_filter = ["status", "source"]
    search_fields = ["note", "external_id"]
    date_hierarchy = "starts_on"
