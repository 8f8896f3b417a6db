"""The parser of ``hermes state migrate`` (docs/scaling.md, "State on PostgreSQL")."""

from __future__ import annotations

from hermes_core.cli.parser_base import Commands, HermesParser

__all__ = ["add_state_parsers"]


def add_state_parsers(commands: Commands, parser_class: type[HermesParser]) -> None:
    """``hermes state migrate [--to URL]``."""
    state = commands.add_parser("state", help="the durable state: SQLite files or PostgreSQL")
    state.set_defaults(command_parser=state)
    state_commands = state.add_subparsers(
        dest="state_command", metavar="COMMAND", parser_class=parser_class
    )
    migrate = state_commands.add_parser(
        "migrate",
        help="copy this home's trust.db, audit log and OAuth tokens into PostgreSQL",
        description="Copies $HERMES_HOME/trust.db (pinned definitions, changes waiting, "
        "remembered decisions), the audit log (logs/audit.jsonl and its rotated files) and the "
        "OAuth tokens (mcp-tokens/) into the state database: --to URL, or the state: url of "
        "config.yaml. What the database already holds wins (a pin or decision another machine "
        "put there is kept); running it again copies nothing twice. The files are left as they "
        "are.",
    )
    migrate.add_argument(
        "--to",
        metavar="URL",
        help="postgresql://USER:${PASSWORD_VAR}@HOST:5432/DB (default: state.url of config.yaml)",
    )
    migrate.add_argument("--json", action="store_true", help="machine-readable counts")
