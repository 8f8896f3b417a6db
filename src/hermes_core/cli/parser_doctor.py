"""The parser of ``hermes mcp doctor`` (docs/cli.md)."""

from __future__ import annotations

import argparse

from hermes_core.cli.parser_base import Commands

__all__ = ["add_doctor_parser"]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0.5 <= value <= 600:
        raise argparse.ArgumentTypeError(f"{text!r}: give between 0.5 and 600 seconds")
    return value


def add_doctor_parser(mcp_commands: Commands) -> None:
    """``hermes mcp doctor [SERVER] [--json] [--timeout SECONDS]``."""
    doctor = mcp_commands.add_parser(
        "doctor",
        help="say what is wrong with each server and how to fix it",
        description="One screen per server: its runner, its app (installed, version, running, "
        "GPU), config errors, unset ${VAR}, OAuth token, pins waiting for review, then a "
        "connection attempt (connect time, tools, breaker, the line of the error that "
        "matters). Servers are connected in parallel, each within --timeout seconds; nothing "
        "is changed. Exit 0 when all is well, 1 otherwise.",
    )
    doctor.add_argument("name", nargs="?", metavar="SERVER", help="only this server")
    doctor.add_argument("--json", action="store_true", help="machine-readable output")
    doctor.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="how long each server is given to connect (default 20)",
    )
