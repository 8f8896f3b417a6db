"""Whether a URL's host is this machine's loopback interface: the one place plain ``http://``
is allowed (a registry token, a bundle download).

The host is an address, not a spelling: an IP literal is parsed with :mod:`ipaddress` and must
be a loopback address (``127.0.0.0/8``, ``::1``); the name ``localhost`` counts when every
address it resolves to (what the client would dial) is one.  Any other name is not loopback,
whatever it looks like (``127.evil.example``) or resolves to today: a name under someone
else's control can resolve elsewhere when the connection is made.  Spellings the resolver
would also read as an address (``127.1``, ``0x7f.0.0.1``, ``2130706433``) are not loopback
either (refused, never trusted).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

__all__ = ["is_loopback"]


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def _is_loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def is_loopback(url: str) -> bool:
    """Whether *url*'s host is a loopback address (see the module docstring)."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    address = _address(host)
    if address is not None:
        return _is_loopback(address)
    if host != "localhost":
        return False
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    addresses = [_address(str(info[4][0])) for info in found]
    return bool(addresses) and all(a is not None and _is_loopback(a) for a in addresses)
