"""The ``hermes`` command line.

Exit codes: 0 ok, 1 something is unavailable or failed, 2 bad usage or a bad
file (the message names the file, the key and what is wrong), 3 a broken plugin
(``hermes plugins list``, and any command under ``HERMES_STRICT_PLUGINS=1``), 130
interrupted (Ctrl-C), 141 output cut short by its reader.  Subcommands
import only what they need: nothing here imports ``mcp``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hermes_core import __version__
from hermes_core.plugins.errors import PluginError

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["main"]

EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE, EXIT_PLUGIN = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130


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
    from hermes_core.cli.mcp_import import add_parsers as add_import_parsers

    add_import_parsers(mcp_commands, commands)
    from hermes_core.cli import mcp_serve

    mcp_serve.add_parser(mcp_commands)
    from hermes_core.cli.mcp_catalog_commands import add_catalog_commands

    add_catalog_commands(mcp_commands)

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


def _manager(args: argparse.Namespace) -> HermesPluginManager:
    from hermes_core.plugins.manager import get_plugin_manager

    try:
        return get_plugin_manager(no_plugins=args.no_plugins)
    except PluginError as exc:  # strict mode (HERMES_STRICT_PLUGINS=1)
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_PLUGIN) from None


def _split_server_args(argv: list[str]) -> tuple[list[str], list[str] | None]:
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; output cut short by its reader (``hermes mcp tools --json | head -1``)
    ends quietly, as for any Unix tool, with exit code 141 (SIGPIPE's).  Ctrl-C ends it with
    one line and exit code 130 (128 + SIGINT), after the servers it started were stopped."""
    try:
        code = _run(argv)
        sys.stdout.flush()
    except KeyboardInterrupt:
        print("hermes: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        import os

        # Nothing more can be written; point stdout at devnull so the interpreter's final
        # flush does not print "Exception ignored … BrokenPipeError" either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return code


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    words, after_dashes = _split_server_args(list(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(words)
    if getattr(args, "handler", None) is not None:
        return int(args.handler(args))
    if args.command == "apps" and args.apps_command == "check":
        from hermes_core.cli.apps import check

        return check(args.paths, _manager(args), as_json=args.json, explain=args.explain)
    if args.command == "mcp" and getattr(args, "mcp_command", None) == "list":
        from hermes_core.cli.list_record import list_recorded

        if list_recorded(as_json=args.json, no_plugins=args.no_plugins):
            return 0
    if args.command == "mcp":
        from hermes_core.cli.mcp_catalog_commands import run_catalog_command

        code = run_catalog_command(args, lambda: _manager(args))
        if code is not None:
            return code
    if args.command == "mcp" and getattr(args, "mcp_command", None):
        from hermes_core.cli import mcp

        if args.mcp_command == "list":
            return mcp.list_servers(
                as_json=args.json, plugins=lambda: _manager(args), no_plugins=args.no_plugins
            )
        if args.mcp_command == "login":
            from hermes_core.cli.mcp_login import login

            return login(args.name, manager=_manager(args))
        if args.mcp_command == "oauth-client-document":
            from hermes_core.cli.mcp_login import client_document

            return client_document(args.url, args.client_name)
        if args.mcp_command in ("add", "remove", "enable", "disable"):
            from hermes_core.cli import mcp_edit

            if args.mcp_command == "remove":
                return mcp_edit.remove(args.name, _manager(args))
            if args.mcp_command in ("enable", "disable"):
                return mcp_edit.set_enabled(args.name, args.mcp_command == "enable", _manager(args))
            own = {o for a in args.add_parser._actions for o in a.option_strings}
            try:
                server_args = mcp_edit.server_args(args.arg, args.args, after_dashes, own)
                entry = mcp_edit.build_entry(
                    command=args.server_command,
                    args=server_args,
                    url=args.url,
                    preset=args.preset,
                    env=args.env,
                    headers=args.header,
                    connect_timeout=args.connect_timeout,
                    auth=args.auth,
                    include=args.include,
                    exclude=args.exclude,
                    transport=args.transport,
                )
            except ValueError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return EXIT_USAGE
            return mcp_edit.add(
                args.name,
                entry,
                probe=not args.no_probe,
                replace=args.replace,
                manager=_manager(args),
                preset=args.preset is not None,
            )
        manager = _manager(args)
        if args.mcp_command == "status":
            return mcp.status(manager, as_json=args.json)
        if args.mcp_command == "tools":
            return mcp.tools(manager, args.server, as_json=args.json)
        if args.mcp_command == "call":
            return mcp.call(
                manager,
                args.tool,
                args.args,
                approvals=args.approvals,
                server=args.server,
                verbose=args.verbose,
            )
        if args.mcp_command == "serve":
            from hermes_core.cli.mcp_serve import serve

            return serve(args, manager)
        if args.mcp_command == "test":
            return mcp.test_server(manager, args.name, as_json=args.json)
        if args.mcp_command == "sampling" and getattr(args, "sampling_command", None):
            return mcp.sampling_models(manager, as_json=args.json)
    if args.command == "plugins" and args.plugins_command == "new":
        from hermes_core.cli.plugins import new_plugin

        return new_plugin(args.name, args.target)
    if args.command == "plugins" and args.plugins_command == "list":
        from hermes_core.cli.plugins import list_plugins
        from hermes_core.home import hermes_home
        from hermes_core.plugins import config_keys

        manager = _manager(args)
        # What `mcp list` validates against, recorded afresh (an edited plugin is seen here).
        config_keys.record(hermes_home(), manager, no_plugins=args.no_plugins)
        return list_plugins(manager, as_json=args.json)
    if args.command == "skills" and args.skills_command == "list":
        from hermes_core.cli.skills import list_skills

        return list_skills(_manager(args), as_json=args.json)
    getattr(args, "command_parser", parser).print_help(sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
