"""Whether a server runs tool calls as tasks, and whether one call of a tool is sent as one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from hermes_core._sdk_compat import TASKS_EXTENSION

if TYPE_CHECKING:
    from mcp.types import ServerCapabilities

__all__ = ["runs_tool_tasks", "sent_as_task"]

#: The revisions where tasks are the extension (the server decides); the SDK's
#: ``MODERN_PROTOCOL_VERSIONS``, without importing ``mcp_types`` here.
_MODERN = frozenset({"2026-07-28"})


def runs_tool_tasks(caps: ServerCapabilities | None) -> bool:
    """Whether the server behind *caps* (its ``ServerCapabilities``) takes task-augmented
    ``tools/call``: ``tasks.requests.tools.call`` on 2025-11-25, the tasks extension on
    2026-07-28."""
    if caps is None:
        return False
    tasks = getattr(caps, "tasks", None)
    requests = getattr(tasks, "requests", None)
    if getattr(getattr(requests, "tools", None), "call", None) is not None:
        return True
    extensions = getattr(caps, "extensions", None)
    return isinstance(extensions, dict) and TASKS_EXTENSION in extensions


def sent_as_task(execution: Mapping[str, object] | None, protocol: str | None, asked: bool) -> bool:
    """Whether a call of a tool with *execution* is sent as a 2025-11-25 task: always when the
    tool requires it, when the caller *asked* and the tool allows it; never on 2026-07-28, where
    the server decides (the host declares the extension on every request)."""
    if protocol is None or protocol in _MODERN:
        return False
    support = (execution or {}).get("taskSupport")
    return support == "required" or (asked and support == "optional")
