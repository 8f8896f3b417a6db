"""Tool entries and status rows as the warm host sends them (see :mod:`.wire`)."""

from __future__ import annotations

from dataclasses import asdict

from hermes_core.host.server_status import ServerStatus
from hermes_core.host.tools.overrides import ToolOverride
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.json_types import JsonObject
from hermes_core.serve.warm.wire import MAX_LINE, read_message, rebuilt, write_message

__all__ = [
    "MAX_LINE",
    "entry_data",
    "entry_from",
    "read_message",
    "row_data",
    "row_from",
    "write_message",
]


def entry_data(entry: ToolEntry) -> dict[str, object]:
    return asdict(entry)


def entry_from(data: JsonObject) -> ToolEntry:
    override = data.get("override")
    if isinstance(override, dict):
        return rebuilt(ToolEntry, {**data, "override": rebuilt(ToolOverride, override)})
    return rebuilt(ToolEntry, data)


def row_data(row: ServerStatus) -> dict[str, object]:
    return dict(row.__dict__)


def row_from(data: JsonObject) -> ServerStatus:
    return rebuilt(ServerStatus, data)
