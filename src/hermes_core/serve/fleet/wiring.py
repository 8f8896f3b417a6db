"""One replica's proxies joined to the fleet's bus.

- each profile's app is wrapped in a :class:`~.route.FleetRoute` (sessions and held calls
  owned elsewhere are forwarded to their owner);
- each held 2026-07-28 call is claimed on the bus while it is held;
- a change of what a profile offers is published, and heard from other replicas: each
  replica tells its own listeners (2025-11-25 sessions whose streams it holds, 2026-07-28
  ``subscriptions/listen`` streams);
- a notice of a trust change (decision, pin, approval answer) makes the next call re-read the
  trust state (:mod:`hermes_core.host.fleet.follow`: no read of the database per call while
  the notices are heard; a read before every call while they are not); one of a config change
  makes each host look at its config files at once.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import re
import socket
import urllib.parse
from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING

from hermes_core.host.fleet.bus import (
    HOLD_CLAIM_SECONDS,
    SESSION_SECONDS,
    FleetBus,
    Notice,
    NoticeKind,
)
from hermes_core.host.fleet.follow import FOLLOWER
from hermes_core.sampling.limiter import set_fleet_limit
from hermes_core.serve.fleet.forward import Forwarder
from hermes_core.serve.fleet.route import FleetRoute
from hermes_core.serve.http_auth import App
from hermes_core.serve.proxy.server import ProxyServer

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost

__all__ = ["ADVERTISE_ENV", "Fleet", "advertised_address"]

log = logging.getLogger(__name__)
#: Where the other replicas reach this one, when ``--http`` binds every interface and the
#: address found on its own is not the right one (a pod IP, a NAT).
ADVERTISE_ENV = "HERMES_ADVERTISE_ADDRESS"


def advertised_address(host: str, port: int, bus_url: str) -> str:
    """``host:port`` the other replicas reach this one at: ``$HERMES_ADVERTISE_ADDRESS``
    when set; the ``--http`` address when it names one; for a wildcard bind, the address of
    this machine's interface that reaches the bus's host."""
    named = os.environ.get(ADVERTISE_ENV, "").strip()
    if named:
        return _checked_address(named, port)
    try:
        wildcard = ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        wildcard = False
    if not wildcard:
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    target = urllib.parse.urlsplit(bus_url).hostname or "127.0.0.1"
    family = socket.AF_INET6 if ":" in target else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((target, 9))  # no packet is sent: the route picks the interface
            own = str(probe.getsockname()[0])
    except OSError:
        own = socket.gethostname()
    return f"[{own}]:{port}" if ":" in own else f"{own}:{port}"


_NAMED = re.compile(
    r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9.-]{1,253}))(?::(?P<port>\d{1,5}))?"
)


def _checked_address(named: str, port: int) -> str:
    """``$HERMES_ADVERTISE_ADDRESS`` as ``host:port`` (its port defaults to *port*);
    ``ValueError`` naming the variable for anything else (a scheme, a path, credentials):
    the other replicas forward clients' requests, tokens included, to this address."""
    found = _NAMED.fullmatch(named)
    if found is None or not 0 < int(found["port"] or port) < 65536:
        raise ValueError(
            f"${ADVERTISE_ENV} must be HOST or HOST:PORT (or [IPv6]:PORT), with no scheme, "
            "path or credentials"
        )
    host = f"[{found['v6']}]" if found["v6"] else found["host"]
    return f"{host}:{found['port'] or port}"


class Fleet:
    """The bus joined to *proxies* (token → proxy) of one replica."""

    def __init__(self, bus: FleetBus, proxies: Mapping[str, ProxyServer]) -> None:
        self.bus = bus
        self.proxies = dict(proxies)
        self.forwarder = Forwarder(bus.replica)
        self._hosts: list[MCPHost] = []
        for proxy in self.proxies.values():
            if all(proxy.host is not h for h in self._hosts):
                self._hosts.append(proxy.host)
        self._unlisten = bus.on_notice(self._heard)
        self._tasks: set[asyncio.Task[None]] = set()
        self._routes: list[FleetRoute] = []

    async def start(self) -> None:
        await self.bus.start()
        set_fleet_limit(self.bus.take)
        bus = self.bus
        FOLLOWER.heard = lambda: bus.listening
        for proxy in self.proxies.values():
            self._join(proxy)

    async def close(self) -> None:
        set_fleet_limit(None)
        FOLLOWER.heard = lambda: False
        self._unlisten()
        await self.forwarder.close()
        await self.bus.close()

    def wrap(self, app: App, proxy: ProxyServer) -> FleetRoute:
        route = FleetRoute(app, self.bus, self.forwarder, proxy.profile.name, proxy.held.holds)
        self._routes.append(route)
        return route

    async def _reclaim(self) -> None:
        """Claim again what this replica owns (the bus may have lost it: a Redis restart)."""
        for route in self._routes:
            for session in route.sessions():
                await self.bus.claim("session", session, route.profile, SESSION_SECONDS)
        for proxy in self.proxies.values():
            for state in proxy.held.states():
                await self.bus.claim("held", state, proxy.profile.name, HOLD_CLAIM_SECONDS)

    def _join(self, proxy: ProxyServer) -> None:
        name = proxy.profile.name
        bus = self.bus

        async def hold(state: str) -> None:
            try:
                await bus.claim("held", state, name, HOLD_CLAIM_SECONDS)
            except Exception as exc:  # noqa: BLE001 - the bus or a peer failing never ends the replica
                log.warning("a held call was not claimed on the bus: %s", exc)

        def release(state: str) -> None:
            self._spawn(bus.release("held", state))

        async def told() -> None:
            await bus.publish(NoticeKind.TOOLS, name)

        proxy.held.on_hold = hold
        proxy.held.on_release = release
        proxy.on_told = told

    def _heard(self, notice: Notice) -> None:
        if notice.kind is NoticeKind.TOOLS and not notice.origin:  # the bus heard again
            self._spawn(self._reclaim())
        if notice.kind is NoticeKind.TOOLS:
            for proxy in self.proxies.values():
                if notice.profile is None or notice.profile == proxy.profile.name:
                    self._spawn(proxy.tell())
            return
        if notice.kind is NoticeKind.TRUST:
            FOLLOWER.notify()  # the next call's look at the trust state re-reads it
            return
        for host in self._hosts:
            self._spawn(host.catch_up())

    def _spawn(self, step: Awaitable[object]) -> None:
        async def quietly() -> None:
            try:
                await step
            except Exception as exc:  # noqa: BLE001 - the bus or a peer failing never ends the replica
                log.warning(
                    "a fleet step failed: %s", str(exc).splitlines()[0][:200] if str(exc) else exc
                )

        task = asyncio.get_running_loop().create_task(quietly())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
