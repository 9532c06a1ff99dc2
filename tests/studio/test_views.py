"""The studio's back-office pages (issue 27, item 10): the rate card, the portfolio and the
production calendar listed, added, changed and deleted by a producer holding the model's
permission, each change in the audit trail (who, when, old and new value), forms with
labelled inputs and their errors in place, CSRF, no JavaScript needed; linked from the
navigation for whoever may see them."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from studio.models import CalendarPeriod, PortfolioItem, RateCardItem, StudioChange
from studio.tools import PortfolioSearchArgs, RateCardQuoteArgs, portfolio_search, rate_card_quote

pytestmark = pytest.mark.django_db

SECTIONS = ["rate-card", "portfolio", "calendar"]
MODELS = {"rate-card": "ratecarditem", "portfolio": "portfolioitem", "calendar": "calendarperiod"}
TITLE_TAKEN = "A work with this title and year is already there."
RATE_CARD_POST = {
    "title": "Съёмка подкаста", "code": "podcast", "kind": "video", "unit": "выпуск",
    "price_min": "60 000", "price_max": "150000", "currency": "RUB", "price_factors": "",
    "production_days": "4", "keywords": "подкаст* podcast*", "active": "on", "order": "7",
}  # fmt: skip


def grant(user, *actions: str, sections=SECTIONS) -> None:
    codenames = [f"{action}_{MODELS[section]}" for action in actions for section in sections]
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="studio", codename__in=codenames)
    )


@pytest.fixture
def editor(producer):
    """A producer given every permission on the studio's data."""
    producer.first_name, producer.last_name = "Ольга", "Смирнова"
    producer.save()
    grant(producer, "view", "add", "change", "delete")
    return producer


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def service():
    return RateCardItem.objects.create(
        code="promo-video", title="Рекламный ролик", kind="video", unit="ролик",
        price_min=350_000, price_max=1_200_000, keywords="реклам* ролик*",
    )  # fmt: skip


@pytest.fixture
def work():
    return PortfolioItem.objects.create(
        title="Кофейня на углу", client="Ember Roasters", kind="video", year=2024,
        tags=["реклама", "кофе"], link="https://example.com/work/ember",
    )  # fmt: skip


@pytest.fixture
def period():
    return CalendarPeriod.objects.create(
        starts_on=datetime.date(2031, 3, 1), ends_on=datetime.date(2031, 3, 10), note="Сериал"
    )


def posted(form) -> dict[str, str]:
    """The form as a browser posts it back unchanged (an unticked box is left out)."""
    values = {name: form[name].value() for name in form.fields}
    return {
        name: "on" if value is True else str(value)
        for name, value in values.items()
        if value is not None and value is not False
    }


def urls(section: str, pk: int) -> list[tuple[str, str]]:
    """(method, url) of every page of a section."""
    return [
        ("get", reverse("studio:index")),
        ("get", reverse("studio:list", args=[section])),
        ("get", reverse("studio:new", args=[section])),
        ("post", reverse("studio:new", args=[section])),
        ("get", reverse("studio:edit", args=[section, pk])),
        ("post", reverse("studio:edit", args=[section, pk])),
        ("get", reverse("studio:delete", args=[section, pk])),
        ("post", reverse("studio:delete", args=[section, pk])),
    ]


# --- who may see and change the studio's data ----------------------------------------------------


@pytest.mark.parametrize("section", SECTIONS)
def test_a_producer_without_the_permission_is_refused_every_page(
    producer_client, section, service, work, period
):
    pk = {"rate-card": service.pk, "portfolio": work.pk, "calendar": period.pk}[section]
    for method, url in urls(section, pk):
        assert getattr(producer_client, method)(url).status_code == 403, (method, url)
    assert RateCardItem.objects.count() == PortfolioItem.objects.count() == 1
    assert CalendarPeriod.objects.count() == 1
    assert not StudioChange.objects.exists()


