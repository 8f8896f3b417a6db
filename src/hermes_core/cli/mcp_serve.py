"""``hermes mcp serve [--verbose] [--http [--host H] [--port N] [--new-token]]``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["add_parser", "serve"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_PORT = 8765


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "serve",
        help="run Hermes as an MCP server over its conversations (stdio; --http)",
        description="Serve $HERMES_HOME/state.db to MCP clients: ten tools to list and read "
        "conversations, follow events, send through configured messaging adapters and answer "
        "approval requests. stdio by default (stdout carries only the protocol). With --http, "
        "Streamable HTTP at http://HOST:PORT/mcp; every request needs the bearer token "
        "stored in $HERMES_HOME/serve-token (printed once, when created).",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP, not stdio")
    parser.add_argument("--host", default="127.0.0.1", help="--http address (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"--http port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--new-token", action="store_true", help="--http: replace the stored bearer token"
    )


def serve(args: argparse.Namespace, manager: HermesPluginManager) -> int:
    from hermes_core.cli.mcp import _load, _Stop, factory_for
    from hermes_core.config.loader import hermes_home
    from hermes_core.config.models import ConfigError
    from hermes_core.serve.messaging import load_messaging
    from hermes_core.serve.server import configure_logging, is_loopback, open_bridge
    from hermes_core.sessions.schema import SchemaError

    if not args.http and (args.host != "127.0.0.1" or args.port != DEFAULT_PORT or args.new_token):
        print("error: --host, --port and --new-token go with --http", file=sys.stderr)
        return EXIT_USAGE
    if not 0 < args.port < 65536:
        print(f"error: --port must be 1-65535 (got {args.port})", file=sys.stderr)
        return EXIT_USAGE
    configure_logging(args.verbose)
    try:
        loaded = _load(factory_for(manager))
        messaging = load_messaging(loaded, manager.messaging_platforms())
    except _Stop as stop:
        return stop.code
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    home = hermes_home()
    try:
        bridge = open_bridge(home, messaging)
    except (SchemaError, OSError) as exc:
        print(f"error: {home / 'state.db'}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001 - sqlite3.DatabaseError: not a database, locked
        print(f"error: cannot open {home / 'state.db'}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        if not args.http:
            from hermes_core.serve.server import run_stdio

            run_stdio(bridge, verbose=args.verbose)
            return EXIT_OK
        from hermes_core.serve.http_auth import TOKEN_FILE, load_or_create_token
        from hermes_core.serve.server import run_http

        token, created = load_or_create_token(home, renew=args.new_token)
        where = home / TOKEN_FILE
        if created:
            print(
                f"hermes mcp serve: new bearer token (saved to {where}, mode 0600; shown once):\n"
                f"  {token}",
                file=sys.stderr,
            )
        else:
            print(f"hermes mcp serve: bearer token in {where}", file=sys.stderr)
        scope = "loopback only" if is_loopback(args.host) else "REACHABLE FROM THE NETWORK"
        url_host = f"[{args.host}]" if ":" in args.host else args.host
        print(
            f"hermes mcp serve: http://{url_host}:{args.port}/mcp ({scope}; "
            "Authorization: Bearer <token> required)",
            file=sys.stderr,
            flush=True,
        )
        run_http(bridge, host=args.host, port=args.port, token=token, verbose=args.verbose)
        return EXIT_OK
    except KeyboardInterrupt:
        return EXIT_OK
    finally:
        bridge.store.close()
