"""Which URLs and addresses may be called on a merchant's behalf (webhooks, callback URLs): an
absolute http(s) URL whose address is public, never a cloud's metadata address; loopback and
private addresses only where the caller allows them. Checked on the URL given to the API, and by
the guarded transport (webhooks/transport.py) on the address each call connects to."""

import ipaddress
import re
import socket
from urllib.parse import urlsplit

from django.utils.translation import gettext_noop

from core.errors import TranslatableError

# The clouds' instance metadata services, refused whatever WEBHOOK_ALLOW_PRIVATE_NETWORKS says:
# AWS, GCP, Azure, DigitalOcean, OpenStack and most others (169.254.169.254), AWS over IPv6
# (fd00:ec2::254), Alibaba Cloud (100.100.100.200) and Oracle Cloud (192.0.0.192). Only the first
# is link-local: the others are private or shared ranges that development may open.
METADATA_ADDRESSES = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),
    ipaddress.ip_address("192.0.0.192"),
}

NAT64_PREFIX = ipaddress.ip_network("64:ff9b::/96")  # an IPv4 address behind a NAT64 gateway

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class DestinationRefused(TranslatableError):
    """The URL may not be called at all; trying again will not help. Said in English in the
    delivery log, in the request's language when a URL given to the API is refused."""


NOT_HTTP_URL = gettext_noop("the URL is not an absolute http(s) URL")


ALWAYS_REFUSED = (
    ("is_link_local", gettext_noop("a link-local address")),
    ("is_multicast", gettext_noop("a multicast address")),
    ("is_unspecified", gettext_noop("an unspecified address")),
)

THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")  # "this host on this network": never a destination


def forbidden_reason(address: IpAddress, *, allow_private: bool = False) -> str | None:
    """Why a delivery may not connect to `address`, or None when it may. Loopback and private
    addresses pass only with `allow_private`; metadata, link-local, multicast, unspecified and
    reserved addresses never do. (The order matters: Python counts link-local and reserved
    ranges as private too, and ::1 as reserved.)"""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in NAT64_PREFIX:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return forbidden_reason(embedded, allow_private=allow_private)
    if address in METADATA_ADDRESSES:
        return gettext_noop("a cloud metadata address")
    if address.version == 4 and address in THIS_NETWORK:
        return gettext_noop("an unspecified address")
    for check, label in ALWAYS_REFUSED:
        if getattr(address, check):
            return label
    if address.is_loopback:
        return None if allow_private else gettext_noop("a loopback address")
    if address.is_reserved:
        return gettext_noop("a reserved address")
    # IPv6 site-local (fec0::/10): deprecated, still routed inside some networks, and counted
    # neither private nor reserved by Python.
    if address.is_private or getattr(address, "is_site_local", False):
        return None if allow_private else gettext_noop("a private address")
    if not address.is_global:
        return None if allow_private else gettext_noop("not a public address")
    return None


def split_url(url: str) -> tuple[str, str, int]:
    """The scheme, host and port a delivery to `url` would use. The host is lowercased, without
    a trailing dot or IPv6 brackets. Raises DestinationRefused for anything that is not an
    absolute http(s) URL with a host and a valid port, so a malformed URL is refused, never a
    crash."""
    if not isinstance(url, str) or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise DestinationRefused(NOT_HTTP_URL)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise DestinationRefused(
            gettext_noop("the URL cannot be read (%(error)s)"), error=str(exc)
        ) from None
    if parts.scheme not in ("http", "https"):
        raise DestinationRefused(NOT_HTTP_URL)
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise DestinationRefused(gettext_noop("the URL has no host"))
    if port == 0:
        raise DestinationRefused(gettext_noop("the URL's port is out of range"))
    return parts.scheme, host, port or (443 if parts.scheme == "https" else 80)


def literal_address(host: str) -> IpAddress | None:
    """The address `host` names when it is an IP literal, in any spelling a resolver accepts:
    dotted-decimal, but also one number (2852039166), hexadecimal or octal parts
    (0xa9.0xfe.0xa9.0xfe), or fewer parts (127.1). A host whose last label is a number is an IPv4
    address or nothing (as browsers read it); such a host that is not one is refused."""
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    last = host.rstrip(".").rsplit(".", 1)[-1]
    if not (last.isdigit() or re.fullmatch(r"0x[0-9a-f]*", last)):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        raise DestinationRefused(
            gettext_noop("%(host)s is not a valid IPv4 address"), host=host
        ) from None


def url_refusal(url: str, *, allow_private: bool) -> DestinationRefused | None:
    """Why `url` is refused before any lookup: it cannot be read, or its host is an IP literal
    that may not be called (a host name is checked when it is called). None when nothing is
    known against it."""
    try:
        _, host, _ = split_url(url)
        address = literal_address(host)
    except DestinationRefused as exc:
        return exc
    if address is None:
        return None
    reason = forbidden_reason(address, allow_private=allow_private)
    return (
        DestinationRefused(gettext_noop("%(host)s is %(reason)s"), host=host, reason=reason)
        if reason
        else None
    )
