"""``hermes mcp up [--http [HOST:]PORT]`` and ``hermes mcp down``: the warm host of this
``HERMES_HOME`` (see :mod:`hermes_core.serve.warm.daemon`, docs/proxy.md)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import selectors
import signal
import subprocess
import sys
from typing import TYPE_CHECKING

from hermes_core import event_loop
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.mcp_down import stale_note
from hermes_core.cli.mcp_proxy import PROXY_TOKEN_FILE, parse_http
from hermes_core.cli.stop import Stop
from hermes_core.config.models import ConfigError
from hermes_core.event_loop import LoopChoiceError, loop_choice
from hermes_core.home import hermes_home
from hermes_core.serve.http_auth import load_or_create_token
from hermes_core.serve.proxy.backing import backing_host
from hermes_core.serve.proxy.downstream import DownstreamElicitor
from hermes_core.serve.proxy.profiles import EVERYTHING
from hermes_core.serve.proxy.server import ProxyServer
from hermes_core.serve.proxy.transport import serve_http
from hermes_core.serve.warm.daemon import WarmHost
from hermes_core.serve.warm.paths import WarmPaths, WarmState, probe

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost
    from hermes_core.host.server_spec import HostServer
    from hermes_core.host.setup.factory import HostFactory

__all__ = ["READY", "START_TIMEOUT", "run_up"]

#: What the background host prints on stdout once its socket listens.
READY = "hermes-warm-host-ready"
#: How long ``hermes mcp up`` waits for the background host to listen.
START_TIMEOUT = 120.0


def run_up(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp up``."""
    return _up(args, plugins)


def _up(args: argparse.Namespace, plugins: PluginLoader) -> int:
    try:
        loop_choice()  # a bad $HERMES_EVENT_LOOP stops here, before anything starts
    except LoopChoiceError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None
    paths = WarmPaths(hermes_home())
    address = None
    if args.http is not None:
        try:
            address = parse_http(args.http)
        except ValueError as exc:
            raise Stop(EXIT_USAGE, str(exc)) from None
    state, pid = probe(paths)
    if state is WarmState.UP:
        print(f"hermes mcp up: already running (pid {pid}; socket {paths.socket})")
        return EXIT_OK
    if state is WarmState.HUNG:
        raise Stop(
            EXIT_FAILED,
            f"a warm host runs (pid {pid}) but does not answer; `hermes mcp down` ends it",
        )
    if state is WarmState.STALE:
        stale_note(paths, pid)
    try:
        paths.prepare_run_dir()
    except OSError as exc:
        raise Stop(EXIT_FAILED, str(exc)) from None
    factory = factory_for(plugins())
    loaded = load(factory)  # a bad config.yaml stops here, exit 2, before anything starts
    try:
        servers = factory.servers(loaded)
    except ConfigError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None
    if args.foreground:
        event_loop.run(_serve(factory, servers, paths, address))
        return EXIT_OK
    return _start_background(args, paths)


def _start_background(args: argparse.Namespace, paths: WarmPaths) -> int:
    paths.log.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
    argv = [sys.executable, "-m", "hermes_core"]
    if args.no_plugins:
        argv.append("--no-plugins")
    argv += ["mcp", "up", "--foreground"]
    if args.http is not None:
        argv += ["--http", args.http]
    fd = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "ab") as log:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
        )
    assert child.stdout is not None
    line = b""
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ)
        if selector.select(START_TIMEOUT):
            line = child.stdout.readline()
    child.stdout.close()
    if line.decode(errors="replace").strip() != READY:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        print(f"error: the warm host did not start; see {paths.log}", file=sys.stderr)
        return EXIT_FAILED
    where = f"socket {paths.socket}; log {paths.log}"
    print(f"hermes mcp up: warm host running (pid {child.pid}; {where})")
    return EXIT_OK


async def _serve(
    factory: HostFactory,
    servers: list[HostServer],
    paths: WarmPaths,
    address: tuple[str, int] | None,
) -> None:
    host, elicitor = backing_host(factory, servers, forward_sampling=address is not None)
    warm = WarmHost(host, paths, elicitor)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, warm.stop)
    http: asyncio.Task[None] | None = None
    try:
        await host.start()
        host.watch_config()
        if address is not None:
            http = loop.create_task(_serve_http(host, elicitor, address))

        def ready() -> None:
            print(READY, flush=True)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # the parent is gone: nothing more to say
            os.close(devnull)

        await warm.serve(ready)
    finally:
        if http is not None:
            http.cancel()
            with contextlib.suppress(BaseException):
                await http
        await host.close()


async def _serve_http(
    host: MCPHost, elicitor: DownstreamElicitor, address: tuple[str, int]
) -> None:
    token, _ = load_or_create_token(hermes_home(), name=PROXY_TOKEN_FILE)
    proxy = ProxyServer(host, EVERYTHING, elicitor)
    print(
        f"hermes mcp up: proxy on http://{address[0]}:{address[1]}/mcp "
        f"(token in {hermes_home() / PROXY_TOKEN_FILE})",
        file=sys.stderr,
        flush=True,
    )
    try:
        await serve_http({token: proxy}, host=address[0], port=address[1])
    finally:
        proxy.close()
