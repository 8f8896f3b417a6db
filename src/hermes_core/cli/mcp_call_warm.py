"""``hermes mcp call`` on the warm host, without loading what a cold call needs.

The first handler of ``hermes mcp call`` (see :mod:`hermes_core.cli.commands`): while
``hermes mcp up`` runs for this ``HERMES_HOME``, the call is sent to it straight away (no
plugin manager, no config read: the warm host has both), and printed as the cold call prints
it.  It returns ``None`` (the cold handler runs) when no warm host answers, when
``HERMES_WARM=0``, for ``--approvals store``, ``--server``, ``--verbose`` or ``key=value``
arguments (read on the tool's schema), and for ``--args`` that are not a JSON object or nest
too deeply (the cold handler says what is wrong).  The result is printed as the cold call
prints it (text, or the raw JSON with ``--json``).  A question the call raises is asked on
this terminal as the cold call would (its modules are imported then, by name, like the
handlers of :mod:`hermes_core.cli.commands`).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
import time
from typing import Any

from hermes_core.cli.call_result import show_result
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, PluginLoader
from hermes_core.home import hermes_home
from hermes_core.nesting import MAX_ARGUMENT_DEPTH, json_text_depth
from hermes_core.serve.warm.paths import WarmPaths, WarmState, probe
from hermes_core.serve.warm.wire import MAX_LINE, read_message, write_message

__all__ = ["run"]

#: At most one progress line per this many seconds (as the cold call).
PROGRESS_INTERVAL = 0.5


def run(args: argparse.Namespace, plugins: PluginLoader) -> int | None:
    if os.environ.get("HERMES_WARM", "").strip() == "0":
        return None
    if args.approvals != "terminal" or args.server is not None or args.verbose:
        return None
    if getattr(args, "pairs", None):  # key=value pairs are read on the tool's schema: cold
        return None
    if args.args and json_text_depth(args.args) > MAX_ARGUMENT_DEPTH:
        return None  # the cold handler says what is wrong
    try:
        arguments = json.loads(args.args) if args.args else {}
    except json.JSONDecodeError:
        return None
    if not isinstance(arguments, dict):
        return None
    paths = WarmPaths(hermes_home())
    state, pid = probe(paths, clean=False)
    if state is not WarmState.UP:
        return None  # the cold handler cleans a stale socket and says so
    print(f"using the warm host (pid {pid}; `hermes mcp down` stops it)", file=sys.stderr)
    try:
        result = asyncio.run(_call(paths, args.tool, arguments))
    except (OSError, ConnectionError) as exc:
        result = {"error": f"the warm host did not answer ({exc}); `hermes mcp down` and retry"}
    show_result(result, as_json=bool(getattr(args, "json", False)))
    return EXIT_FAILED if "error" in result or result.get("isError") else EXIT_OK


async def _call(paths: WarmPaths, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    reader, writer = await asyncio.open_unix_connection(str(paths.socket), limit=MAX_LINE)
    shown_at, pending = 0.0, None
    try:
        await write_message(
            writer, {"op": "call", "name": tool, "arguments": arguments, "ask": True}
        )
        while (message := await read_message(reader)) is not None:
            if "result" in message:
                result = message["result"]
                return result if isinstance(result, dict) else {"error": "bad answer"}
            if "progress" in message:
                pending = _progress_line(message["progress"])
                if time.monotonic() - shown_at >= PROGRESS_INTERVAL:
                    print(pending, file=sys.stderr, flush=True)
                    shown_at, pending = time.monotonic(), None
            elif "ask" in message:
                await write_message(writer, {"answer": await _ask(message["ask"])})
    finally:
        if pending is not None:
            print(pending, file=sys.stderr, flush=True)
        writer.close()
    return {"error": "the warm host closed the connection during the call"}


def _progress_line(item: Any) -> str:
    done, total, text = ([*item, None, None, None] if isinstance(item, list) else [0])[:3]
    line = f"progress: {float(done or 0):g}"
    if total:
        line += f"/{float(total):g} ({min(100.0, 100 * float(done or 0) / float(total)):.0f}%)"
    return f"{line} {text}" if text else line


async def _ask(question: Any) -> dict[str, Any]:
    ask = importlib.import_module("hermes_core.cli.ask")
    client = importlib.import_module("hermes_core.serve.warm.client")
    reply: dict[str, Any] = await client.answer_question(ask.TerminalElicitor(), question)
    return reply
