"""``hermes mcp add NAME …``: build the entry from the flags, probe the server, save it to
``config.yaml`` (atomically, keeping comments; disabled when the probe fails)."""

from __future__ import annotations

import argparse
import asyncio
import copy
import dataclasses
import os
import re
import sys
from typing import TYPE_CHECKING

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.disabled_save import say_runner_missing
from hermes_core.cli.loading import factory_for
from hermes_core.config import store
from hermes_core.config.dotenv_file import dotenv_path
from hermes_core.config.interpolate import load_dotenv, resolve
from hermes_core.config.loader import validate_server
from hermes_core.config.models import ConfigError
from hermes_core.config.secret_lift import VariableNames, lift_secrets, store_secrets
from hermes_core.config.server_edits import ALREADY_EXISTS
from hermes_core.home import hermes_home
from hermes_core.host.server_status import tool_count
from hermes_core.host.setup.factory import HostFactory
from hermes_platform.runners import missing_runner

if TYPE_CHECKING:
    from hermes_core.host.host import HostServer
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["PRESETS", "add", "build_entry", "run_add", "server_args"]

PRESETS: dict[str, dict[str, object]] = {
    "codex": {"command": "codex", "args": ["mcp-server"]},
}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def run_add(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp add NAME …``: the entry the flags describe (exit 2 on a bad one), then
    :func:`add`."""
    if args.scope != "user":
        print(f"error: {_SCOPES[args.scope]}", file=sys.stderr)
        return EXIT_USAGE
    own = {o for a in args.add_parser._actions for o in a.option_strings}
    try:
        command, url, after_dashes = _target(args)
        entry = build_entry(
            command=command,
            args=server_args(args.arg, args.args, after_dashes, own),
            url=url,
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
    return add(
        args.name,
        entry,
        probe=not args.no_probe,
        replace=args.replace,
        manager=plugins(),
        preset=args.preset is not None,
    )


#: What Hermes does instead of Claude Code's ``--scope project`` and ``--scope local``.
_SCOPES = {
    "project": "--scope project: Hermes keeps no per-project server file; servers live in "
    "$HERMES_HOME/config.yaml (the user scope, the default: drop -s), and "
    "`hermes mcp import claude-code` brings in a project's .mcp.json",
    "local": "--scope local: Hermes keeps no per-directory servers; servers live in "
    "$HERMES_HOME/config.yaml (the user scope, the default: drop -s), or point HERMES_HOME "
    "at a folder of this project's own",
}

#: ``-t`` values that only repeat what the entry's ``command``/``url`` selects anyway.
_IMPLIED_TRANSPORTS = {"command": ("stdio",), "url": ("http", "streamable_http", "streamablehttp")}


def _target(args: argparse.Namespace) -> tuple[str | None, str | None, list[str] | None]:
    """The command, the URL and the server's words after ``--`` that *args* give, in either
    form: ``--command C``/``--url U``, or Claude Code's ``NAME URL`` and ``NAME -- CMD ARGS…``
    (the first word after ``--`` is the command when no other flag names one)."""
    command, url, after_dashes = args.server_command, args.url, args.after_dashes
    target = args.target
    if target is not None:
        if command or url or args.preset:
            raise ValueError(f"give the server once: {target!r}, or --command/--url/--preset")
        transport = (args.transport or "").lower().replace("-", "_")
        if "://" in target or transport in ("http", "streamable_http", "sse"):
            url = target
        else:
            command = target
    if after_dashes is not None and not (command or url or args.preset):
        if not after_dashes:
            raise ValueError("nothing after `--`: give the server's command (-- CMD ARGS…)")
        command, after_dashes = after_dashes[0], after_dashes[1:]
    return command, url, after_dashes


def _pairs(values: list[str], what: str, pattern: re.Pattern[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for raw in values:
        if what == "header" and ":" in raw and ("=" not in raw or raw.index(":") < raw.index("=")):
            raw = raw.replace(":", "=", 1)  # curl's and Claude Code's `-H 'Name: value'`
            key, value = raw.split("=", 1)
            raw = f"{key}={value.lstrip()}"
        if "=" not in raw:
            raise ValueError(f"invalid --{what} value (expected NAME=VALUE)")
        key, value = raw.split("=", 1)
        key = key.strip()
        if not key:
            raise ValueError(f"invalid --{what} value (missing name)")
        if not pattern.fullmatch(key):
            raise ValueError(f"invalid --{what} name {key!r}")
        pairs[key] = value
    return pairs


def server_args(
    repeated: list[str], trailing: list[str], after_dashes: list[str] | None, own_flags: set[str]
) -> list[str]:
    """The stdio command's arguments from ``--arg V`` (repeated), ``--args …`` (the rest of the
    line) or everything after ``--``; only one form at a time.

    ``--args`` swallows the rest of the line, so a flag of ``hermes mcp add`` itself after it
    (``--args a b --env K=V``) is refused rather than handed to the server; ``--`` is the way
    to pass such a word to the server.
    """
    given = [form for form, values in (("--arg", repeated), ("--args", trailing)) if values]
    if after_dashes is not None:
        given.append("--")
    if len(given) > 1:
        raise ValueError(f"give the command's arguments one way: {' or '.join(given)}, not both")
    if trailing:
        values = trailing[1:] if trailing[0] == "--" else trailing
        for value in values:
            flag = value.split("=", 1)[0]
            if flag in own_flags:
                raise ValueError(
                    f"{flag!r} after --args would be passed to the server as an argument: put "
                    f"hermes flags before --args, or pass the server's arguments after `--` "
                    f"(everything after it is the server's)"
                )
        return list(values)
    if after_dashes is not None:
        return list(after_dashes)
    return list(repeated)


def _names(values: list[str], what: str) -> list[str]:
    names = [part.strip() for value in values for part in value.split(",")]
    if any(not name for name in names):
        raise ValueError(f"--{what}: empty tool name (give names or globs, comma-separated)")
    return names


def build_entry(
    *,
    command: str | None,
    args: list[str],
    url: str | None,
    preset: str | None,
    env: list[str],
    headers: list[str],
    connect_timeout: float | None,
    auth: str | None = None,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    transport: str | None = None,
) -> dict[str, object]:
    """The config entry the flags describe; ``ValueError`` says what is wrong (an unknown
    ``--transport``/``--auth`` name is found when the entry is validated)."""
    entry: dict[str, object] = {}
    if args and not command:
        raise ValueError("the server's arguments (--arg, --args, --) need --command")
    if auth is not None and not url:
        raise ValueError("--auth is only for HTTP servers (--url)")
    if url and command:
        raise ValueError("give either --url or --command, not both")
    if url:
        entry["url"] = url
    elif command:
        entry["command"] = command
        if args:
            entry["args"] = list(args)
    elif preset:
        if preset not in PRESETS:
            raise ValueError(f"unknown MCP preset {preset!r} (known: {', '.join(sorted(PRESETS))})")
        entry.update(PRESETS[preset])
    else:
        raise ValueError(
            "give the server: `hermes mcp add NAME -- CMD ARGS…`, `hermes mcp add NAME URL`, "
            "or --command <cmd>, --url <endpoint>, --preset <name>"
        )
    if env:
        if "url" in entry:
            raise ValueError("--env is only for stdio servers (--command or a stdio preset)")
        entry["env"] = _pairs(env, "env", _ENV_NAME)
    if headers:
        if "url" not in entry:
            raise ValueError("--header is only for HTTP servers (--url)")
        entry["headers"] = _pairs(headers, "header", _HEADER_NAME)
    if connect_timeout is not None:
        entry["connect_timeout"] = connect_timeout
    if auth is not None:
        entry["auth"] = auth
    if transport is not None:
        implied = _IMPLIED_TRANSPORTS["url" if "url" in entry else "command"]
        if transport.lower().replace("-", "_") not in implied:
            entry["transport"] = transport
    tools: dict[str, object] = {}
    if include:
        tools["include"] = _names(include, "include")
    if exclude:
        tools["exclude"] = _names(exclude, "exclude")
    if tools:
        entry["tools"] = tools
    return entry


def add(
    name: str,
    entry: dict[str, object],
    *,
    probe: bool = True,
    replace: bool = False,
    manager: HermesPluginManager | None = None,
    preset: bool = False,
) -> int:
    """Probe the server (connect, list tools), then save it; saved disabled when the probe fails.

    The probe and the validation use *manager*'s transports and auth providers.  A known
    runner (``uvx``, ``npx``, ``docker``…) or a *preset*'s program not on PATH is saved disabled
    without a probe, with what to install (:func:`hermes_platform.runners.missing_runner`),
    exit 1 — as ``hermes mcp install`` does."""
    factory = factory_for(manager)
    _cfg, problems, _warnings = validate_server(
        name, entry, path="(command line)", kinds=factory.kinds
    )
    if problems:
        print(f"error: {problems[0]}", file=sys.stderr)
        return EXIT_USAGE
    try:
        refused = factory.refused(name, _cfg) if _cfg is not None else None
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if refused is not None:
        print(f"error: {refused}; nothing was written", file=sys.stderr)
        return EXIT_FAILED
    try:
        store.check_writable()  # before the probe starts anything
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # One rule with import, install and export: a value that looks secret goes to .env (0600)
    # and config.yaml holds ${VAR} (hermes_core.config.secret_lift).
    try:
        # The edit must be possible (an existing name without --replace …) before .env changes.
        store.check_add(name, entry, replace=replace, kinds=factory.kinds)
        entry, secrets = _lifted(name, entry)
    except ConfigError as exc:
        if exc.reason == ALREADY_EXISTS:
            print(
                f"error: {exc.path}: mcp_servers.{name} already exists: add --replace to "
                f"overwrite it (or `hermes mcp remove {name}` first)",
                file=sys.stderr,
            )
        else:
            print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    problem: str | None = None
    tools = ""
    if str(entry.get("auth", "")).lower() == "oauth":
        # Authorising is its own step (a browser, up to 5 minutes): save first, then log in.
        probe = False
    # A runner not on PATH (`codex`, `uvx`): what a probe would find, said plainly (any other
    # command not found is left to the probe, whose failure reads "command not found").
    command = entry.get("command")
    missing = missing_runner(command if isinstance(command, str) else None) if probe else None
    if missing is not None and not (missing.known or preset):
        missing = None
    if missing is not None:
        probe = False
        entry = {**entry, "enabled": False}
    if probe:
        problem, tools = _probe(factory, name, entry)
        if problem is not None:
            entry = {**entry, "enabled": False}
    try:
        warnings = store.add_server(name, entry, replace=replace, kinds=factory.kinds)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if secrets:
        print(f"secrets moved to {dotenv_path()} (mode 0600): {', '.join(sorted(secrets))}")
    if problem is not None:
        print(f"saved '{name}' disabled: the probe failed: {problem}")
        print(f"fix the entry, then `hermes mcp enable {name}`")
        return EXIT_FAILED
    if missing is not None:
        say_runner_missing(name, missing)
        return EXIT_FAILED
    found = f" ({tools})" if probe else ""
    print(f"added '{name}'{found}; new sessions will use it")
    if entry.get("auth") == "oauth":
        print(f"now authorise it: `hermes mcp login {name}`")
    return EXIT_OK


def _lifted(name: str, entry: dict[str, object]) -> tuple[dict[str, object], dict[str, str]]:
    """*entry* with its literal secrets replaced by ``${VAR}``, the values stored in ``.env``
    first (so that the probe and the saved entry read them from there)."""
    lifted = copy.deepcopy(entry)
    names = VariableNames(os.environ, load_dotenv(dotenv_path()))
    secrets = lift_secrets(name, lifted, names)
    if secrets:
        store_secrets(dotenv_path(), secrets)
    return lifted, secrets


def _probe(factory: HostFactory, name: str, entry: dict[str, object]) -> tuple[str | None, str]:
    cfg, problems, _warnings = validate_server(
        name, entry, path="(command line)", kinds=factory.kinds
    )
    if problems or cfg is None:
        return (problems[0].reason if problems else "invalid entry"), ""
    try:
        dotenv = load_dotenv(hermes_home() / ".env")
        resolved = resolve(name, cfg, env=os.environ, dotenv=dotenv, workspace=os.getcwd())
    except ConfigError as exc:
        return str(exc), ""
    server = factory.server(name, resolved)
    if "connect_timeout" not in entry:
        server = _with_timeout(server, 30.0)

    async def run() -> tuple[str | None, str]:
        async with factory.host([server]) as host:
            (row,) = host.status()
            return row.last_error, tool_count(row.tools, row.host_tools)

    return asyncio.run(run())


def _with_timeout(server: HostServer, seconds: float) -> HostServer:
    return dataclasses.replace(server, connect_timeout=seconds)