def test_anonymous_users_are_sent_to_log_in(client, service):
    for method, url in urls("rate-card", service.pk):
        response = getattr(client, method)(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_the_navigation_links_the_pages_for_whoever_may_see_them(client, producer):
    link = f'href="{reverse("studio:index")}"'
    client.force_login(producer)
    assert link not in client.get(reverse("dashboard")).content.decode()
    grant(producer, "view", sections=["portfolio"])
    producer = type(producer).objects.get(pk=producer.pk)  # a fresh permission cache
    client.force_login(producer)
    assert link in client.get(reverse("dashboard")).content.decode()
    index = client.get(reverse("studio:index")).content.decode()
    assert reverse("studio:list", args=["portfolio"]) in index
    assert reverse("studio:list", args=["rate-card"]) not in index


def test_who_may_only_see_gets_no_edit_links_and_no_edit_pages(client, producer, service):
    grant(producer, "view", sections=["rate-card"])
    client.force_login(producer)
    html = client.get(reverse("studio:list", args=["rate-card"])).content.decode()
    assert "Рекламный ролик" in html
    assert reverse("studio:edit", args=["rate-card", service.pk]) not in html
    assert reverse("studio:new", args=["rate-card"]) not in html
    assert client.get(reverse("studio:edit", args=["rate-card", service.pk])).status_code == 403
    assert client.post(reverse("studio:delete", args=["rate-card", service.pk])).status_code == 403


def test_deleting_needs_its_own_permission(client, producer, service):
    grant(producer, "view", "change", sections=["rate-card"])
    client.force_login(producer)
    edit = client.get(reverse("studio:edit", args=["rate-card", service.pk])).content.decode()
    assert reverse("studio:delete", args=["rate-card", service.pk]) not in edit
    assert client.post(reverse("studio:delete", args=["rate-card", service.pk])).status_code == 403
    assert RateCardItem.objects.filter(pk=service.pk).exists()


def test_an_unknown_section_or_row_is_not_found(editor_client, service):
    assert editor_client.get("/studio/clients/").status_code == 404
    assert editor_client.get(reverse("studio:edit", args=["portfolio", 999])).status_code == 404
    assert editor_client.post(reverse("studio:delete", args=["calendar", 999])).status_code == 404


# --- the rate card --------------------------------------------------------------------------------


def test_a_service_is_added_and_the_audit_trail_says_who_added_what(editor_client, editor):
    page = editor_client.get(reverse("studio:new", args=["rate-card"])).content.decode()
    for name in RATE_CARD_POST:
        assert f'<label for="id_{name}">' in page, name
    assert 'name="csrfmiddlewaretoken"' in page
    response = editor_client.post(reverse("studio:new", args=["rate-card"]), RATE_CARD_POST)
    assert response.status_code == 302
    assert response["Location"] == reverse("studio:list", args=["rate-card"])
    item = RateCardItem.objects.get(code="podcast")
    assert (item.price_min, item.price_max, item.active) == (60_000, 150_000, True)
    change = StudioChange.objects.get()
    assert (change.user, change.kind, change.section, change.item_id) == (
        editor, "created", "rate_card", item.pk,
    )  # fmt: skip
    assert change.changes["price_min"] == {"new": 60_000}
    listed = editor_client.get(response["Location"]).content.decode()
    assert "Съёмка подкаста" in listed
    assert "Ольга Смирнова" in listed  # the audit trail at the list's foot
    # The bot's tool quotes it from the next message on.
    quoted = rate_card_quote(RateCardQuoteArgs(query="подкаст"))
    assert quoted.matched
    assert [q.code for q in quoted.items] == ["podcast"]


def test_a_change_is_recorded_with_old_and_new_values(editor_client, editor, service):
    page = editor_client.get(reverse("studio:edit", args=["rate-card", service.pk]))
    assert 'value="1200000"' in page.content.decode()
    data = {**RATE_CARD_POST, "title": "Рекламный ролик", "code": "promo-video",
            "price_min": "350000", "price_max": "1 500 000", "active": ""}  # fmt: skip
    response = editor_client.post(reverse("studio:edit", args=["rate-card", service.pk]), data)
    assert response.status_code == 302
    service.refresh_from_db()
    assert (service.price_max, service.active) == (1_500_000, False)
    change = StudioChange.objects.get()
    assert (change.user, change.kind) == (editor, "changed")
    assert change.changes["price_max"] == {"old": 1_200_000, "new": 1_500_000}
    assert change.changes["active"] == {"old": True, "new": False}
    assert "title" not in change.changes
    html = editor_client.get(reverse("studio:edit", args=["rate-card", service.pk])).content
    assert "1200000 → 1500000" in html.decode()
    # A service no longer quoted to clients: the tool lists the rest of the card without it.
    RateCardItem.objects.create(code="clip", title="Клип", kind="music_video", unit="клип",
                                price_min=1, price_max=2, keywords="клип*")  # fmt: skip
    quoted = rate_card_quote(RateCardQuoteArgs(query="рекламный ролик"))
    assert (quoted.matched, [q.code for q in quoted.items]) == (False, ["clip"])


def test_saving_without_a_change_records_nothing(editor_client, service):
    page = editor_client.get(reverse("studio:edit", args=["rate-card", service.pk]))
    form = page.context["form"]
    data = posted(form)
    response = editor_client.post(reverse("studio:edit", args=["rate-card", service.pk]), data)
    assert response.status_code == 302
    assert not StudioChange.objects.exists()


def test_a_price_range_upside_down_is_shown_at_its_field_and_nothing_is_saved(editor_client):
    data = {**RATE_CARD_POST, "price_min": "500000", "price_max": "100000"}
    response = editor_client.post(reverse("studio:new", args=["rate-card"]), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "The highest price is below the lowest." in html
    assert response.context["form"].errors["price_max"]
    assert 'value="Съёмка подкаста"' in html  # what was typed stays
    assert not RateCardItem.objects.exists()
    assert not StudioChange.objects.exists()


def test_a_code_already_taken_is_refused_in_words(editor_client, service):
    data = {**RATE_CARD_POST, "code": "promo-video"}
    response = editor_client.post(reverse("studio:new", args=["rate-card"]), data)
    assert response.status_code == 400
    assert response.context["form"].errors["code"] == [
        "A service with this code is already on the rate card."
    ]
    assert RateCardItem.objects.count() == 1


def test_a_service_is_deleted_after_a_confirmation_and_its_values_are_kept(
    editor_client, editor, service
):
    url = reverse("studio:delete", args=["rate-card", service.pk])
    confirm = editor_client.get(url)
    assert confirm.status_code == 200
    assert "Рекламный ролик" in confirm.content.decode()
    assert RateCardItem.objects.filter(pk=service.pk).exists()  # a GET deletes nothing
    response = editor_client.post(url)
    assert response.status_code == 302
    assert not RateCardItem.objects.filter(pk=service.pk).exists()
    change = StudioChange.objects.get()
    assert (change.user, change.kind, change.item_label) == (editor, "deleted", "Рекламный ролик")
    assert change.changes["price_max"] == {"old": 1_200_000}


# --- the portfolio --------------------------------------------------------------------------------


def test_a_work_is_added_with_its_link_tags_and_may_be_shown(editor_client):
    data = {
        "title": "Форум «Цифра»", "client": "Минцифры", "kind": "event", "year": "2025",
        "tags": "мероприятие, конференция, , мероприятие", "link": "https://example.com/forum",
        "may_be_shown": "on", "description": "Съёмка форума",
    }  # fmt: skip
    response = editor_client.post(reverse("studio:new", args=["portfolio"]), data)
    assert response.status_code == 302
    item = PortfolioItem.objects.get()
    assert item.tags == ["мероприятие", "конференция"]
    assert (item.link, item.may_be_shown) == ("https://example.com/forum", True)
    listed = editor_client.get(reverse("studio:list", args=["portfolio"])).content.decode()
    assert 'href="https://example.com/forum"' in listed
    assert StudioChange.objects.get().changes["tags"] == {"new": ["мероприятие", "конференция"]}


def test_a_work_that_may_not_be_shown_is_no_longer_offered(editor_client, work):
    assert portfolio_search(PortfolioSearchArgs(query="реклама кофейни")).items
    page = editor_client.get(reverse("studio:edit", args=["portfolio", work.pk]))
    assert 'value="реклама, кофе"' in page.content.decode()
    data = {
        "title": work.title, "client": work.client, "kind": work.kind, "year": "2024",
        "tags": "реклама, кофе", "link": "https://example.com/work/ember-new", "description": "",
    }  # fmt: skip
    response = editor_client.post(reverse("studio:edit", args=["portfolio", work.pk]), data)
    assert response.status_code == 302
    work.refresh_from_db()
    assert (work.may_be_shown, work.link) == (False, "https://example.com/work/ember-new")
    assert not portfolio_search(PortfolioSearchArgs(query="реклама кофейни")).items
    change = StudioChange.objects.get()
    assert change.changes["may_be_shown"] == {"old": True, "new": False}
    listed = editor_client.get(reverse("studio:list", args=["portfolio"])).content.decode()
    assert "hidden from clients" in listed


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"title": "Кофейня на углу"},
            "title",
            "A work with this title and year is already there.",
        ),
        ({"link": "not a link"}, "link", "Enter a valid URL."),
        ({"year": "1200"}, "year", "Ensure this value is greater than or equal to 1950."),
        ({"title": ""}, "title", "This field is required."),
    ],
)
def test_a_work_with_an_error_is_shown_again_with_the_error_at_its_field(
    editor_client, work, changes, field, message
):
    data = {"title": "Новая работа", "kind": "video", "year": "2024", **changes}
    response = editor_client.post(reverse("studio:new", args=["portfolio"]), data)
    assert response.status_code == 400
    assert response.context["form"].errors[field] == [message]
    assert 'role="alert"' in response.content.decode()
    assert PortfolioItem.objects.count() == 1


