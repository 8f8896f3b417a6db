"""The parsers of ``hermes mcp``'s everyday subcommands: what is configured and connected
(``list``, ``status``, ``tools``, ``call``, ``tasks``, ``audit``, ``sampling``) and the edits of
one server (``add``, ``remove``/``enable``/``disable``, ``test``, ``login``,
``oauth-client-document``)."""

from __future__ import annotations

import argparse

from hermes_core.cli.parser_base import Commands, HermesParser

__all__ = ["add_inspect_parsers", "add_server_edit_parsers"]


def add_inspect_parsers(mcp_commands: Commands, parser_class: type[HermesParser]) -> None:
    """``list``, ``status``, ``tools``, ``call``, ``tasks``, ``audit`` and ``sampling``."""
    mcp_list = mcp_commands.add_parser("list", help="configured servers (no connection)")
    mcp_list.add_argument("--json", action="store_true", help="machine-readable output")
    mcp_status = mcp_commands.add_parser(
        "status", help="connect and show connection, app availability, tools and last error"
    )
    mcp_status.add_argument("--json", action="store_true", help="machine-readable output")
    mcp_tools = mcp_commands.add_parser("tools", help="the tools an agent sees")
    mcp_tools.add_argument("server", nargs="?", help="only this server")
    mcp_tools.add_argument("--json", action="store_true", help="machine-readable output")
    mcp_tools.add_argument(
        "--search",
        metavar="TEXT",
        help="only the tools that best match TEXT, best first (the search `hermes chat` uses)",
    )
    mcp_tools.add_argument(
        "--overrides",
        action="store_true",
        help="what each tools.overrides entry of config.yaml changed (and the ones not applied)",
    )
    mcp_call = mcp_commands.add_parser(
        "call",
        help="call a tool: `hermes mcp call TOOL key=value …` (--json: the raw result)",
        description="Call one tool and print its result: text content as text, images and "
        "resources summarised (--json prints the raw result). Arguments are key=value pairs "
        "(a value is read as JSON where it parses, else as a string; key:=JSON forces JSON) "
        "or one --args JSON object.",
    )
    mcp_call.add_argument("tool", help="the registered name, e.g. mcp_github_search")
    mcp_call.add_argument(
        "pairs",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="one argument (repeat it); key:=JSON for a value that must be JSON",
    )
    mcp_call.add_argument("--args", default=None, help="arguments as a JSON object")
    mcp_call.add_argument(
        "--json", action="store_true", help="print the raw result (JSON), not its text"
    )
    mcp_call.add_argument(
        "--approvals",
        choices=["terminal", "store"],
        default="terminal",
        help="where a server's questions are asked: on this terminal (default), or recorded "
        "in state.db for a `hermes mcp serve` client to answer",
    )
    mcp_call.add_argument(
        "--server", help="the server that owns the tool (default: read from the tool's name)"
    )
    mcp_call.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show the server's log messages (notifications/message) on stderr",
    )
    _add_record_parsers(mcp_commands, parser_class)


def add_server_edit_parsers(mcp_commands: Commands) -> None:
    """``add``, ``remove``/``enable``/``disable``, ``test``, ``login`` and
    ``oauth-client-document``."""
    _add_add_parser(mcp_commands)
    for verb in ("remove", "enable", "disable"):
        edit = mcp_commands.add_parser(verb, help=f"{verb} a server in config.yaml")
        edit.add_argument("name", help="the server's name in config.yaml")
    mcp_test = mcp_commands.add_parser("test", help="connect one server, list its tools, time it")
    mcp_test.add_argument("name", help="the server's name in config.yaml")
    mcp_test.add_argument("--json", action="store_true", help="machine-readable output")
    mcp_login = mcp_commands.add_parser(
        "login",
        help="log in to an `auth: oauth` server (browser; waits up to 5 minutes)",
        description="Run a new OAuth login for one server and save its tokens to "
        "$HERMES_HOME/mcp-tokens/NAME.json (mode 0600). The saved tokens are replaced only "
        "when the new login succeeds.",
    )
    mcp_login.add_argument("name", help="the server's name in config.yaml")
    document = mcp_commands.add_parser(
        "oauth-client-document",
        help="print the OAuth client ID metadata document to publish at URL",
        description="Print the client ID metadata document (JSON) to publish at URL, an https "
        "address you control. With HERMES_OAUTH_CLIENT_METADATA_URL=URL set, OAuth logins "
        "offer URL as the client ID to authorization servers that support client ID metadata "
        "documents, and register dynamically with the others.",
    )
    document.add_argument("url", help="the https address the document will be published at")
    document.add_argument("--client-name", default=None, help="shown on consent screens")


