"""The parsers of ``hermes mcp add-json`` and ``hermes mcp get``, and finding the parser of the
subcommand that runs (so that a mistake is answered with that subcommand's own usage)."""

from __future__ import annotations

import argparse

from hermes_core.cli.parser_base import Commands
from hermes_core.importing.names import SOURCE_NAMES

__all__ = ["add_entry_parsers", "leaf_parser"]


def add_entry_parsers(commands: Commands) -> None:
    """Add ``add-json`` and ``get`` to ``hermes mcp``."""
    add_json = commands.add_parser(
        "add-json",
        help="add a server from one JSON entry in any client's shape (probed first)",
        description="Add a server from one entry as Claude Code, Claude Desktop, Cursor, VS "
        "Code, Gemini CLI or Windsurf write it, e.g. "
        '\'{"type":"stdio","command":"npx","args":["-y","pkg"],"env":{"K":"V"}}\'. It is '
        "translated as `hermes mcp import` translates that client's files (docs/import.md); "
        "what cannot be translated is listed. The shape is recognised from its keys unless "
        "--client names it.",
    )
    add_json.add_argument("name", help="the server's name in config.yaml (A-Z a-z 0-9 _ . -)")
    add_json.add_argument("json", metavar="JSON", help="the server's entry, a JSON object")
    add_json.add_argument(
        "--client",
        choices=[name for name in SOURCE_NAMES if name != "codex"],
        metavar="CLIENT",
        help="whose shape the entry is in (default: recognised from its keys, else claude-code)",
    )
    add_json.add_argument("--no-probe", action="store_true", help="save without connecting")
    add_json.add_argument("--replace", action="store_true", help="overwrite an existing entry")
    get = commands.add_parser(
        "get",
        help="one server: its entry, state, tools count, gates and last error",
        description="Show one configured server: its entry in config.yaml (secrets masked), "
        "then start it and show its connection, tools count, what gates it and its last "
        "error. Exit 0 when its tools are offered, 1 when not, 2 for an unknown name.",
    )
    get.add_argument("name", help="the server's name in config.yaml")
    get.add_argument("--json", action="store_true", help="machine-readable output")


def leaf_parser(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> argparse.ArgumentParser:
    """The parser of the subcommand *words* (``("mcp", "add")``), else the deepest found."""
    current = parser
    for word in words:
        found = None
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                found = action.choices.get(word)
        if found is None:
            break
        current = found
    return current