# --- the production calendar ----------------------------------------------------------------------


def test_a_period_is_added_changed_and_deleted_each_in_the_audit_trail(editor_client, editor):
    data = {"starts_on": "2031-05-04", "ends_on": "2031-05-08", "status": "tentative",
            "note": "Фестиваль"}  # fmt: skip
    assert editor_client.post(reverse("studio:new", args=["calendar"]), data).status_code == 302
    period = CalendarPeriod.objects.get()
    assert (period.status, period.external_id) == ("tentative", "")
    listed = editor_client.get(reverse("studio:list", args=["calendar"])).content.decode()
    assert "2031-05-04" in listed
    assert "entered by hand" in listed
    data = {**data, "ends_on": "2031-05-12", "status": "busy"}
    url = reverse("studio:edit", args=["calendar", period.pk])
    assert 'value="2031-05-08"' in editor_client.get(url).content.decode()
    assert editor_client.post(url, data).status_code == 302
    assert editor_client.post(reverse("studio:delete", args=["calendar", period.pk])).status_code
    assert not CalendarPeriod.objects.exists()
    trail = list(StudioChange.objects.order_by("id").values_list("kind", "section", "user"))
    assert trail == [("created", "calendar", editor.pk), ("changed", "calendar", editor.pk),
                     ("deleted", "calendar", editor.pk)]  # fmt: skip
    changed = StudioChange.objects.get(kind="changed")
    assert changed.changes == {
        "ends_on": {"old": "2031-05-08", "new": "2031-05-12"},
        "status": {"old": "tentative", "new": "busy"},
    }
    assert changed.item_label == "2031-05-04 – 2031-05-12"
    edit = editor_client.get(reverse("studio:index")).content.decode()
    assert "tentative → busy" in edit  # the statuses' labels (translated), not their codes
    index = editor_client.get(reverse("studio:index")).content.decode()
    assert "2031-05-08 → 2031-05-12" in index


