"""Login throttling on both login pages (django-axes and config/login_throttle.py): wrong
passwords for one user name from one address pause that pair for a while, the right password
included; many user names from one address pause the address (password spraying); many
addresses at one user name make each attempt wait longer (distributed guessing), except from
an address where that name has logged in before."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.utils import timezone

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
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 20
    settings.LOGIN_USERNAME_FAILURE_LIMIT = 10
    settings.LOGIN_USERNAME_WINDOW = timedelta(hours=24)
    settings.LOGIN_USERNAME_MAX_DELAY = timedelta(minutes=15)
    settings.LOGIN_KNOWN_ADDRESS_AGE = timedelta(days=30)


class Clock:
    """The time the login throttling reads, standing still until a test moves it on, so a
    one-second wait is not over before the next request arrives on a slow machine."""

    def __init__(self) -> None:
        self.now = timezone.now()

    def __call__(self):
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    frozen = Clock()
    monkeypatch.setattr("axes.handlers.proxy.now", frozen)  # the attempt's time
    monkeypatch.setattr("django.utils.timezone.now", frozen)  # what the rows record
    return frozen


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


# --- Password spraying, distributed guessing, and the real user ---------------------------

SPRAYED = "Summer2024!"
HOME = "198.51.100.20"
BOTNET = [f"192.0.2.{n}" for n in range(1, 13)]


def test_one_password_sprayed_over_thirty_user_names_pauses_the_address(client, boss, clock):
    answers = [
        attempt(client, "/login/", SPRAYED, username=f"user{n}").status_code for n in range(30)
    ]
    assert answers == [200] * 19 + [429] * 11
    # The whole address waits, the right password included; the same name elsewhere does not.
    response = attempt(client, "/login/", PASSWORD)
    assert response.status_code == 429
    assert "After 20 wrong passwords from this address" in response.content.decode()
    assert response["Retry-After"] == str(15 * 60)
    assert attempt(client, "/admin/login/", PASSWORD, ip=HOME).status_code == 302
    client.logout()
    clock.advance(15 * 60)
    assert attempt(client, "/login/", PASSWORD).status_code == 302


def test_forty_eight_guesses_at_one_name_from_twelve_addresses_are_slowed(client, boss, clock):
    # Four from each address: under the limit per name and address.
    answers = [
        attempt(client, "/login/", f"guess-{n}", ip=BOTNET[n % 12]).status_code for n in range(48)
    ]
    assert answers == [200] * 9 + [429] * 39
    # A thirteenth address, the right password included, waits too: a second for now.
    response = attempt(client, "/admin/login/", PASSWORD, ip="192.0.2.99")
    assert response.status_code == 429
    assert response["Retry-After"] == "1"
    page = response.content.decode()
    assert "Many wrong passwords have been tried for <strong>boss</strong>" in page
    assert "Try again in 1 second." in page


def test_the_wait_per_user_name_doubles_with_each_wrong_password_up_to_a_cap(client, boss, clock):
    waits = []
    for n in range(24):
        response = attempt(client, "/login/", f"guess-{n}", ip=f"10.0.{n}.1")
        if response.status_code == 429:
            waits.append(int(response["Retry-After"]))
            clock.advance(waits[-1])
    assert waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900, 900, 900]


def test_guesses_elsewhere_do_not_slow_the_real_user_at_an_address_they_logged_in_from(
    client, boss, clock
):
    assert attempt(client, "/login/", PASSWORD, ip=HOME).status_code == 302
    client.logout()
    answers = [
        attempt(client, "/login/", f"guess-{n}", ip=BOTNET[n % 12]).status_code for n in range(48)
    ]
    assert 429 in answers
    assert attempt(client, "/login/", PASSWORD, ip=HOME).status_code == 302


def test_at_a_new_address_the_real_user_waits_no_longer_than_the_cap(client, boss, clock):
    wait = 0
    for n in range(30):  # the attacker paces the guesses to the wait, which reaches its cap
        clock.advance(wait)
        response = attempt(client, "/login/", f"guess-{n}", ip=f"10.0.{n}.1")
        wait = int(response.get("Retry-After", 0))
    response = attempt(client, "/login/", PASSWORD, ip=HOME)
    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert 0 < wait <= 15 * 60
    # Refused tries, the attacker's as much as the user's, do not make the wait any longer.
    for n in range(20):
        attempt(client, "/login/", f"more-{n}", ip=f"10.1.{n}.1")
        attempt(client, "/login/", PASSWORD, ip=HOME)
    clock.advance(wait)
    assert attempt(client, "/login/", PASSWORD, ip=HOME).status_code == 302


def test_a_successful_login_clears_its_own_failures_not_the_other_names_from_the_address(
    client, boss, clock
):
    get_user_model().objects.create_user("mole", password=PASSWORD)
    for n in range(15):
        attempt(client, "/login/", SPRAYED, username=f"user{n}")
    for _ in range(4):
        attempt(client, "/login/", "wrong", username="mole")
    assert attempt(client, "/login/", PASSWORD, username="mole").status_code == 302
    client.logout()
    # The attacker's own account cleared its four mistakes, not the fifteen sprayed names: the
    # twentieth failure from the address still pauses it.
    answers = [
        attempt(client, "/login/", SPRAYED, username=f"user{n}").status_code for n in range(15, 20)
    ]
    assert answers == [200, 200, 200, 200, 429]
