"""What ``hermes mcp call`` does on a started host, cold or warm: find the tool (or say why it
is not there), read ``key=value`` words on its schema, call it, record its tasks, and print
the result.  One body for both, typed on :class:`~hermes_core.host.surface.HostSurface`, so a
warm call prints what a cold one prints and exits with the same code."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hermes_core.cli.call_args import ArgumentError, CallArguments
from hermes_core.cli.call_result import exit_code, show_result
from hermes_core.cli.common import EXIT_USAGE
from hermes_core.cli.status_text import sampling_line
from hermes_core.cli.stop import Stop
from hermes_core.home import hermes_home
from hermes_core.host.calls.refusals import CallError, CallState, unknown_tool
from hermes_core.host.tasks.record import TASKS_RECORD, TaskRecordFile
from hermes_core.host.tools.naming import MAX_NAME_LENGTH, sanitize_component
from hermes_core.json_types import JsonObject

if TYPE_CHECKING:
    from hermes_core.cli.call_progress import ProgressLine
    from hermes_core.host.server_status import ServerStatus
    from hermes_core.host.surface import HostSurface

__all__ = ["call_on", "finish", "owners", "route", "unowned"]


def route(tool: str, enabled: Mapping[str, bool]) -> list[str] | JsonObject | None:
    """Which servers a call of *tool* starts (*enabled*: each configured server -> whether it
    is): those whose ``mcp_<server>_`` prefix it has; ``None`` for a bare name
    (``read_text_file``: all of them, and the host says which registered names end in it);
    the refusal when no enabled server owns the name (the warm and the cold call ask here)."""
    if not tool.startswith("mcp_"):
        return None
    found = owners(tool, enabled)
    return found if found else unowned(tool, enabled)


def owners(tool: str, enabled: Mapping[str, bool]) -> list[str]:
    """The enabled servers (*enabled*: name -> whether it is) whose tools could be registered
    as *tool*: those whose ``mcp_<server>_`` prefix it starts with (several only when names
    overlap, e.g. ``my`` and ``my-api``; a name clamped to 64 characters keeps its first 55)."""
    kept = MAX_NAME_LENGTH - 9
    found = []
    for name, on in enabled.items():
        if not on:
            continue
        prefix = f"mcp_{sanitize_component(name)}_"
        clamped = len(tool) == MAX_NAME_LENGTH and prefix[:kept] == tool[:kept]
        if tool.startswith(prefix) or clamped:
            found.append(name)
    return found


def unowned(tool: str, enabled: Mapping[str, bool]) -> JsonObject:
    """The refusal of a *tool* no enabled server owns, naming the prefixes there are."""
    names = [f"mcp_{n}_…" for n, on in enabled.items() if on]
    hint = f" (tool names start with: {', '.join(names)})" if names else ""
    return unknown_tool(tool, (), f": no enabled server owns it{hint}")


async def call_on(
    host: HostSurface,
    tool: str,
    given: CallArguments,
    progress: ProgressLine,
) -> tuple[JsonObject, list[ServerStatus]]:
    """Call *tool* on *host* with the arguments *given* (its words read on the tool's schema);
    the result, or the host's refusal (the pipeline's: held back, not offered, unknown with
    its did-you-mean), and the servers' status after it."""
    entry = host.registry.get(tool)
    if entry is None:  # the schema is not known: the pipeline says why, with no arguments
        failed = _failed_server(host, tool)
        if failed is not None:
            return failed, host.status()
        return await host.call_tool(tool, given.given or {}), host.status()
    # The call's tasks, for `hermes mcp tasks`.
    host.task_log.on_change(TaskRecordFile(hermes_home() / TASKS_RECORD))
    try:
        values = given.on(entry.input_schema)
    except ArgumentError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None
    try:
        result = await host.call_tool(tool, values, on_progress=progress)
    finally:
        progress.done()
    return result, host.status()


def finish(result: Mapping[str, object], rows: list[ServerStatus], *, as_json: bool) -> int:
    """Print *result* (and what the call cost, when a server asked the LLM); the exit code."""
    show_result(result, as_json=as_json)
    for row in rows:
        if row.sampling and row.sampling.get("requests"):
            print(f"# {row.server} sampling: {sampling_line(row.sampling)}", file=sys.stderr)
    return exit_code(result)


def _failed_server(host: HostSurface, tool: str) -> JsonObject | None:
    """When the only server asked for failed to start: that failure, as the reason *tool* is
    not there (else the host's own refusal says why)."""
    failed = [
        row
        for row in host.status()
        if row.enabled and row.last_error and row.connection != "not running"  # (its gate says)
    ]
    if not failed or host.registry.entries():
        return None
    row = failed[0]
    return CallError(
        f"MCP server '{row.server}' failed, so {tool!r} is not available: {row.last_error}",
        CallState.NOT_CONNECTED,
        row.server,
    ).result()
