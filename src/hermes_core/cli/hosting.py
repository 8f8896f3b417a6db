"""Running a body on a started host: what every server-contacting ``hermes mcp`` command
shares (``status``, ``tools``, ``test``, ``call``)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_core.cli.common import EXIT_USAGE
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.stop import Stop
from hermes_core.config.models import ConfigError

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


def with_host(
    manager: HermesPluginManager,
    body: Callable[[MCPHost], Coroutine[Any, Any, T]],
    *,
    only: str | list[str] | None = None,
    quiet: bool = False,
    elicitor: Elicitor | None = None,
) -> T:
    """Start the configured servers (*only* these, when given), run *body* on the host, close
    it; a bad file or an unknown name prints its error and stops with exit code 2."""
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
