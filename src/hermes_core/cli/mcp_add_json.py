"""``hermes mcp add-json NAME JSON``: one server entry in another client's JSON shape,
translated by the import dialects (:mod:`hermes_core.importing.dialects`), then added as
``hermes mcp add`` adds one (probed first, saved disabled when the probe fails)."""

from __future__ import annotations

import argparse
import json
import os

from hermes_core.cli.common import EXIT_USAGE, PluginLoader
from hermes_core.cli.foreign_text import say
from hermes_core.cli.mcp_add import add
from hermes_core.importing.dialects import translate
from hermes_core.importing.model import ForeignServer

__all__ = ["guess_client", "run"]

#: The most a JSON argument may hold (one server's entry is a few hundred bytes).
MAX_JSON_CHARS = 256 * 1024
#: Keys only one client writes, and that client (checked in this order).
_TELLING_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("windsurf", ("serverUrl", "disabledTools")),
    ("gemini", ("httpUrl", "includeTools", "excludeTools", "trust", "authProviderType")),
    ("vscode", ("envFile", "dev", "sandbox", "sandboxEnabled", "gallery")),
)
#: Whole-file wrappers: the keys a client's file keeps its servers under.
_WRAPPERS = ("mcpServers", "servers", "mcp_servers", "mcp")


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp add-json NAME JSON [--client CLIENT] [--no-probe] [--replace]``."""
    raw = _parse(args.json)
    if isinstance(raw, str):
        say(f"error: {raw}", err=True)
        return EXIT_USAGE
    client = args.client or guess_client(raw)
    server = ForeignServer(
        name=args.name,
        raw=raw,
        file="(command line)",
        key=args.name,
        dialect=client,
        base_dir=os.getcwd(),
    )
    result = translate(server)
    for skip in result.skipped:
        say(f"not translated: {skip}", err=True)
    if result.entry is None:
        say(f"error: the {client} entry cannot be added (see above)", err=True)
        return EXIT_USAGE
    for note in result.notes:
        if not note.startswith("renamed from"):  # the name is the one given: it is checked
            say(f"note: {note}", err=True)
    for variable, spec in result.inputs.items():
        say(f"note: input '{spec.id}' is read from ${{{variable}}}: set it in .env", err=True)
    return add(
        args.name,
        result.entry,
        probe=not args.no_probe,
        replace=args.replace,
        manager=plugins(),
    )


def _parse(text: str) -> dict[str, object] | str:
    """The entry *text* holds, or what is wrong with it."""
    if len(text) > MAX_JSON_CHARS:
        return f"the JSON argument is over {MAX_JSON_CHARS // 1024} KiB"
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"the JSON argument is not valid JSON: {exc}"
    if not isinstance(raw, dict):
        return f"the JSON argument must be an object (got {type(raw).__name__})"
    wrapper = next((key for key in _WRAPPERS if isinstance(raw.get(key), dict)), None)
    if wrapper is not None and not ({"command", "url"} & raw.keys()):
        return (
            f"the JSON is a whole configuration ({wrapper!r}): give one server's entry, e.g. "
            '\'{"command": "npx", "args": ["-y", "pkg"]}\', or import the file with '
            "`hermes mcp import CLIENT --path FILE`"
        )
    return raw


def guess_client(raw: dict[str, object]) -> str:
    """Whose shape *raw* is in: a key only one client writes, else the variable forms it uses
    (``${input:…}``: VS Code, ``${env:…}``: Cursor), else Claude Code's (the common one)."""
    for client, keys in _TELLING_KEYS:
        if any(key in raw for key in keys):
            return client
    text = json.dumps(raw)
    if "${input:" in text:
        return "vscode"
    if "${env:" in text:
        return "cursor"
    return "claude-code"
