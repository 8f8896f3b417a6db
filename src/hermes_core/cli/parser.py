"""The ``hermes`` argument parser: every command, subcommand and flag.

Builds the parser only (``hermes --help`` imports nothing else): the handlers live in the
subcommand modules that :mod:`hermes_core.cli.commands` imports when one runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TypeAlias

from hermes_core import __version__
from hermes_core.cli.common import EXIT_USAGE
from hermes_core.importing.names import EXPORT_FORMATS, SOURCE_NAMES

__all__ = ["DEFAULT_SERVE_PORT", "build_parser", "split_server_args"]

#: The subcommands of one parser (what ``add_subparsers`` returns).
_Commands: TypeAlias = "argparse._SubParsersAction[_Parser]"

#: ``hermes mcp serve --http``'s default port.
DEFAULT_SERVE_PORT = 8765

#: ``hermes dashboard``'s default port.
DEFAULT_DASHBOARD_PORT = 8766


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hermes", description="Host MCP servers safely, and only where they can work."
    )
    parser.add_argument("--version", action="version", version=f"hermes {__version__}")
    parser.add_argument(
        "--no-plugins",
        action="store_true",
        help="load no external plugins (they are listed as disabled, never imported)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    apps = commands.add_parser("apps", help="application declarations on this machine")
    apps.set_defaults(command_parser=apps)
    apps_commands = apps.add_subparsers(
        dest="apps_command", metavar="COMMAND", parser_class=_Parser
    )
    check = apps_commands.add_parser(
        "check",
        help="evaluate declarations on this machine and explain each state",
        description="Parse plugin.yaml declaration files (default: those under ./examples), "
        "evaluate each on this machine and print its state. Exit 0 when every server is "
        "offerable, 1 when any is not, 2 on a bad file.",
    )
    check.add_argument("paths", nargs="*", metavar="PATH", help="plugin.yaml files or folders")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.add_argument("--explain", action="store_true", help="show every location tried")

    mcp = commands.add_parser("mcp", help="configured MCP servers: status, tools, calls")
    mcp.set_defaults(command_parser=mcp)
    mcp_commands = mcp.add_subparsers(dest="mcp_command", metavar="COMMAND", parser_class=_Parser)
    mcp_list = mcp_commands.add_parser("list", help="configured servers (no connection)")
    mcp_list.add_argument("--json", action="store_true")
    mcp_status = mcp_commands.add_parser(
        "status", help="connect and show connection, app availability, tools and last error"
    )
    mcp_status.add_argument("--json", action="store_true")
    mcp_tools = mcp_commands.add_parser("tools", help="the tools an agent sees")
    mcp_tools.add_argument("server", nargs="?", help="only this server")
    mcp_tools.add_argument("--json", action="store_true")
    mcp_tools.add_argument(
        "--search",
        metavar="TEXT",
        help="only the tools that best match TEXT, best first (the search `hermes chat` uses)",
    )
    mcp_call = mcp_commands.add_parser("call", help="call a tool and print its result as JSON")
    mcp_call.add_argument("tool", help="the registered name, e.g. mcp_github_search")
    mcp_call.add_argument("--args", default="{}", help="arguments as a JSON object")
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
    mcp_tasks = mcp_commands.add_parser(
        "tasks", help="the tasks of task-augmented calls made here, newest first"
    )
    mcp_tasks.add_argument("--server", help="only this server's tasks")
    mcp_tasks.add_argument("--json", action="store_true", help="one JSON object per task")
    sampling = mcp_commands.add_parser("sampling", help="the LLM behind servers' sampling")
    sampling.set_defaults(command_parser=sampling)
    sampling_commands = sampling.add_subparsers(
        dest="sampling_command", metavar="COMMAND", parser_class=_Parser
    )
    sampling_models = sampling_commands.add_parser(
        "models",
        help="the models the installed sampling backends offer (names for sampling.model)",
        description="List every model the installed sampling backends (sampling_provider "
        "plugins, e.g. hermes-llm) offer, with its aliases. Exit 1 when there is none.",
    )
    sampling_models.add_argument("--json", action="store_true", help="machine-readable output")
    mcp_add = mcp_commands.add_parser(
        "add",
        help="add a server to config.yaml (probed first; saved disabled if the probe fails)",
    )
    mcp_add.add_argument("name")
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
    mcp_add.add_argument("--env", action="append", default=[], metavar="K=V")
    mcp_add.add_argument("--header", action="append", default=[], metavar="K=V")
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
    mcp_add.add_argument("--connect-timeout", type=float)
    mcp_add.add_argument(
        "--auth",
        metavar="NAME",
        help="a registered auth provider: oauth (then `hermes mcp login`), headers, a plugin's",
    )
    mcp_add.add_argument(
        "--transport",
        metavar="NAME",
        help="a registered transport for the --command/--url entry (sse, a plugin's)",
    )
    mcp_add.add_argument("--no-probe", action="store_true", help="save without connecting")
    mcp_add.add_argument("--replace", action="store_true", help="overwrite an existing entry")
    mcp_add.add_argument(
        "--args",
        nargs=argparse.REMAINDER,
        default=[],
        help="the command's arguments: the rest of the line (or put them after `--`)",
    )
    mcp_add.set_defaults(add_parser=mcp_add)
    for verb, text in (("remove", "remove a server"), ("enable", "enable"), ("disable", "disable")):
        edit = mcp_commands.add_parser(verb, help=f"{text} a server in config.yaml")
        edit.add_argument("name")
    mcp_test = mcp_commands.add_parser("test", help="connect one server, list its tools, time it")
    mcp_test.add_argument("name")
    mcp_test.add_argument("--json", action="store_true")
    mcp_login = mcp_commands.add_parser(
        "login",
        help="log in to an `auth: oauth` server (browser; waits up to 5 minutes)",
        description="Run a new OAuth login for one server and save its tokens to "
        "$HERMES_HOME/mcp-tokens/NAME.json (mode 0600). The saved tokens are replaced only "
        "when the new login succeeds.",
    )
    mcp_login.add_argument("name")
    document = mcp_commands.add_parser(
        "oauth-client-document",
        help="print the OAuth client ID metadata document to publish at URL",
        description="Print the client ID metadata document (JSON) to publish at URL, an https "
        "address you control. With HERMES_OAUTH_CLIENT_METADATA_URL=URL set, OAuth logins "
        "offer URL as the client ID to authorization servers that support client ID metadata "
        "documents, and register dynamically with the others.",
    )
    document.add_argument("url")
    document.add_argument("--client-name", default=None, help="shown on consent screens")
    _add_import_parsers(mcp_commands, commands)
    _add_serve_parser(mcp_commands)
    _add_catalog_parsers(mcp_commands)

    _add_chat_parser(commands)
    _add_dashboard_parser(commands)

    plugins = commands.add_parser("plugins", help="installed Hermes plugins")
    plugins.set_defaults(command_parser=plugins)
    plugins_commands = plugins.add_subparsers(
        dest="plugins_command", metavar="COMMAND", parser_class=_Parser
    )
    listing = plugins_commands.add_parser(
        "list",
        help="plugins, their distributions, hooks, contributions and status",
        description="Each plugin's locators and GPU probes are also run on fake linux, darwin "
        "and win32 hosts. Exit 0 when every plugin loaded cleanly, 3 when one failed or is "
        "degraded (loaded, but a hook or a contribution misbehaved).",
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    new = plugins_commands.add_parser(
        "new",
        help="scaffold a plugin package (declaration, MCP server, skill, tests)",
        description="Write a plugin distribution for the MCP server NAME: pyproject.toml with "
        "the hermes.plugins entry point, plugin.yaml, the plugin module, an MCP server written "
        "with the mcp SDK, a skill and tests on fake Windows, macOS and Linux hosts. "
        "docs/plugin-authors.md continues from there.",
    )
    new.add_argument("name", help="the MCP server name, e.g. acme-paint (lowercase, hyphens)")
    new.add_argument(
        "--dir", dest="target", metavar="PATH", help="where to write it (default: ./NAME)"
    )

    skills = commands.add_parser("skills", help="skills (SKILL.md) and whether they are offered")
    skills.set_defaults(command_parser=skills)
    skills_commands = skills.add_subparsers(
        dest="skills_command", metavar="COMMAND", parser_class=_Parser
    )
    skills_list = skills_commands.add_parser(
        "list",
        help="skills in HERMES_HOME and in plugins, their source, visible or hidden and why",
    )
    skills_list.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def _add_chat_parser(commands: _Commands) -> None:
    """Add ``hermes chat``."""
    chat = commands.add_parser(
        "chat",
        help="chat with an llm model that uses the MCP servers' tools",
        description="Talk to any llm model (OpenAI, Anthropic, Gemini, Ollama … through their "
        "llm plugins; keys as llm keeps them) with the configured servers' tools. Tool calls "
        "go through the host: trust prompts and servers' questions are asked here. Slash "
        "commands: /tools, /mcp, /reload-mcp, /model [NAME], /help, /exit. The conversation "
        "is kept in $HERMES_HOME/state.db.",
    )
    chat.add_argument(
        "-m", "--model", help="an llm model ID or alias (default: model: in config.yaml)"
    )
    chat.add_argument(
        "-q", "--query", metavar="PROMPT", help="one turn with PROMPT, then exit (no prompt loop)"
    )


def _add_dashboard_parser(commands: _Commands) -> None:
    """Add ``hermes dashboard``."""
    dashboard = commands.add_parser(
        "dashboard",
        help="a local web page: servers, gates, tools, the catalog, pending questions",
        description="Serve the dashboard on 127.0.0.1 and print its URL (with a one-time "
        "login token) on the first line; the browser opens unless --no-open. Ctrl-C stops.",
    )
    dashboard.add_argument(
        "--port",
        type=int,
        default=DEFAULT_DASHBOARD_PORT,
        help=f"port on 127.0.0.1 (default {DEFAULT_DASHBOARD_PORT}; 0: any free one)",
    )
    dashboard.add_argument("--no-open", action="store_true", help="do not open a browser")


def _add_import_parsers(mcp_commands: _Commands, commands: _Commands) -> None:
    """Register ``mcp import``, ``mcp export`` and ``import-agent``."""
    importer = mcp_commands.add_parser(
        "import",
        help="import servers from another client's configuration",
        description="Translate another MCP client's servers into config.yaml. Existing names "
        "are kept unless --overwrite; --dry-run shows the entries (secrets masked) and what "
        "would be left out. Translation tables: docs/import.md.",
    )
    importer.add_argument(
        "source",
        choices=SOURCE_NAMES,
        metavar="SOURCE",
        help=f"one of: {', '.join(SOURCE_NAMES)}",
    )
    _import_flags(importer)
    exporter = mcp_commands.add_parser(
        "export",
        help="print the configured servers in another client's format",
        description="Print config.yaml's servers for Claude Code (.mcp.json), Cursor "
        "(mcp.json), VS Code (.vscode/mcp.json) or Codex (config.toml). Secrets are written as "
        "variable references, never values; what the client cannot express is listed on stderr.",
    )
    exporter.add_argument("--format", required=True, choices=EXPORT_FORMATS)
    agent = commands.add_parser(
        "import-agent",
        help="move another agent's MCP servers and skills into Hermes",
        description="claude-code: the MCP servers (as `hermes mcp import claude-code`) and "
        "~/.claude/skills/*/SKILL.md into $HERMES_HOME/skills (an existing skill is never "
        "overwritten).",
    )
    agent.add_argument("agent", choices=["claude-code"])
    _import_flags(agent)


def _import_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path",
        action="append",
        type=Path,
        metavar="FILE",
        help="read this file instead of the client's usual ones (repeatable)",
    )
    parser.add_argument("--dry-run", action="store_true", help="show what would be written")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace servers of the same name already in config.yaml",
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="import only these servers")


def _add_serve_parser(commands: _Commands) -> None:
    """Add ``serve`` to ``hermes mcp``."""
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
        "--port",
        type=int,
        default=DEFAULT_SERVE_PORT,
        help=f"--http port (default {DEFAULT_SERVE_PORT})",
    )
    parser.add_argument(
        "--new-token", action="store_true", help="--http: replace the stored bearer token"
    )


def _add_catalog_parsers(commands: _Commands) -> None:
    """Add ``catalog``, ``install``, ``configure`` and ``suggest`` to ``hermes mcp``."""
    listing = commands.add_parser(
        "catalog", help="the catalog of vetted servers and their state here"
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    install = commands.add_parser(
        "install",
        help="install a catalog entry (shows what will run and asks first)",
        description="Show what will run (source, bootstrap commands, the command or URL), ask, "
        "fetch and bootstrap it into $HERMES_HOME/mcp-installs/NAME, ask for its keys "
        "(saved to $HERMES_HOME/.env), add it to config.yaml and choose its tools.",
    )
    install.add_argument("name", help="the entry's name (see `hermes mcp catalog`)")
    install.add_argument("--yes", "-y", action="store_true", help="do not ask before installing")
    configure = commands.add_parser(
        "configure", help="choose a configured server's tools (a checklist; needs a terminal)"
    )
    configure.add_argument("name")
    suggest = commands.add_parser(
        "suggest", help="catalog entries a text calls for (keywords, links)"
    )
    suggest.add_argument("text", nargs="+")
    suggest.add_argument("--json", action="store_true")


def split_server_args(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """``hermes mcp add NAME … -- ARGS``: everything after the first ``--`` is the server's
    (argparse would otherwise read it as positionals or swallow it into ``--args``)."""
    if "--" not in argv:
        return argv, None
    cut = argv.index("--")
    head = argv[:cut]
    for i in range(len(head) - 1):
        if head[i] == "mcp" and head[i + 1] == "add":
            if "--args" in head[i + 2 :]:
                return argv, None  # `--args -- …`: --args takes the rest, `--` included
            return head, argv[cut + 1 :]
        if not head[i].startswith("-"):
            break
    return argv, None
