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
from typing import TYPE_CHECKING, Any

from hermes_core.cli.call_args import ArgumentError, arguments, parse_pairs
from hermes_core.cli.call_body import call_on, finish, owners, unowned
from hermes_core.cli.call_progress import ProgressLine
from hermes_core.cli.common import PluginLoader
from hermes_core.cli.warm_choice import bypass, choose, using
from hermes_core.serve.warm.client import RemoteHost, WarmHostGone

if TYPE_CHECKING:
    from hermes_core.serve.warm.questions import Asker

__all__ = ["run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int | None:
    if args.approvals != "terminal" or args.server is not None or args.verbose:
        return None
    try:
        words = parse_pairs(getattr(args, "pairs", None) or [])
        checked = arguments(args.args, words, None)  # pairs are read on the schema
    except ArgumentError:
        return None
    chosen = choose()
    if chosen is None:
        return None
    paths, pid = chosen
    progress = ProgressLine()
    try:
        remote = asyncio.run(
            RemoteHost.connect(paths, None, _terminal_asker(progress.pause), about=[args.tool])
        )
    except WarmHostGone as exc:
        bypass(paths, pid, str(exc))
        return None
    using(paths, pid)
    as_json = bool(getattr(args, "json", False))
    given = None if words else checked

    enabled = {row.server: row.enabled for row in remote.status()}
    if args.tool.startswith("mcp_"):
        found = owners(args.tool, enabled)
    else:  # a bare name: the host says which registered names end in it
        found = [name for name, on in enabled.items() if on]
    if not found:
        return finish(unowned(args.tool, enabled), [], as_json=as_json)
    host = remote.narrowed(found)
    try:
        result, rows = asyncio.run(call_on(host, args.tool, given, words, progress))
    except WarmHostGone as exc:
        result = {"error": f"the warm host {exc}; `hermes mcp down` and retry", "state": "warm"}
        rows = []
    return finish(result, rows, as_json=as_json)


def _terminal_asker(pause: Callable[[], None]) -> Asker:
    """Ask the warm host's questions on this terminal, as the cold call does (the progress
    line paused first); the question modules are loaded only when a question comes, by name
    (like the handlers of :mod:`hermes_core.cli.commands`)."""

    async def ask(question: Any) -> dict[str, Any]:
        pause()
        terminal = importlib.import_module("hermes_core.cli.ask").TerminalElicitor()
        questions = importlib.import_module("hermes_core.serve.warm.questions")
        reply: dict[str, Any] = await questions.answer_question(terminal, question)
        return reply

    return ask
