"""Login throttling on both login pages (django-axes): wrong passwords for one user name from
one address lock that pair out for a while, the right password included."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from config.client_ip import client_ip

pytestmark = pytest.mark.django_db

PAGES = {"back office": "/login/", "admin": "/admin/login/"}
ATTACKER = "203.0.113.7"
PASSWORD = "right horse battery staple"


@pytest.fixture(autouse=True)
def lockout_on(settings):
    # Off for the rest of the suite (tests/settings.py); here as configured by default.
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    settings.LOGIN_TRUSTED_PROXIES = 0


@pytest.fixture
def boss():
    return get_user_model().objects.create_superuser("boss", password=PASSWORD)


def attempt(client, url, password, *, username="boss", ip=ATTACKER, **headers):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=ip, **headers)


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize("url", PAGES.values(), ids=PAGES.keys())
def test_forty_wrong_passwords_then_the_right_one_is_refused(client, boss, url):
    for n in range(40):
        attempt(client, url, f"guess-{n}")
    response = attempt(client, url, PASSWORD)
    assert response.status_code == 429
    assert not logged_in(client)


@pytest.mark.parametrize("url", PAGES.values(), ids=PAGES.keys())
def test_a_normal_login_still_works(client, boss, url):
    response = attempt(client, url, PASSWORD)
    assert response.status_code == 302
    assert logged_in(client)


@pytest.mark.parametrize("url", PAGES.values(), ids=PAGES.keys())
def test_the_lockout_starts_at_the_failure_limit(client, boss, url):
    answers = [attempt(client, url, "wrong").status_code for _ in range(5)]
    assert answers == [200, 200, 200, 200, 429]


def test_fewer_wrong_passwords_than_the_limit_still_let_the_right_one_in(client, boss):
    for _ in range(4):
        attempt(client, "/login/", "wrong")
    assert attempt(client, "/login/", PASSWORD).status_code == 302
    # A success clears the count: four more mistakes do not lock the user out either.
    client.logout()
    for _ in range(4):
        attempt(client, "/login/", "wrong")
    assert attempt(client, "/login/", PASSWORD).status_code == 302


def test_the_lockout_page_says_what_happened_in_the_back_offices_style(client, boss):
    for _ in range(5):
        response = attempt(client, "/login/", "wrong")
    page = response.content.decode()
    assert response.status_code == 429
    assert "Too many failed log-ins" in page
    assert "After 5 wrong passwords for <strong>boss</strong>" in page
    assert "logging in is paused for 15 minutes" in page
    assert "/static/css/app.css" in page


def test_a_lockout_on_one_page_holds_on_the_other(client, boss):
    for _ in range(5):
        attempt(client, "/login/", "wrong")
    assert attempt(client, "/admin/login/", PASSWORD).status_code == 429
    assert not logged_in(client)


def test_the_lockout_is_per_name_and_address(client, boss):
    """One attacker cannot lock everybody out: the same name from another address, and
    another name from the attacker's address, still log in."""
    get_user_model().objects.create_user("prod", password=PASSWORD)
    for _ in range(40):
        attempt(client, "/login/", "wrong")
    assert attempt(client, "/login/", PASSWORD, ip="198.51.100.20").status_code == 302
    client.logout()
    assert attempt(client, "/login/", PASSWORD, username="prod").status_code == 302


def test_a_forged_forwarded_for_header_does_not_escape_the_lockout(client, boss):
    for n in range(40):
        attempt(client, "/login/", "wrong", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    response = attempt(client, "/login/", PASSWORD, HTTP_X_FORWARDED_FOR="10.0.1.1")
    assert response.status_code == 429


def test_the_lockout_ends_after_the_cool_off(client, boss):
    for _ in range(5):
        attempt(client, "/login/", "wrong")
    assert attempt(client, "/login/", PASSWORD).status_code == 429
    # Sixteen minutes later (the attempts' clock turned back rather than the test waiting).
    AccessAttempt.objects.update(attempt_time=AccessAttempt.objects.get().attempt_time
                                 - timedelta(minutes=16))  # fmt: skip
    assert attempt(client, "/login/", PASSWORD).status_code == 302


def test_an_administrator_unlocks_by_deleting_the_attempts(client, boss):
    for _ in range(5):
        attempt(client, "/login/", "wrong")
    AccessAttempt.objects.filter(username="boss").delete()
    assert attempt(client, "/login/", PASSWORD).status_code == 302


def test_behind_trusted_proxies_the_address_is_the_one_the_outermost_proxy_saw(settings):
    factory = RequestFactory()
    request = factory.get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7, 10.0.0.1"
    )
    assert client_ip(request) == "10.0.0.2"
    settings.LOGIN_TRUSTED_PROXIES = 2
    # 1.2.3.4 is whatever the client claimed; the first proxy appended 203.0.113.7.
    assert client_ip(request) == "203.0.113.7"
    settings.LOGIN_TRUSTED_PROXIES = 4
    assert client_ip(request) == "10.0.0.2"  # fewer hops than proxies: not from the proxies
