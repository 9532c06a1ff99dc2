"""Webhook targets inside the network (loopback, link-local, private, unspecified, in any
spelling) are refused when a subscription is saved and again when a delivery is sent, before
any connection; a host allowed by name gets its deliveries at the address that was checked.

No test connects beyond loopback: names resolve from the `network` fixture's table, and a
connection anywhere else fails the test."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

import pytest
from django.core.exceptions import ValidationError

from tests.webhooks.conftest import PUBLIC_ADDRESS
from webhooks.models import WebhookDelivery, WebhookSubscription
from webhooks.services import webhook_event_emit
from webhooks.targets import TargetRefused, address_refusal, target_check

pytestmark = pytest.mark.django_db

Status = WebhookDelivery.Status
KINDS = ["lead.created"]
# Names whose DNS answer points inside the network.
INTERNAL_NAMES = {
    "metadata.cloud.example": ["169.254.169.254"],
    "intranet.example": ["10.20.30.40"],
    "v6.intranet.example": ["fd00::10"],
    # One good address does not excuse a bad one: every answer is checked.
    "mixed.example": [PUBLIC_ADDRESS, "192.168.0.10"],
}
INTERNAL_URLS = [
    ("http://127.0.0.1/hooks", "loopback"),
    ("http://127.8.9.10:8080/hooks", "loopback"),
    ("http://localhost/hooks", "loopback"),
    ("http://LOCALHOST./hooks", "loopback"),
    ("http://api.localhost/hooks", "loopback"),
    ("http://[::1]/hooks", "loopback"),
    ("http://0.0.0.0:8000/hooks", "unspecified"),
    ("http://[::]/hooks", "unspecified"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://[fe80::1]/hooks", "link-local"),
    ("http://10.0.0.8/hooks", "private"),
    ("http://172.16.0.1/hooks", "private"),
    ("http://172.31.255.254/hooks", "private"),
    ("http://192.168.1.10/hooks", "private"),
    ("http://[fc00::5]/hooks", "private"),
    ("http://[fd12:3456:789a::1]/hooks", "private"),
    ("http://[::ffff:127.0.0.1]/hooks", "loopback"),
    ("http://[::ffff:a9fe:a9fe]/latest/meta-data/", "link-local"),  # 169.254.169.254
    ("http://[::ffff:10.0.0.1]/hooks", "private"),
    ("https://metadata.cloud.example/computeMetadata/v1/", "link-local"),
    ("https://intranet.example/hooks", "private"),
    ("https://v6.intranet.example/hooks", "private"),
    ("https://mixed.example/hooks", "private"),
]


def subscription_check(url: str) -> None:
    WebhookSubscription(name="planner", url=url, event_kinds=KINDS).full_clean()


def port_of(receiver) -> int:
    return urlsplit(receiver.url()).port


def emit(run_on_commit) -> WebhookDelivery:
    [delivery] = run_on_commit(webhook_event_emit, kind="lead.created", data={"lead_id": 1})
    delivery.refresh_from_db()
    return delivery


@pytest.mark.parametrize(("url", "reason"), INTERNAL_URLS)
def test_a_subscription_to_an_address_inside_the_network_is_refused_on_save(network, url, reason):
    network.names |= INTERNAL_NAMES
    with pytest.raises(ValidationError) as error:
        subscription_check(url)
    [message] = [m for m in error.value.message_dict["url"] if "a " + reason in m]
    assert f"a {reason} address" in message
    assert "add " in message
    assert "WEBHOOK_ALLOWED_INTERNAL_HOSTS" in message
    assert network.connections == []


def test_a_public_target_is_accepted_without_connecting(network):
    subscription_check("https://planner.example/hooks")
    subscription_check("http://[2a00:1450:4010:c0d::64]:8443/hooks")
    assert network.lookups == ["planner.example"]
    assert network.connections == []


def test_a_name_that_does_not_resolve_yet_is_saved_and_checked_again_at_delivery(network):
    subscription_check("https://hooks.not-yet.example/in")
    assert network.lookups == ["hooks.not-yet.example"]


@pytest.mark.parametrize(
    "host", ["2130706433", "017700000001", "0177.0.0.1", "0x7f.0.0.1", "0x7f000001", "127.1"]
)
def test_numeric_spellings_of_loopback_are_read_as_the_resolver_reads_them(network, host):
    with pytest.raises(TargetRefused, match=f"{host} resolves to 127.0.0.1, a loopback address"):
        target_check(f"http://{host}:8080/hooks")
    assert network.connections == []


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("169.254.169.254", "link-local"),
        ("10.255.255.53", "private"),
        ("172.20.1.1", "private"),
        ("192.168.0.1", "private"),
        ("100.64.0.1", "private (shared, carrier-grade NAT)"),
        ("224.0.0.251", "multicast"),
        ("240.0.0.1", "reserved"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fec0::1", "private"),
        ("fc00::1", "private"),
        ("::ffff:127.0.0.1", "loopback (IPv4 127.0.0.1 inside IPv6)"),
        ("::ffff:169.254.169.254", "link-local (IPv4 169.254.169.254 inside IPv6)"),
        ("::127.0.0.1", "loopback (IPv4 127.0.0.1 inside IPv6)"),  # IPv4-compatible
        ("64:ff9b::a00:1", "private (IPv4 10.0.0.1 inside IPv6)"),  # NAT64
        ("2002:a9fe:a9fe::1", "link-local (IPv4 169.254.169.254 inside IPv6)"),  # 6to4
        ("2001:db8::1", "reserved"),  # documentation
        ("8.8.8.8", None),
        (PUBLIC_ADDRESS, None),
        ("2a00:1450:4010:c0d::64", None),
        ("::ffff:8.8.8.8", None),
        ("64:ff9b::808:808", None),
    ],
)
def test_address_refusal_names_why(address, reason):
    assert address_refusal(ipaddress.ip_address(address)) == reason


def test_a_host_allowed_by_name_is_accepted_and_only_that_one(settings, network):
    network.names |= {"planner.corp": ["10.1.2.3"], "other.corp": ["10.1.2.4"]}
    settings.WEBHOOK_ALLOWED_INTERNAL_HOSTS = ["Planner.Corp", "127.0.0.1"]
    subscription_check("https://planner.corp/hooks")
    subscription_check("http://127.0.0.1:9000/hooks")
    for url in ("https://other.corp/hooks", "http://localhost:9000/hooks", "http://[::1]/h"):
        with pytest.raises(ValidationError, match="WEBHOOK_ALLOWED_INTERNAL_HOSTS"):
            subscription_check(url)


def test_a_loopback_receiver_gets_nothing_unless_its_host_is_allowed(
    receiver, network, run_on_commit, settings
):
    # Saved before the check existed (or through the ORM): the delivery checks again.
    WebhookSubscription.objects.create(name="self", url=receiver.url(), event_kinds=KINDS)
    delivery = emit(run_on_commit)
    assert receiver.received == []
    assert network.connections == []  # refused before connecting
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        Status.FAILED, 1, None,
    )  # fmt: skip
    assert "127.0.0.1 is a loopback address" in delivery.last_error
    assert delivery.attempt_log.get().error == delivery.last_error

    settings.WEBHOOK_ALLOWED_INTERNAL_HOSTS = ["127.0.0.1"]
    assert emit(run_on_commit).status == Status.DELIVERED
    assert len(receiver.received) == 1


def test_a_decimal_spelling_of_loopback_is_refused_at_delivery(
    receiver, network, run_on_commit, settings
):
    url = f"http://2130706433:{port_of(receiver)}/hooks"
    WebhookSubscription.objects.create(name="sneaky", url=url, event_kinds=KINDS)
    delivery = emit(run_on_commit)
    assert (delivery.status, receiver.received, network.connections) == (Status.FAILED, [], [])
    assert "2130706433 resolves to 127.0.0.1, a loopback address" in delivery.last_error
    # The spelling does reach the receiver when nothing stops it.
    settings.WEBHOOK_ALLOWED_INTERNAL_HOSTS = ["2130706433"]
    assert emit(run_on_commit).status == Status.DELIVERED
    assert len(receiver.received) == 1


def test_a_name_that_moved_inside_the_network_after_saving_is_refused_at_delivery(
    receiver, network, run_on_commit
):
    network.names["hooks.partner.example"] = [PUBLIC_ADDRESS]
    url = f"http://hooks.partner.example:{port_of(receiver)}/hooks"
    subscription_check(url)  # public when it was saved
    WebhookSubscription.objects.create(name="partner", url=url, event_kinds=KINDS)
    network.names["hooks.partner.example"] = ["127.0.0.1"]
    delivery = emit(run_on_commit)
    assert (delivery.status, delivery.attempts) == (Status.FAILED, 1)
    assert "hooks.partner.example resolves to 127.0.0.1, a loopback address" in (
        delivery.last_error
    )
    assert receiver.received == []
    assert network.connections == []


def test_a_name_that_does_not_resolve_at_delivery_is_retried(network, run_on_commit):
    WebhookSubscription.objects.create(
        name="gone", url="https://hooks.gone.example/in", event_kinds=KINDS
    )
    delivery = emit(run_on_commit)
    assert (delivery.status, delivery.last_status_code) == (Status.RETRYING, None)
    assert "hooks.gone.example does not resolve" in delivery.last_error
    assert network.connections == []


def test_an_allowed_host_is_connected_at_the_address_checked_not_at_a_second_answer(
    receiver, network, run_on_commit, settings
):
    """DNS rebinding: the name answers 127.0.0.1 when it is checked and 127.0.0.2 (where
    nothing listens) afterwards; the delivery still reaches the checked address, having
    asked the DNS once."""
    settings.WEBHOOK_ALLOWED_INTERNAL_HOSTS = ["planner.corp"]
    answers = iter([["127.0.0.1"]])
    network.names["planner.corp"] = lambda: next(answers, ["127.0.0.2"])
    port = port_of(receiver)
    WebhookSubscription.objects.create(
        name="planner", url=f"http://planner.corp:{port}/hooks", event_kinds=KINDS
    )
    delivery = emit(run_on_commit)
    assert delivery.status == Status.DELIVERED
    assert network.lookups == ["planner.corp"]
    assert network.connections == [("127.0.0.1", port)]
    [received] = receiver.received
    assert received.headers["host"] == f"planner.corp:{port}"
