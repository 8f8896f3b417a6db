"""The ``hermes`` argument parser: every command, subcommand and flag.

Builds the parser only (``hermes --help`` imports nothing else): the handlers live in the
subcommand modules that :mod:`hermes_core.cli.commands` imports when one runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hermes_core import __version__
from hermes_core.cli.parser_base import Commands, HermesParser
from hermes_core.cli.parser_browse import add_browse_parsers
from hermes_core.cli.parser_doctor import add_doctor_parser
from hermes_core.cli.parser_entries import add_entry_parsers
from hermes_core.cli.parser_mcp import add_inspect_parsers, add_server_edit_parsers
from hermes_core.cli.parser_state import add_state_parsers
from hermes_core.cli.parser_trust import add_trust_parsers
from hermes_core.cli.parser_update import add_update_parser
from hermes_core.importing.names import EXPORT_ALIASES, EXPORT_FORMATS, SOURCE_NAMES

__all__ = ["DEFAULT_SERVE_PORT", "build_parser", "split_server_args"]

#: ``hermes mcp serve --http``'s default port.
DEFAULT_SERVE_PORT = 8765

#: ``hermes dashboard``'s default port.
DEFAULT_DASHBOARD_PORT = 8766


def build_parser() -> argparse.ArgumentParser:
    parser = HermesParser(
        prog="hermes", description="Host MCP servers safely, and only where they can work."
    )
    parser.add_argument("--version", action="version", version=f"hermes {__version__}")
    parser.add_argument(
        "--no-plugins",
        action="store_true",
        help="load no external plugins (they are listed as disabled, never imported)",
    )
    parser.add_argument(
        "--profile",
        dest="hermes_profile",
        metavar="NAME",
        help="who this Hermes runs for (sets HERMES_PROFILE): the value an `identity_header` "
        "with `value_from: profile` sends (default: $HERMES_PROFILE, else 'default')",
    )
    parser.add_argument(
        "--no-color",
        action="store_true",
        help="no colour, anywhere on the line (as NO_COLOR=1; off a terminal there is none)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=HermesParser)

    _add_apps_parser(commands)

    mcp = commands.add_parser("mcp", help="configured MCP servers: status, tools, calls")
    mcp.set_defaults(command_parser=mcp)
    mcp_commands = mcp.add_subparsers(
        dest="mcp_command", metavar="COMMAND", parser_class=HermesParser
    )
    add_inspect_parsers(mcp_commands, HermesParser)
    add_server_edit_parsers(mcp_commands)
    add_entry_parsers(mcp_commands)
    add_browse_parsers(mcp_commands)
    _add_import_parsers(mcp_commands, commands)
    add_trust_parsers(mcp_commands, HermesParser)
    add_doctor_parser(mcp_commands)
    _add_serve_parser(mcp_commands)
    _add_proxy_parser(mcp_commands)
    _add_warm_parsers(mcp_commands)
    _add_catalog_parsers(mcp_commands)

    _add_chat_parser(commands)
    _add_dashboard_parser(commands)
    add_update_parser(commands)

    _add_plugins_parsers(commands)
    _add_skills_parser(commands)
    add_state_parsers(commands, HermesParser)
    return parser


def _add_apps_parser(commands: Commands) -> None:
    """``hermes apps``: the application declarations on this machine."""
    apps = commands.add_parser("apps", help="application declarations on this machine")
    apps.set_defaults(command_parser=apps)
    apps_commands = apps.add_subparsers(
        dest="apps_command", metavar="COMMAND", parser_class=HermesParser
    )
    check = apps_commands.add_parser(
        "check",
        help="evaluate declarations on this machine and explain each state",
        description="Parse plugin.yaml declaration files (default: those under ./examples), "
        "evaluate each on this machine and print its state. Exit 0 when every server is "
        "offerable, 1 when any is not, 2 on a bad file.",
    )
    check.add_argument(
        "paths", nargs="*", default=[], metavar="PATH", help="plugin.yaml files or folders"
    )
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.add_argument("--explain", action="store_true", help="show every location tried")


def _add_plugins_parsers(commands: Commands) -> None:
    """``hermes plugins``: the installed plugins, and a new one's scaffold."""
    plugins = commands.add_parser("plugins", help="installed Hermes plugins")
    plugins.set_defaults(command_parser=plugins)
    plugins_commands = plugins.add_subparsers(
        dest="plugins_command", metavar="COMMAND", parser_class=HermesParser
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
    new.add_argument(
        "--dist",
        metavar="NAME",
        help="the distribution's name on PyPI (default: NAME-hermes)",
    )
    new.add_argument(
        "--display-name",
        metavar="TEXT",
        help="the app's name as users read it (default: NAME's words capitalised, "
        "acme-paint → Acme Paint)",
    )


def _add_skills_parser(commands: Commands) -> None:
    """``hermes skills``."""
    skills = commands.add_parser("skills", help="skills (SKILL.md) and whether they are offered")
    skills.set_defaults(command_parser=skills)
    skills_commands = skills.add_subparsers(
        dest="skills_command", metavar="COMMAND", parser_class=HermesParser
    )
    skills_list = skills_commands.add_parser(
        "list",
        help="skills in HERMES_HOME and in plugins, their source, visible or hidden and why",
    )
    skills_list.add_argument("--json", action="store_true", help="machine-readable output")


def _add_chat_parser(commands: Commands) -> None:
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


def _add_dashboard_parser(commands: Commands) -> None:
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


def _add_import_parsers(mcp_commands: Commands, commands: Commands) -> None:
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
        description="Print config.yaml's servers for another client, named as for `hermes "
        "mcp import`: Claude Code (.mcp.json), Claude Desktop, Cursor (mcp.json), VS Code "
        "(.vscode/mcp.json), Codex (config.toml), Gemini CLI (settings.json) or Windsurf "
        "(mcp_config.json). Secrets are written as variable references, never values; what "
        "the client cannot express is listed on stderr.",
    )
    exporter.add_argument(
        "--format",
        required=True,
        choices=EXPORT_FORMATS,
        type=lambda written: EXPORT_ALIASES.get(written, written),
        metavar="CLIENT",
        help=f"one of: {', '.join(EXPORT_FORMATS)}",
    )
    agent = commands.add_parser(
        "import-agent",
        help="move another agent's MCP servers and skills into Hermes",
        description="claude-code: the MCP servers (as `hermes mcp import claude-code`) and "
        "~/.claude/skills/*/SKILL.md into $HERMES_HOME/skills (an existing skill is never "
        "overwritten).",
    )
    agent.add_argument("agent", choices=["claude-code"], help="the agent: claude-code")
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


