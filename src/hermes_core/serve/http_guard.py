"""The door of ``--http`` (``hermes mcp serve``, ``hermes mcp proxy``): what a connection may
hold before it has shown a token, and which Host/Origin a loopback server answers.

* **DNS rebinding.**  Bound to any loopback address (``127.0.0.0/8``, ``::1``, ``localhost``),
  a request whose ``Host`` is not a loopback name or address (with any port) gets 421, one
  whose ``Origin`` is not ``http://`` such a host gets 403 — the SDK's checks, which it turns on
  by itself only for ``127.0.0.1``, ``localhost`` and ``::1``.  A server bound to another
  address is reached under names we cannot know: there the bearer token is the guard.
* **Half-sent requests.**  A connection has :data:`HEADER_TIMEOUT` seconds (configurable) from
  when it opens, or from the end of its last response, to send a request's whole head; past
  that it is closed, as it is once the head it is sending passes :data:`MAX_HEAD` bytes.
  Bodies are the SDK's (4 MiB at most).
* **The parser.**  uvicorn's ``httptools`` protocol (llhttp, in C) where ``httptools`` is
  installed: about a fifth of the proxy's CPU per call less than its ``h11`` protocol (pure
  Python), which is the fallback; both get the guards here.
* **Who is served.**  At most :data:`MAX_OPEN` connections are open at once.  One more
  closes the oldest connection that has no request being answered (one still sending its head,
  or idle between requests); only when every open connection is being answered is the new one
  closed.  A request without the right token is answered 401 at once and its connection
  closed, so it never holds a place; the cap on requests being answered
  (:class:`~hermes_core.serve.proxy.transport.TokenRouter`) counts token holders only.  So a
  flood of connections that never authenticate cannot lock out the client with the token:
  theirs are the ones closed, and its own request is counted only once its token is checked.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

__all__ = [
    "HEADER_TIMEOUT",
    "MAX_HEAD",
    "MAX_OPEN",
    "guarded_protocol",
    "is_loopback",
    "transport_security",
]

#: Seconds a connection has to send a request's head (from when it opens or last answered).
HEADER_TIMEOUT = 10.0
#: Connections open at once, at most (the oldest waiting one is closed for a new one).
MAX_OPEN = 512
#: Bytes of a request's head at most (h11's own limit, which httptools does not have).
MAX_HEAD = 16 * 1024
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether *host* (a name or an address, IPv6 with or without brackets) is loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def transport_security(host: str) -> TransportSecuritySettings | None:
    """The SDK's Host/Origin checks for a server bound to *host*: on for every loopback
    address (the bound one and the loopback names), ``None`` (off) for any other."""
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host):
        return None
    bound = f"[{host.strip('[]')}]" if ":" in host else host
    names = list(dict.fromkeys((bound, *_LOOPBACK_NAMES)))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*names, *(f"{n}:*" for n in names)],
        allowed_origins=[*(f"http://{n}" for n in names), *(f"http://{n}:*" for n in names)],
    )


def guarded_protocol(header_timeout: float = HEADER_TIMEOUT, max_open: int = MAX_OPEN) -> type:
    """uvicorn's HTTP protocol (httptools', else h11's) with the header timeout, the head
    size limit and the connection cap above (a class of its own per server: the waiting
    connections are counted per server)."""
    base = _parser_protocol()
    waiting: OrderedDict[int, GuardedProtocol] = OrderedDict()
    """id(protocol) -> protocol: open connections with no request being answered, oldest first."""

    class GuardedProtocol(base):  # type: ignore[valid-type,misc]  # (picked at run time)
        _timer: asyncio.TimerHandle | None = None
        _head = 0
        """Bytes received since this connection last waited for a request's head."""

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._wait()
            if len(self.connections) > max_open:
                oldest = next((p for p in waiting.values() if p is not self), None)
                (oldest or self)._close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                self._answered()
            elif id(self) in waiting:
                self._head += len(data)
                if self._head > MAX_HEAD:
                    self._close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._wait()

        def connection_lost(self, exc: Exception | None) -> None:
            self._answered()
            super().connection_lost(exc)

        def _wait(self) -> None:
            """No request of this connection is being answered: its clock runs."""
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self.loop.call_later(header_timeout, self._close)
            self._head = 0
            waiting[id(self)] = self
            waiting.move_to_end(id(self))

        def _answered(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            waiting.pop(id(self), None)

        def _close(self) -> None:
            self._answered()
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedProtocol


def _parser_protocol() -> type:
    """uvicorn's httptools protocol where httptools is installed, else its h11 one."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return H11Protocol
    return HttpToolsProtocol
