"""``hermes mcp call`` on the warm host, without loading what a cold call needs.

The first handler of ``hermes mcp call`` (see :mod:`hermes_core.cli.commands`): while
``hermes mcp up`` runs for this ``HERMES_HOME`` and answers its hello, the call goes to it
straight away (no plugin manager, no config read: the warm host has both), through the same
body as the cold call (:mod:`hermes_core.cli.call_body`) on a
:class:`~hermes_core.serve.warm.client.RemoteHost`, so it prints what the cold call prints and
exits with the same code: JSON ``--args``, ``key=value`` and ``key:=JSON`` words (read on the
tool's schema, which the warm host sends), ``--json``, progress, the call's questions (asked on
this terminal; their modules are loaded only when one comes), its tasks (recorded for
``hermes mcp tasks``).

It returns ``None`` (the cold handler runs, itself on the warm host where it can) when no warm
host answers (:mod:`hermes_core.cli.warm_choice`), for ``--approvals store`` and ``--server``
(they need the config), for ``--verbose`` (the servers' log is the warm host's), and for
arguments that are not valid (the cold handler says what is wrong).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from hermes_core.cli.call_args import ArgumentError, command_arguments
from hermes_core.cli.call_body import call_on, finish, route, unowned
from hermes_core.cli.call_progress import ProgressLine
from hermes_core.cli.common import PluginLoader
from hermes_core.cli.warm_choice import bypass, choose, using
from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.json_types import JsonObject, JsonValue
from hermes_core.serve.warm.client import RemoteHost, WarmHostGone

if TYPE_CHECKING:
    from hermes_core.serve.warm.questions import Asker

__all__ = ["run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int | None:
    if args.approvals != "terminal" or args.server is not None or args.verbose:
        return None
    try:
        given = command_arguments(args)  # read once: the cold handler reuses it
    except ArgumentError:
        return None
    chosen = choose()
    if chosen is None:
        return None
    paths, pid = chosen
    progress = ProgressLine()
    try:
        # (no names *about*: whether the tool is held back, not offered or unknown is the
        # pipeline's answer to the call itself, decided once, on the warm host)
        remote = asyncio.run(RemoteHost.connect(paths, None, _terminal_asker(progress.pause)))
    except WarmHostGone as exc:
        bypass(paths, pid, str(exc))
        return None
    using(paths, pid)
    as_json = bool(getattr(args, "json", False))

    enabled = {row.server: row.enabled for row in remote.status()}
    found = route(args.tool, enabled)
    if isinstance(found, dict):  # no enabled server owns the name
        return finish(found, [], as_json=as_json)
    if found is None:  # a bare name: the host says which registered names end in it
        found = [name for name, on in enabled.items() if on]
    if not found:
        return finish(unowned(args.tool, enabled), [], as_json=as_json)
    host = remote.narrowed(found)
    try:
        result, rows = asyncio.run(call_on(host, args.tool, given, progress))
    except WarmHostGone as exc:
        gone = f"the warm host {exc}; `hermes mcp down` and retry"
        result = CallError(gone, CallState.WARM).result()
        rows = []
    return finish(result, rows, as_json=as_json)


def _terminal_asker(pause: Callable[[], None]) -> Asker:
    """Ask the warm host's questions on this terminal, as the cold call does (the progress
    line paused first); the question modules are loaded only when a question comes, by name
    (like the handlers of :mod:`hermes_core.cli.commands`)."""

    async def ask(question: JsonValue) -> JsonObject:
        pause()
        terminal = importlib.import_module("hermes_core.cli.ask").TerminalElicitor()
        questions = importlib.import_module("hermes_core.serve.warm.questions")
        reply: JsonObject = await questions.answer_question(terminal, question)
        return reply

    return ask
