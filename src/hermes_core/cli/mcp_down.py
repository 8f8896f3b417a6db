"""``hermes mcp down``: stop this ``HERMES_HOME``'s warm host and every server it started.

Its own module so that stopping the warm host loads only the socket client (no MCP SDK, no
proxy): ``hermes mcp up`` lives in :mod:`hermes_core.cli.mcp_up`."""

from __future__ import annotations

import argparse
import asyncio
import sys

from hermes_core.cli.common import EXIT_OK, PluginLoader
from hermes_core.cli.stop import guard
from hermes_core.home import hermes_home
from hermes_core.serve.warm.client import stop_warm_host
from hermes_core.serve.warm.paths import WarmPaths, WarmState, probe

__all__ = ["run_down", "stale_note"]


def run_down(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp down``."""
    return guard(lambda: _down())


def stale_note(paths: WarmPaths, pid: int | None) -> None:
    """Say that a stale socket or pid file was found and removed."""
    who = f" (pid {pid} is gone or does not answer)" if pid else ""
    print(f"hermes mcp: removed a stale warm host socket/pid file{who}", file=sys.stderr)


def _down() -> int:
    paths = WarmPaths(hermes_home())
    state, pid = probe(paths)
    if state is WarmState.DOWN:
        print("hermes mcp down: no warm host is running")
        return EXIT_OK
    if state is WarmState.STALE:
        stale_note(paths, pid)
        return EXIT_OK
    stopped = asyncio.run(stop_warm_host(paths))
    print(f"hermes mcp down: stopped the warm host (pid {stopped or pid}) and its servers")
    return EXIT_OK
