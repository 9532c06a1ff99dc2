"""Where a webhook may be sent: the target's host is resolved and every address checked, so
that a subscription cannot make the platform post into its own network (loopback,
link-local, private, unspecified addresses) unless the host is named in
WEBHOOK_ALLOWED_INTERNAL_HOSTS; a delivery then connects to the address that was checked.

A host is read as the resolver would read it, so the spellings that reach 127.0.0.1 without
saying so are caught too: "2130706433", "0177.0.0.1", "0x7f.1", "127.1", "[::ffff:127.0.0.1]",
"[::127.0.0.1]", 6to4 and NAT64 wrappings of a private address."""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError

from core.errors import ApplicationError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Characters of a numeric IPv4 spelling that inet_aton accepts (decimal, octal, hex, short).
_NUMERIC_HOST = re.compile(r"[0-9a-fA-FxX.]+")
_COMPAT = ipaddress.IPv6Network("::/96")  # deprecated IPv4-compatible ::a.b.c.d
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT
_PRIVATE = [
    ipaddress.ip_network(network)
    for network in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "fec0::/10")
]


class TargetRefused(ApplicationError):
    """The target is inside the network and not allowed: nothing is sent there."""


class TargetUnresolved(ApplicationError):
    """The host has no address now (perhaps later: a delivery is retried)."""


@dataclass(frozen=True)
class Target:
    """A webhook URL's host with the addresses it was checked against, in resolver order."""

    host: str
    port: int
    addresses: tuple[str, ...]


def host_of(url: str) -> tuple[str, int]:
    """(host in lower case without a trailing dot, port) of an http(s) URL."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise TargetUnresolved(f"the URL {url!r} names no host")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return host, port


def allowed_internal(host: str) -> bool:
    """Whether the settings name this host as an internal receiver on purpose."""
    allowed = {name.strip().strip("[]").rstrip(".").lower() for name in _allowed_hosts()}
    return host in allowed


def _allowed_hosts() -> list[str]:
    return list(getattr(settings, "WEBHOOK_ALLOWED_INTERNAL_HOSTS", []))


def literal_address(host: str) -> IPAddress | None:
    """The address a host spells directly, in any form the resolver accepts, else None."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _NUMERIC_HOST.fullmatch(host) and any(c.isdigit() for c in host):
        try:  # "2130706433", "0177.0.0.1", "0x7f.1", "127.1": what getaddrinfo makes of them
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def host_addresses(host: str, port: int) -> list[IPAddress]:
    """Every address the host has now: a literal one, or what the resolver answers."""
    literal = literal_address(host)
    if literal is not None:
        return [literal]
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise TargetUnresolved(f"{host} does not resolve ({error})") from error
    found = dict.fromkeys(ipaddress.ip_address(answer[4][0]) for answer in answers)
    if not found:
        raise TargetUnresolved(f"{host} has no address")
    return list(found)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries: mapped, compatible, 6to4 or NAT64."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _COMPAT and int(address) > 1:  # "::" and "::1" are themselves
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_refusal(address: IPAddress) -> str | None:
    """Why a webhook may not go to this address ("loopback", "private", ...), or None."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            inner = address_refusal(embedded)
            return f"{inner} (IPv4 {embedded} inside IPv6)" if inner else None
    if address.is_unspecified:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if any(address in network for network in _PRIVATE):
        return "private"
    if address in _SHARED:
        return "private (shared, carrier-grade NAT)"
    if address.is_reserved or address.is_private or not address.is_global:
        return "reserved"  # documentation, benchmarking, future use, protocol assignments
    return None


def target_check(url: str) -> Target:
    """Resolve the URL's host and check every address it has; raises TargetRefused when one
    of them is inside the network (and the host is not allowed by name), TargetUnresolved
    when it has none. A delivery connects only to the returned addresses."""
    host, port = host_of(url)
    allowed = allowed_internal(host)
    if not allowed and (host == "localhost" or host.endswith(".localhost")):
        raise TargetRefused(_refusal(host, None, "loopback"))
    addresses = host_addresses(host, port)
    if not allowed:
        for address in addresses:
            reason = address_refusal(address)
            if reason:
                raise TargetRefused(_refusal(host, address, reason))
    return Target(host=host, port=port, addresses=tuple(str(a) for a in addresses))


def _refusal(host: str, address: IPAddress | None, reason: str) -> str:
    kind, _, note = reason.partition(" (")
    what = f"a {kind} address" + (f" ({note}" if note else "")
    try:
        spelled: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        spelled = None  # a name, or a numeric spelling such as "2130706433"
    if address is None or spelled == address:
        where = f"{host} is {what}"
    else:
        where = f"{host} resolves to {address}, {what}"
    return (
        f"{where}: webhooks are not sent into the platform's own network. If this receiver "
        f"is internal on purpose, add {host} to WEBHOOK_ALLOWED_INTERNAL_HOSTS."
    )


def validate_webhook_target(url: str) -> None:
    """The save-time check of a subscription's URL. A host that does not resolve yet is let
    through: the delivery checks again, and refuses then if it must."""
    try:
        target_check(url)
    except TargetRefused as error:
        raise ValidationError(error.message, code="internal_target") from None
    except (TargetUnresolved, ValueError):  # a malformed URL is URLValidator's to report
        return
