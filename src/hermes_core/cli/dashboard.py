"""``hermes dashboard [--port N] [--no-open]``: the local web page (``docs/dashboard.md``)."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import threading

from hermes_core.cli.common import EXIT_USAGE, PluginLoader
from hermes_core.cli.mcp_add import add, build_entry
from hermes_core.dashboard.add_page import Adder, AddForm
from hermes_core.dashboard.serve import bind, serve
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["run"]

_ADDING = threading.Lock()


def _adder(manager: HermesPluginManager) -> Adder:
    """The page's *Add a server*: ``hermes mcp add``'s own steps (the same entry building,
    probe, secret lifting and save), what it prints captured for the page."""

    def add_from_page(form: AddForm) -> tuple[int, str]:
        said = io.StringIO()
        # One add at a time: what it prints is captured for this page alone.
        with _ADDING, contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            try:
                entry = build_entry(
                    command=form.command,
                    args=form.args,
                    url=form.url,
                    preset=None,
                    env=form.env,
                    headers=form.headers,
                    connect_timeout=None,
                )
            except ValueError as exc:
                return EXIT_USAGE, f"error: {exc}"
            code = add(form.name, entry, probe=form.probe, replace=form.replace, manager=manager)
        return code, said.getvalue().strip()

    return add_from_page


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """Bind 127.0.0.1:PORT, print the login URL first, serve until Ctrl-C."""
    if not 0 <= args.port <= 65535:
        print(f"error: --port {args.port}: a port is 0 to 65535", file=sys.stderr)
        return EXIT_USAGE
    try:
        sock = bind(args.port)
    except OSError as exc:
        why = exc.strerror or exc
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {why}", file=sys.stderr)
        return EXIT_USAGE
    manager = plugins()
    return serve(manager, sock, open_browser=not args.no_open, adder=_adder(manager))
