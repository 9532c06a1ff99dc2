"""Fixtures for the webhook tests: subscriptions with a live local receiver behind them, and
a network that resolves names from a table and lets connections reach loopback only."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field

import pytest

from tests.webhooks.receiver import Receiver
from webhooks.models import WebhookSubscription

# A public address for names that must look like the outside world; nothing connects to it
# in these tests (the network below would fail the test first).
PUBLIC_ADDRESS = "93.184.215.14"


@dataclass
class Network:
    """`names` is the DNS: a name's addresses, or a callable giving them per lookup (a
    rebinding). Every lookup and every connection is recorded."""

    names: dict[str, list[str] | Callable[[], list[str]]] = field(default_factory=dict)
    lookups: list[str] = field(default_factory=list)
    connections: list[tuple[str, int]] = field(default_factory=list)


@pytest.fixture(autouse=True)
def network(monkeypatch) -> Network:
    """No test here asks a real DNS server or connects beyond loopback: a name is answered
    from `network.names` (unknown: it does not resolve), an IP literal as itself, and a
    connection to anything but loopback fails the test."""
    fake = Network(names={"planner.example": [PUBLIC_ADDRESS]})
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.create_connection

    def getaddrinfo(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        try:
            ipaddress.ip_address(name.split("%")[0])
        except ValueError:
            if re.fullmatch(r"[0-9a-fA-FxX.]+", name):  # "2130706433", "0177.0.0.1"
                try:  # read as the C resolver reads them, without asking anyone
                    name = socket.inet_ntoa(socket.inet_aton(name))
                    return real_getaddrinfo(name, port, *args, **kwargs)
                except OSError:
                    pass
            fake.lookups.append(name)
            if name not in fake.names:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
            answer = fake.names[name]
            addresses = answer() if callable(answer) else answer
            return [
                (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "",
                 (a, port) if ":" not in a else (a, port, 0, 0))
                for a in addresses
            ]  # fmt: skip
        return real_getaddrinfo(host, port, *args, **kwargs)

    def create_connection(address, *args, **kwargs):
        host, port = address[0], address[1]
        fake.connections.append((host, port))
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:  # a name: resolved again now, not at the address checked
            raise AssertionError(f"a connection to {host}:{port} by name") from None
        if not loopback:
            raise AssertionError(f"a test tried to connect to {host}:{port}")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    return fake


@pytest.fixture
def receivers_allowed(settings) -> None:
    """The local receivers live on 127.0.0.1: an internal host, allowed by name."""
    settings.WEBHOOK_ALLOWED_INTERNAL_HOSTS = ["127.0.0.1"]


@pytest.fixture
def hook(db, receivers_allowed) -> Iterator:
    """`hook(500, 200)`: a running receiver answering with those codes, and an active
    subscription to it whose (generated) secret the receiver verifies with."""
    with ExitStack() as stack:

        def make(
            *codes: int, kinds=("lead.created",), active=True, name="CRM sync", error_body=b"nope"
        ):
            receiver = stack.enter_context(Receiver(*codes, error_body=error_body))
            subscription = WebhookSubscription(
                name=name, url=receiver.url(), event_kinds=list(kinds), active=active
            )
            subscription.full_clean()
            subscription.save()
            receiver.secret = subscription.secret
            return subscription, receiver

        yield make


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A bare receiver on 127.0.0.1 answering 200, for subscriptions a test makes itself."""
    with Receiver(200) as running:
        yield running


@pytest.fixture
def run_on_commit(django_capture_on_commit_callbacks):
    """Run a write and then what it queued after commit (eager Celery: the sends happen)."""

    def run(write, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return write(*args, **kwargs)

    return run