def test_a_period_ending_before_it_starts_is_refused_at_its_field(editor_client):
    data = {"starts_on": "2031-05-08", "ends_on": "2031-05-04", "status": "busy"}
    response = editor_client.post(reverse("studio:new", args=["calendar"]), data)
    assert response.status_code == 400
    assert response.context["form"].errors["ends_on"] == ["The last day is before the first."]
    assert '<label for="id_ends_on">' in response.content.decode()
    assert not CalendarPeriod.objects.exists()


# --- CSRF and the admin --------------------------------------------------------------------------


def test_a_post_without_the_csrf_token_is_refused(editor, service):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(editor)
    url = reverse("studio:delete", args=["rate-card", service.pk])
    assert browser.post(url).status_code == 403
    assert RateCardItem.objects.filter(pk=service.pk).exists()
    page = browser.get(url)
    token = page.context["csrf_token"]
    assert browser.post(url, {"csrfmiddlewaretoken": str(token)}).status_code == 302
    assert not RateCardItem.objects.filter(pk=service.pk).exists()


def test_an_edit_in_the_admin_is_in_the_audit_trail_too(admin_client, admin_user, service):
    url = reverse("admin:studio_ratecarditem_change", args=[service.pk])
    form = admin_client.get(url).context["adminform"].form
    data = posted(form)
    response = admin_client.post(url, {**data, "price_max": "1300000"})
    assert response.status_code == 302
    change = StudioChange.objects.get()
    assert (change.user, change.kind) == (admin_user, "changed")
    assert change.changes == {"price_max": {"old": 1_200_000, "new": 1_300_000}}
    admin_client.post(
        reverse("admin:studio_ratecarditem_changelist"),
        {"action": "delete_selected", "_selected_action": [service.pk], "post": "yes"},
    )
    assert not RateCardItem.objects.exists()
    assert StudioChange.objects.filter(kind="deleted", user=admin_user).count() == 1


def test_every_studio_page_renders_in_the_back_offices_language(
    editor_client, service, work, period
):
    """Each page's translations render (a broken blocktranslate fails here, not in use)."""
    pages = [reverse("studio:index")]
    for section, item in (("rate-card", service), ("portfolio", work), ("calendar", period)):
        pages += [
            reverse("studio:list", args=[section]),
            reverse("studio:new", args=[section]),
            reverse("studio:edit", args=[section, item.pk]),
            reverse("studio:delete", args=[section, item.pk]),
        ]
    for language in ("ru", "uk"):
        for url in pages:
            response = editor_client.get(url, HTTP_ACCEPT_LANGUAGE=language)
            assert response.status_code == 200, url
            assert f'<html lang="{language}">' in response.content.decode(), url
