"""``hermes mcp serve [--verbose] [--http [--host H] [--port N] [--new-token]]``."""

from __future__ import annotations

import argparse
import sys

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.parser import DEFAULT_SERVE_PORT
from hermes_core.cli.stop import Stop
from hermes_core.config.models import ConfigError
from hermes_core.home import hermes_home
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.serve.http_auth import TOKEN_FILE, TokenFileError, load_or_create_token
from hermes_core.serve.messaging import load_messaging
from hermes_core.serve.server import (
    configure_logging,
    is_loopback,
    listen_problem,
    open_bridge,
    run_http,
    run_stdio,
)
from hermes_core.sessions.schema import SchemaError

__all__ = ["run", "serve"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp serve [--verbose] [--http …]``."""
    return serve(args, plugins())


def serve(args: argparse.Namespace, manager: HermesPluginManager) -> int:
    if not args.http and (
        args.host != "127.0.0.1" or args.port != DEFAULT_SERVE_PORT or args.new_token
    ):
        print("error: --host, --port and --new-token go with --http", file=sys.stderr)
        return EXIT_USAGE
    if not 0 < args.port < 65536:
        print(f"error: --port must be 1-65535 (got {args.port})", file=sys.stderr)
        return EXIT_USAGE
    configure_logging(args.verbose)
    try:
        factory = factory_for(manager)
        loaded = load(factory)
        messaging = load_messaging(loaded, manager.messaging_platforms())
    except Stop as stop:
        return stop.code
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    home = hermes_home()
    try:
        bridge = open_bridge(home, messaging, factory.state_database(loaded))
    except (SchemaError, OSError) as exc:
        print(f"error: {home / 'state.db'}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001 - sqlite3.DatabaseError: not a database, locked
        print(f"error: cannot open {home / 'state.db'}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        if not args.http:
            run_stdio(bridge, verbose=args.verbose)
            return EXIT_OK
        problem = listen_problem(args.host, args.port)
        if problem is not None:
            print(f"hermes mcp serve: {problem}", file=sys.stderr)
            return EXIT_FAILED
        try:
            token, created = load_or_create_token(home, renew=args.new_token, say=_say)
        except TokenFileError as exc:
            print(f"hermes mcp serve: {exc}", file=sys.stderr)
            return EXIT_FAILED
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


def _say(line: str) -> None:
    print(f"hermes mcp serve: {line}", file=sys.stderr)
