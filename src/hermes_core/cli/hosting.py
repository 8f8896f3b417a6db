"""Running a body on a started host: what every server-contacting ``hermes mcp`` command
shares (``status``, ``tools``, ``test``, ``call``)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_core.cli.common import EXIT_USAGE
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.stop import Stop
from hermes_core.config.models import ConfigError
from hermes_core.home import hermes_home
from hermes_core.serve.warm.client import RemoteHost
from hermes_core.serve.warm.paths import WarmPaths, WarmState, probe

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost
    from hermes_core.offers.elicitation import Elicitor
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["with_host"]

T = TypeVar("T")


def _progress(quiet: bool) -> Callable[[str, str | None, float], None] | None:
    if quiet:
        return None

    def show(name: str, error: str | None, seconds: float) -> None:
        lines = (error or "").splitlines() or [""]
        outcome = "connected" if error is None else f"failed: {lines[0]}"
        print(f"  {name}: {outcome} ({seconds:.2f} s)", file=sys.stderr, flush=True)
        for line in lines[1:]:  # a crashed server's stderr tail (already bounded)
            print(f"    | {line.strip()}", file=sys.stderr, flush=True)

    return show


def _warm(
    servers: list[Any], wanted: list[str] | None, elicitor: Elicitor | None
) -> Callable[[Callable[[Any], Coroutine[Any, Any, T]]], Coroutine[Any, Any, T]] | None:
    """The warm host's runner of a body, when ``hermes mcp up`` runs for this home (and
    ``HERMES_WARM`` is not ``0``); a stale socket is cleaned and said so."""
    if os.environ.get("HERMES_WARM", "").strip() == "0":
        return None
    paths = WarmPaths(hermes_home())
    state, pid = probe(paths)
    if state is WarmState.STALE:
        print(f"note: removed a stale warm host socket (pid {pid} is gone)", file=sys.stderr)
    if state is not WarmState.UP:
        return None
    names = [s.name for s in servers] if wanted is not None else None
    print(f"using the warm host (pid {pid}; `hermes mcp down` stops it)", file=sys.stderr)

    async def run(body: Callable[[Any], Coroutine[Any, Any, T]]) -> T:
        return await body(await RemoteHost.connect(paths, names, elicitor))

    return run


def with_host(
    manager: HermesPluginManager,
    body: Callable[[MCPHost], Coroutine[Any, Any, T]],
    *,
    only: str | list[str] | None = None,
    quiet: bool = False,
    elicitor: Elicitor | None = None,
) -> T:
    """Start the configured servers (*only* these, when given), run *body* on the host, close
    it; a bad file or an unknown name prints its error and stops with exit code 2.  While a
    warm host runs (``hermes mcp up``), *body* runs on it instead (one line on stderr says
    so)."""
    factory = factory_for(manager)
    loaded = load(factory)
    try:
        wanted = [only] if isinstance(only, str) else only
        single = wanted[0] if wanted is not None and len(wanted) == 1 else None
        servers = factory.servers(loaded, only=single)
        if wanted is not None:
            servers = [s for s in servers if s.name in wanted]
    except ConfigError as exc:  # e.g. an unreadable $HERMES_HOME/.env
        print(f"error: {exc}", file=sys.stderr)
        raise Stop(EXIT_USAGE) from None
    if wanted is not None and not servers:
        print(
            f"error: no server named {', '.join(map(repr, wanted))} in {loaded.path}",
            file=sys.stderr,
        )
        raise Stop(EXIT_USAGE)

    remote = _warm(servers, wanted, elicitor)
    if remote is not None:
        return asyncio.run(remote(body))
    progress = _progress(quiet)

    async def main() -> T:
        host = factory.host(servers, elicitor=elicitor)
        try:
            if servers and progress is not None:
                print(f"connecting {len(servers)} server(s)…", file=sys.stderr, flush=True)
            await host.start(progress)
            return await body(host)
        finally:
            await host.close()

    return asyncio.run(main())