def _add_serve_parser(commands: Commands) -> None:
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


def _add_proxy_parser(commands: Commands) -> None:
    """Add ``proxy`` to ``hermes mcp``."""
    parser = commands.add_parser(
        "proxy",
        help="serve every configured server's tools to another agent (stdio; --http)",
        description="Run Hermes as one MCP server offering the configured servers' tools "
        "(mcp_<server>_<tool>), resources and prompts, with Hermes's filters, gates, trust "
        "tiers and approvals. Profiles (proxy.profiles in config.yaml) narrow what is "
        "offered. --http needs a bearer token: $HERMES_HOME/proxy-token (printed once, when "
        "created), or a profile's own token. See docs/proxy.md.",
    )
    parser.add_argument("--profile", metavar="NAME", help="serve only this profile")
    parser.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="serve Streamable HTTP on HOST (default 127.0.0.1) and PORT, not stdio",
    )
    parser.add_argument(
        "--new-token", action="store_true", help="replace the stored token (with --http)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at debug level")


def _add_warm_parsers(commands: Commands) -> None:
    """Add ``up`` and ``down`` to ``hermes mcp``."""
    up = commands.add_parser(
        "up",
        help="start a warm host in the background: status/tools/call/test use it",
        description="Start every configured server once, in a background host for this "
        "HERMES_HOME (socket $HERMES_HOME/run/host.sock, mode 0600; log "
        "$HERMES_HOME/logs/warm-host.log). While it runs, `hermes mcp status`, `tools`, "
        "`call` and `test` use it instead of starting the servers again (HERMES_WARM=0 "
        "turns that off). It follows config.yaml edits. `hermes mcp down` stops it.",
    )
    up.add_argument("--http", metavar="[HOST:]PORT", help="also serve `hermes mcp proxy` over HTTP")
    up.add_argument("--foreground", action="store_true", help=argparse.SUPPRESS)
    commands.add_parser("down", help="stop the warm host and every server it started")


def _add_catalog_parsers(commands: Commands) -> None:
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
    install.add_argument(
        "name",
        help="a catalog entry's name (see `hermes mcp catalog`), a registry server's name "
        "(io.github.acme/weather[@VERSION], see `hermes mcp search`) or a .mcpb bundle",
    )
    install.add_argument("--yes", "-y", action="store_true", help="do not ask before installing")
    _add_registry_install_flags(install)
    configure = commands.add_parser(
        "configure", help="choose a configured server's tools (a checklist; needs a terminal)"
    )
    configure.add_argument("name", help="the server's name in config.yaml")
    suggest = commands.add_parser(
        "suggest", help="catalog entries a text calls for (keywords, links)"
    )
    suggest.add_argument("text", nargs="+", help="the text: keywords, links")
    suggest.add_argument("--json", action="store_true", help="machine-readable output")
    search = commands.add_parser(
        "search",
        help="search the MCP registries (unvetted servers) by name",
        description="Servers of the configured registries (registries: in config.yaml; "
        "default the official MCP Registry) whose name contains TEXT, one page at a time.",
    )
    search.add_argument(
        "text", nargs="*", default=[], help="part of the server's name (empty: everything)"
    )
    search.add_argument("--registry", metavar="NAME|URL", help="ask only this registry")
    search.add_argument("--cursor", help="the page after this cursor (printed under a page)")
    search.add_argument("--limit", type=int, default=30, help="servers per page (1-100)")
    search.add_argument("--json", action="store_true", help="machine-readable output")
    update = commands.add_parser(
        "update",
        help="show and apply newer versions of registry and bundle installs",
        description="For servers installed from a registry or a .mcpb bundle: show a newer "
        "version and, when confirmed (or with --yes), install it (the tool choice is kept). "
        "Nothing updates by itself.",
    )
    update.add_argument("name", nargs="?", help="only this server")
    update.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    update.add_argument("--json", action="store_true", help="list what is newer, as JSON")


def _add_registry_install_flags(install: argparse.ArgumentParser) -> None:
    install.add_argument(
        "--registry", metavar="NAME|URL", help="install from this registry (name or URL)"
    )
    install.add_argument(
        "--name", dest="as_name", metavar="NAME", help="the mcp_servers name to install as"
    )
    install.add_argument(
        "--package",
        choices=["npm", "pypi", "oci", "mcpb", "remote"],
        help="which of the server's packages (or its remote endpoint) to install",
    )
    install.add_argument(
        "--sha256", metavar="HEX", help="the bundle's expected SHA-256 (required for a URL)"
    )


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
