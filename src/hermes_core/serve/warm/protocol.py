"""Tool entries and status rows as the warm host sends them (see :mod:`.wire`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from hermes_core.host.server_status import ServerStatus
from hermes_core.host.tools.overrides import ToolOverride
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.serve.warm.wire import MAX_LINE, read_message, write_message

__all__ = [
    "MAX_LINE",
    "entry_data",
    "entry_from",
    "read_message",
    "row_data",
    "row_from",
    "write_message",
]


def entry_data(entry: ToolEntry) -> dict[str, Any]:
    return asdict(entry)


def entry_from(data: dict[str, Any]) -> ToolEntry:
    override = data.get("override")
    if isinstance(override, dict):
        data = {**data, "override": ToolOverride(**override)}
    return ToolEntry(**data)


def row_data(row: ServerStatus) -> dict[str, Any]:
    return dict(row.__dict__)


def row_from(data: dict[str, Any]) -> ServerStatus:
    return ServerStatus(**data)
