"""``hermes mcp down``: stop this ``HERMES_HOME``'s warm host and every server it started.

Its own module so that stopping the warm host loads only the socket client (no MCP SDK, no
proxy): ``hermes mcp up`` lives in :mod:`hermes_core.cli.mcp_up`.

``down`` always ends the process: it asks the host to stop (the host answers once every server
is closed) and waits for it to exit; a host that does not answer its hello, or the stop, or
does not exit, is ended with ``SIGTERM`` then ``SIGKILL`` (:mod:`.ending`), when its command
line shows it is a warm host.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, PluginLoader
from hermes_core.home import hermes_home
from hermes_core.serve.warm.client import WarmHostGone, stop_warm_host
from hermes_core.serve.warm.ending import Ending, end_process
from hermes_core.serve.warm.paths import WarmPaths, WarmState, is_warm_host, probe

__all__ = ["run_down", "stale_note"]


def run_down(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp down``."""
    return _down()


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
    why = "did not answer"
    if state is WarmState.UP:
        try:
            pid = asyncio.run(stop_warm_host(paths)) or pid
            why = ""
        except WarmHostGone as exc:
            why = str(exc)
    assert pid is not None  # UP and HUNG both have one
    return _end(paths, pid, why)


def _end(paths: WarmPaths, pid: int, why: str) -> int:
    """Make sure warm host *pid* has ended: it answered ``stop`` (no *why*), or *why* says what
    it did not do (then only a process whose command line shows a warm host is signalled)."""
    if not why:
        ending = end_process(pid)  # it said it stops: given a moment to exit
    else:
        ours = is_warm_host(pid)
        if ours is False:  # the pid is another program's now: the files were stale
            paths.clean()
            stale_note(paths, pid)
            return EXIT_OK
        if ours is None:
            print(
                f"error: the warm host (pid {pid}) {why}, and this system cannot tell whether "
                "that pid is still the warm host: end it yourself",
                file=sys.stderr,
            )
            return EXIT_FAILED
        ending = end_process(pid, grace=0)
        print(f"hermes mcp down: the warm host (pid {pid}) {why}; {ending.value}", file=sys.stderr)
    paths.clean()
    if not why and ending is not Ending.EXITED:
        print(f"hermes mcp down: the warm host (pid {pid}) did not exit; {ending.value}")
    print(f"hermes mcp down: stopped the warm host (pid {pid}) and its servers")
    return EXIT_OK
