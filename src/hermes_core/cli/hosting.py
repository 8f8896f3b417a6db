"""Running a body on a started host: what every server-contacting ``hermes mcp`` command
shares (``status``, ``tools``, ``test``, ``call``)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_core.cli.common import EXIT_USAGE
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.progress import Activity
from hermes_core.cli.stop import Stop
from hermes_core.cli.warm_choice import bypass, choose, using
from hermes_core.config.models import ConfigError
from hermes_core.serve.warm.client import RemoteHost, WarmHostGone
from hermes_core.serve.warm.questions import asker_for

if TYPE_CHECKING:
    from hermes_core.config.loader import LoadedConfig
    from hermes_core.host.host import MCPHost
    from hermes_core.host.server_spec import HostServer
    from hermes_core.host.setup.factory import HostFactory
    from hermes_core.host.surface import HostSurface
    from hermes_core.offers.elicitation import Elicitor
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["start_with_progress", "with_host"]

T = TypeVar("T")


#: Commands that may download the server before it starts (the first time, or when updated).
_FETCHERS = ("npx", "uvx", "bunx", "pnpx", "pipx")


def _outcome(name: str, error: str | None, seconds: float, state: str = "") -> list[str]:
    """*state*: what a server that started without an error is, when not ``connected`` (a
    desktop app's server whose app is not running: ``not running (<why>)``)."""
    lines = (error or "").splitlines() or [""]
    outcome = (state or "connected") if error is None else f"failed: {lines[0]}"
    # a crashed server's stderr tail (already bounded) follows
    return [f"  {name}: {outcome} ({seconds:.2f} s)"] + [f"    | {x.strip()}" for x in lines[1:]]


def _starting(servers: list[HostServer]) -> str:
    text = f"connecting {len(servers)} server(s)…"
    fetchers = sorted({Path(s.command or "").name for s in servers} & set(_FETCHERS))
    if fetchers:
        text += f" ({' and '.join(fetchers)} may be downloading a package first)"
    return text


async def start_with_progress(host: MCPHost, servers: list[HostServer], quiet: bool) -> None:
    """Start the host, *servers* being those that start now: while they connect, a spinner
    on stderr when it is a terminal (which servers are still awaited); each server's outcome
    unless *quiet* (off a terminal, a *quiet* start prints nothing)."""
    if not servers:
        await host.start(None)
        return
    done: list[str] = []
    with Activity(_starting(servers), announce=not quiet) as activity:

        def show(name: str, error: str | None, seconds: float) -> None:
            done.append(name)
            if not quiet:
                for line in _outcome(name, error, seconds, _not_running(host, name)):
                    activity.line(line)
            waiting = [s.name for s in servers if s.name not in done]
            if waiting:
                activity.update(
                    f"connecting: {len(done)} of {len(servers)} done, waiting for "
                    + ", ".join(waiting[:3])
                    + (" …" if len(waiting) > 3 else "")
                )

        await host.start(show)


def _not_running(host: MCPHost, name: str) -> str:
    """``not running (<why>)`` when *name*'s desktop app is not running, else ``""``."""
    for row in host.status():
        if row.server == name and row.connection == "not running":
            return f"not running ({row.last_error})" if row.last_error else "not running"
    return ""


def _warm(names: list[str] | None, elicitor: Elicitor | None) -> RemoteHost | None:
    """The warm host narrowed to the servers *names* (all: ``None``), when ``hermes mcp up``
    runs for this home and answers (:mod:`hermes_core.cli.warm_choice`); else ``None``."""
    chosen = choose()
    if chosen is None:
        return None
    paths, pid = chosen
    try:
        remote = asyncio.run(RemoteHost.connect(paths, names, asker_for(elicitor)))
    except WarmHostGone as exc:
        bypass(paths, pid, str(exc))
        return None
    using(paths, pid)
    return remote


def with_host(
    manager: HermesPluginManager,
    body: Callable[[HostSurface], Coroutine[Any, Any, T]],
    *,
    only: str | list[str] | None = None,
    quiet: bool = False,
    elicitor: Elicitor | None = None,
    warm: bool = True,
    config: tuple[HostFactory, LoadedConfig] | None = None,
) -> T:
    """Start the configured servers (*only* these, when given), run *body* on the host, close
    it; a bad file or an unknown name prints its error and stops with exit code 2.  While a
    warm host runs (``hermes mcp up``) and *warm*, *body* runs on it instead (one line on
    stderr says so).  *config*: the factory and the config (and policy) the command read
    already, so they are read once per command (default: read here)."""
    if config is None:
        factory = factory_for(manager)
        loaded = load(factory)
    else:
        factory, loaded = config
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

    names = [s.name for s in servers] if wanted is not None else None
    remote = _warm(names, elicitor) if warm else None
    if remote is not None:
        return asyncio.run(body(remote))

    async def main() -> T:
        host = factory.host(servers, elicitor=elicitor)
        try:
            await start_with_progress(host, [s for s in servers if s.enabled and not s.lazy], quiet)
            return await body(host)
        finally:
            await host.close()

    return asyncio.run(main())
