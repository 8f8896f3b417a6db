"""``hermes dashboard [--port N] [--no-open]``: the local web page (``docs/dashboard.md``)."""

from __future__ import annotations

import argparse
import sys

from hermes_core.cli.common import EXIT_USAGE, PluginLoader
from hermes_core.dashboard.serve import bind, serve

__all__ = ["run"]


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
    return serve(plugins(), sock, open_browser=not args.no_open)
