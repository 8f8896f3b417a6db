"""``hermes mcp proxy [--profile NAME] [--http [HOST:]PORT [--new-token]] [-v]``: every
configured server's tools, resources and prompts, served as one MCP server (docs/proxy.md)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from hermes_core import event_loop
from hermes_core.cli.common import EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.stop import Stop
from hermes_core.config.models import ConfigError
from hermes_core.event_loop import LoopChoiceError, loop_choice
from hermes_core.home import hermes_home
from hermes_core.host.config_watch import config_loader
from hermes_core.host.fleet.bus import FleetBus
from hermes_core.host.fleet.settings import BusSettings, load_bus_settings
from hermes_core.serve.fleet.health import Health
from hermes_core.serve.fleet.wiring import Fleet, advertised_address
from hermes_core.serve.http_auth import load_or_create_token
from hermes_core.serve.proxy.backing import backing_host, startup_report
from hermes_core.serve.proxy.profiles import Profile, load_proxy_config
from hermes_core.serve.proxy.server import ProxyServer
from hermes_core.serve.proxy.transport import serve_http, serve_stdio
from hermes_core.serve.server import configure_logging, is_loopback

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost
    from hermes_core.host.server_spec import HostServer
    from hermes_core.host.setup.factory import HostFactory

__all__ = ["PROXY_TOKEN_FILE", "parse_http", "run"]

#: Where the token of the proxy's unnamed (everything) profile lives, mode 0600.
PROXY_TOKEN_FILE = "proxy-token"


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp proxy``."""
    return _proxy(args, plugins)


def parse_http(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (``[::1]:8080`` for IPv6) as ``(host, port)``; the host defaults to
    127.0.0.1.  ``ValueError`` says what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http wants [HOST:]PORT with PORT 1-65535 (got {text!r})")
    return host, int(port)


def _proxy(args: argparse.Namespace, plugins: PluginLoader) -> int:
    if args.new_token and args.http is None:
        raise Stop(EXIT_USAGE, "--new-token goes with --http")
    address = None
    if args.http is not None:
        try:
            address = parse_http(args.http)
        except ValueError as exc:
            raise Stop(EXIT_USAGE, str(exc)) from None
    try:
        loop_choice()  # a bad $HERMES_EVENT_LOOP stops here, before anything starts
    except LoopChoiceError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None
    configure_logging(args.verbose, "proxy")
    factory = factory_for(plugins())
    loaded = load(factory)
    try:
        profiles = load_proxy_config(loaded)
        chosen = profiles.profile(args.profile, loaded)
        servers = factory.servers(loaded)
        bus = load_bus_settings(loaded)
    except ConfigError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None
    served = [chosen]
    if address is not None and args.profile is None:
        served += [p for p in profiles.profiles.values() if p.token]
    wanted = [s for s in servers if any(p.keeps_server(s.name) for p in served)]
    if address is None:
        with contextlib.suppress(asyncio.CancelledError):  # SIGTERM: ended cleanly
            event_loop.run(_stdio(factory, wanted, chosen))
        return EXIT_OK
    host, port = address
    token, created = load_or_create_token(
        hermes_home(), renew=args.new_token, name=PROXY_TOKEN_FILE
    )
    where = hermes_home() / PROXY_TOKEN_FILE
    if created:
        print(
            f"hermes mcp proxy: new bearer token (saved to {where}, mode 0600; shown once):\n"
            f"  {token}",
            file=sys.stderr,
        )
    else:
        print(f"hermes mcp proxy: bearer token in {where}", file=sys.stderr)
    tokens = {token: chosen} | {p.token: p for p in served[1:] if p.token}
    scope = "loopback only" if is_loopback(host) else "REACHABLE FROM THE NETWORK"
    url_host = f"[{host}]" if ":" in host else host
    named = ", ".join(p.name for p in tokens.values())
    print(
        f"hermes mcp proxy: http://{url_host}:{port}/mcp ({scope}; profiles: {named}; "
        "Authorization: Bearer <token> required)",
        file=sys.stderr,
        flush=True,
    )
    _fleet_report(bus, loaded.tree)
    with contextlib.suppress(KeyboardInterrupt):
        event_loop.run(
            _http(factory, wanted, tokens, (host, port, profiles.header_timeout), args.verbose, bus)
        )
    return EXIT_OK


def _fleet_report(bus: BusSettings | None, tree: object) -> None:
    """What a fleet of replicas needs of its load balancer, said at start."""
    if bus is not None:
        print(
            f"hermes mcp proxy: fleet bus {bus.shown}: sessions and held calls are found on "
            "any replica (no sticky routing needed)",
            file=sys.stderr,
        )
    elif isinstance(tree, dict) and "state" in tree:
        print(
            "hermes mcp proxy: state: is set without bus: -- 2026-07-28 clients may reach any "
            "replica, but 2025-11-25 sessions and held calls need sticky routing "
            "(route on Mcp-Session-Id), or add bus: (docs/scaling.md)",
            file=sys.stderr,
        )


def _end_on_sigterm() -> None:
    """``SIGTERM`` cancels the running task, so that the host closes as on a clean exit (the
    audit lines still waiting are written, the servers are stopped)."""
    task = asyncio.current_task()
    if task is None:
        return
    with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals on Windows' loop
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)


