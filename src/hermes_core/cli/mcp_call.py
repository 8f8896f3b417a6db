"""``hermes mcp call TOOL``: call one tool with JSON arguments and print the result as JSON."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from hermes_core.cli.ask import TerminalElicitor
from hermes_core.cli.call_args import ArgumentError, CallArguments, command_arguments
from hermes_core.cli.call_body import call_on, finish, route
from hermes_core.cli.call_progress import PROGRESS_INTERVAL, Pausing, ProgressLine
from hermes_core.cli.common import EXIT_USAGE, PluginLoader
from hermes_core.cli.hosting import with_host
from hermes_core.cli.loading import factory_for, load
from hermes_core.sessions import StoreElicitor
from hermes_core.sessions.shared import session_store

if TYPE_CHECKING:
    from hermes_core.host.server_status import ServerStatus
    from hermes_core.host.surface import HostSurface
    from hermes_core.json_types import JsonObject
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["PROGRESS_INTERVAL", "call", "run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp call TOOL [key=value …] [--args JSON] [--json] [--approvals …]
    [--server NAME] [-v]``."""
    try:
        given = command_arguments(args)  # read once: the warm handler asked first
    except ArgumentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return call(
        plugins(),
        args.tool,
        given,
        approvals=args.approvals,
        server=args.server,
        verbose=args.verbose,
        as_json=args.json,
    )


def call(
    manager: HermesPluginManager,
    tool: str,
    given: CallArguments,
    *,
    approvals: str = "terminal",
    server: str | None = None,
    verbose: bool = False,
    as_json: bool = False,
) -> int:
    """Call one tool and print its result: as text (:func:`result_text`), or the raw result
    as JSON with *as_json*.  The arguments are *given* (a JSON object, or ``key=value`` words
    read on the tool's schema, :mod:`hermes_core.cli.call_args`).  ``config.yaml`` and the
    policy are read once, here, and the host is built on what was read.

    Only the server that owns the tool is started (named by ``--server``, else read from the
    tool's ``mcp_<server>_`` prefix), so an unrelated slow or broken server costs nothing; a
    bare name (``read_text_file``) starts them all, to name the tools it may mean.
    *approvals*: ``terminal`` asks a server's questions here; ``store`` records them in
    ``state.db`` and waits for an answer (``permissions_respond`` of ``hermes mcp serve``).
    The server's progress reports show as a ``progress:`` line on stderr (at most a few a
    second); *verbose* shows its log messages on stderr too.
    """

    factory = factory_for(manager)
    loaded = load(factory)
    configured = loaded.config.mcp_servers
    enabled = {name: cfg.enabled for name, cfg in configured.items()}
    found = [server] if server is not None else route(tool, enabled)
    if isinstance(found, dict):  # no enabled server owns the name
        return finish(found, [], as_json=as_json)

    async def body(host: HostSurface) -> tuple[JsonObject, list[ServerStatus]]:
        return await call_on(host, tool, given, progress)

    progress = ProgressLine()
    asker: StoreElicitor | TerminalElicitor = (
        StoreElicitor(session_store(factory.state_database(loaded)))
        if approvals == "store"
        else TerminalElicitor()
    )
    elicitor = Pausing(asker, progress.pause)
    with _server_logs_on_stderr(verbose):  # a server's log is this process's: cold
        result, rows = with_host(
            manager,
            body,
            only=found,
            quiet=True,
            elicitor=elicitor,
            warm=not verbose,
            config=(factory, loaded),
        )
    return finish(result, rows, as_json=as_json)


@contextlib.contextmanager
def _server_logs_on_stderr(verbose: bool) -> Iterator[None]:
    """With *verbose*, servers' log messages (``hermes.mcp.<server>``) print on stderr; without
    it they are dropped (not even warnings reach Python's last-resort handler)."""
    root = logging.getLogger("hermes.mcp")
    handler: logging.Handler = logging.NullHandler()
    if verbose:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    before = root.level, root.propagate
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.CRITICAL)
    root.propagate = False
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.level, root.propagate = before