def _add_add_parser(mcp_commands: Commands) -> None:
    """``hermes mcp add`` (docs/cli.md)."""
    mcp_add = mcp_commands.add_parser(
        "add",
        help="add a server to config.yaml (probed first; saved disabled if the probe fails)",
        description="Add a server: `hermes mcp add NAME -- CMD ARGS…` (a stdio server: the "
        "command is the first word after `--`), `hermes mcp add NAME URL` or "
        "`hermes mcp add -t sse NAME URL` (an HTTP server). The server is started once to "
        "list its tools; it is saved disabled when that fails.",
    )
    mcp_add.add_argument("name", help="the server's name in config.yaml (A-Z a-z 0-9 _ . -)")
    mcp_add.add_argument(
        "target",
        nargs="?",
        metavar="URL",
        help="an HTTP server's endpoint (as --url); a stdio server's command goes after `--`",
    )
    how = mcp_add.add_mutually_exclusive_group()
    how.add_argument("--command", dest="server_command", help="a stdio server's command")
    how.add_argument("--url", help="an HTTP server's endpoint (Streamable HTTP, or SSE)")
    how.add_argument("--preset", help="a known server (codex)")
    mcp_add.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="VALUE",
        help="one argument of the command (repeat it; --arg=-y for a value starting with -)",
    )
    mcp_add.add_argument(
        "-e",
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help="an environment variable of a stdio server (repeat it)",
    )
    mcp_add.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="K=V",
        help="an HTTP header sent to a URL server, 'K=V' or 'K: V' (repeat it)",
    )
    mcp_add.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="NAMES",
        help="offer only these tools (names or globs, comma-separated or repeated)",
    )
    mcp_add.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="NAMES",
        help="hide these tools (names or globs, comma-separated or repeated)",
    )
    mcp_add.add_argument(
        "--connect-timeout",
        type=float,
        metavar="SECONDS",
        help="how long starting the server may take (default 30 s)",
    )
    mcp_add.add_argument(
        "--auth",
        metavar="NAME",
        help="a registered auth provider: oauth (then `hermes mcp login`), headers, a plugin's",
    )
    mcp_add.add_argument(
        "-t",
        "--transport",
        metavar="NAME",
        help="stdio, http (Streamable HTTP), sse, or a plugin's transport (default: stdio for "
        "a command, http for a URL)",
    )
    _add_add_options(mcp_add)


def _add_add_options(mcp_add: argparse.ArgumentParser) -> None:
    """``hermes mcp add``'s options about saving: probing, replacing, scope and the rest."""
    mcp_add.add_argument("--no-probe", action="store_true", help="save without connecting")
    mcp_add.add_argument("--replace", action="store_true", help="overwrite an existing entry")
    mcp_add.add_argument(
        "-s",
        "--scope",
        choices=["user", "project", "local"],
        default="user",
        help="Claude Code's scopes: user (the default) is Hermes's one config.yaml per "
        "HERMES_HOME; project and local are refused with what to do instead",
    )
    mcp_add.add_argument(
        "--args",
        nargs=argparse.REMAINDER,
        default=[],
        help="the command's arguments: the rest of the line (or put them after `--`)",
    )
    mcp_add.set_defaults(add_parser=mcp_add)


def _add_record_parsers(mcp_commands: Commands, parser_class: type[HermesParser]) -> None:
    """``tasks``, ``audit`` and ``sampling``: what was done and what answers servers."""
    mcp_tasks = mcp_commands.add_parser(
        "tasks", help="the tasks of task-augmented calls made here, newest first"
    )
    mcp_tasks.add_argument("--server", help="only this server's tasks")
    mcp_tasks.add_argument("--json", action="store_true", help="one JSON object per task")
    mcp_audit = mcp_commands.add_parser(
        "audit", help="the audit log of tool calls ($HERMES_HOME/logs/audit.jsonl)"
    )
    mcp_audit.add_argument("--since", help="only calls since: an age (30m, 2h, 7d) or a date")
    mcp_audit.add_argument("--server", help="only this server's calls")
    mcp_audit.add_argument("--json", action="store_true", help="one JSON object per line")
    sampling = mcp_commands.add_parser("sampling", help="the LLM behind servers' sampling")
    sampling.set_defaults(command_parser=sampling)
    sampling_commands = sampling.add_subparsers(
        dest="sampling_command", metavar="COMMAND", parser_class=parser_class
    )
    sampling_models = sampling_commands.add_parser(
        "models",
        help="the models the installed sampling backends offer (names for sampling.model)",
        description="List every model the installed sampling backends (sampling_provider "
        "plugins, e.g. hermes-llm) offer, with its aliases. Exit 1 when there is none.",
    )
    sampling_models.add_argument("--json", action="store_true", help="machine-readable output")