async def _stdio(factory: HostFactory, servers: list[HostServer], profile: Profile) -> None:
    _end_on_sigterm()
    host, elicitor = backing_host(factory, servers)
    try:
        await host.start()
        _watch(host, factory, profile.keeps_server)
        _report(host, profile.keeps_server)
        proxy = ProxyServer(host, profile, elicitor)
        proxy.forward_logs()
        try:
            await serve_stdio(proxy)
        finally:
            proxy.close()
    finally:
        await host.close()


async def _http(
    factory: HostFactory,
    servers: list[HostServer],
    tokens: dict[str, Profile],
    where: tuple[str, int, float],
    verbose: bool,
    bus: BusSettings | None = None,
) -> None:
    """*where*: the address, the port and the header timeout; *bus*: the fleet's."""
    address, port, header_timeout = where
    host, elicitor = backing_host(factory, servers)
    keeps = _keeping(tokens.values())
    try:
        await host.start()
        _watch(host, factory, keeps)
        _report(host, keeps)
        proxies = {token: ProxyServer(host, p, elicitor) for token, p in tokens.items()}
        for proxy in proxies.values():
            proxy.forward_logs()
        fleet = None
        health = Health()
        database = factory.state_database()
        if database is not None:
            reachable = database.reachable
            health.probes["state"] = lambda: asyncio.to_thread(reachable)
        if bus is not None:
            try:
                advertised = advertised_address(address, port, bus.url)
            except ValueError as exc:
                raise Stop(EXIT_USAGE, str(exc)) from None
            fleet = Fleet(FleetBus(bus, advertised), proxies)
            await fleet.start()
            health.probes["bus"] = fleet.bus.reachable
        try:
            await serve_http(
                proxies,
                host=address,
                port=port,
                verbose=verbose,
                header_timeout=header_timeout,
                health=health,
                wrap=fleet.wrap if fleet is not None else None,
            )
        finally:
            for proxy in proxies.values():
                proxy.close()
            if fleet is not None:
                await fleet.close()
    finally:
        await host.close()


def _keeping(profiles: Iterable[Profile]) -> Callable[[str], bool]:
    """Whether any of *profiles* keeps a server (by name)."""
    served = list(profiles)
    return lambda name: any(p.keeps_server(name) for p in served)


def _watch(host: MCPHost, factory: HostFactory, keeps: Callable[[str], bool]) -> None:
    """Follow ``config.yaml``: an edit starts, changes or stops only the servers the served
    profiles keep (one added outside them is never started)."""
    load, _paths = config_loader(factory=factory.source)
    host.watch_config(load=lambda: [s for s in load() if keeps(s.name)])


def _report(host: MCPHost, keeps: Callable[[str], bool]) -> None:
    for line in startup_report(host, keeps):
        print(f"hermes mcp proxy: {line}", file=sys.stderr, flush=True)
