"""``hermes mcp call TOOL``: call one tool with JSON arguments and print the result as JSON."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from hermes_core.cli.ask import TerminalElicitor
from hermes_core.cli.call_args import ArgumentError, arguments, parse_pairs
from hermes_core.cli.call_body import call_on, finish, owners, unowned
from hermes_core.cli.call_progress import PROGRESS_INTERVAL, Pausing, ProgressLine
from hermes_core.cli.common import EXIT_USAGE, PluginLoader
from hermes_core.cli.hosting import with_host
from hermes_core.cli.loading import factory_for, load
from hermes_core.sessions import StoreElicitor
from hermes_core.sessions.shared import session_store

if TYPE_CHECKING:
    from hermes_core.host.server_status import ServerStatus
    from hermes_core.host.surface import HostSurface
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["PROGRESS_INTERVAL", "call", "run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp call TOOL [key=value …] [--args JSON] [--json] [--approvals …]
    [--server NAME] [-v]``."""
    return call(
        plugins(),
        args.tool,
        args.args,
        approvals=args.approvals,
        server=args.server,
        verbose=args.verbose,
        pairs=args.pairs,
        as_json=args.json,
    )


def call(
    manager: HermesPluginManager,
    tool: str,
    raw_args: str | None,
    *,
    approvals: str = "terminal",
    server: str | None = None,
    verbose: bool = False,
    pairs: list[str] | None = None,
    as_json: bool = False,
) -> int:
    """Call one tool and print its result: as text (:func:`result_text`), or the raw result
    as JSON with *as_json*.  The arguments are *raw_args* (a JSON object) or *pairs*
    (``key=value`` words, :mod:`hermes_core.cli.call_args`).

    Only the server that owns the tool is started (named by ``--server``, else read from the
    tool's ``mcp_<server>_`` prefix), so an unrelated slow or broken server costs nothing; a
    bare name (``read_text_file``) starts them all, to name the tools it may mean.
    *approvals*: ``terminal`` asks a server's questions here; ``store`` records them in
    ``state.db`` and waits for an answer (``permissions_respond`` of ``hermes mcp serve``).
    The server's progress reports show as a ``progress:`` line on stderr (at most a few a
    second); *verbose* shows its log messages on stderr too.
    """

    try:
        words = parse_pairs(pairs or [])
        checked = arguments(raw_args, words, None)  # checked now; pairs read on the schema
        given = None if words else checked
    except ArgumentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    configured = load(factory_for(manager)).config.mcp_servers
    enabled = {name: cfg.enabled for name, cfg in configured.items()}
    found: list[str] | None
    if server is not None:
        found = [server]
    elif not tool.startswith("mcp_"):
        found = None  # a bare name: every server starts, to say which names end in it
    else:
        found = owners(tool, enabled)
        if not found:
            return finish(unowned(tool, enabled), [], as_json=as_json)

    async def body(host: HostSurface) -> tuple[dict[str, Any], list[ServerStatus]]:
        return await call_on(host, tool, given, words, progress)

    progress = ProgressLine()
    asker: StoreElicitor | TerminalElicitor = (
        StoreElicitor(session_store(factory_for(manager).state_database()))
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
            about=[tool],
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
