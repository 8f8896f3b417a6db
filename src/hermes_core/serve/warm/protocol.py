"""The warm host's wire: one JSON object per line over its Unix socket.

A client sends a request (``{"op": "snapshot"}``, ``{"op": "call", ...}``, ``{"op": "wake",
...}``, ``{"op": "stop"}``); the host answers with one line, or, for a call, any number of
``{"progress": [done, total, message]}`` and ``{"ask": {...}}`` lines (the client answers each
question with ``{"answer": {"action": ..., "content": ...}}``) and then ``{"result": ...}``.
Lines are bounded (:data:`MAX_LINE`); a longer one ends the connection.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from typing import Any

from hermes_core.host.registry import ToolEntry
from hermes_core.host.status import ServerStatus

__all__ = [
    "MAX_LINE",
    "entry_data",
    "entry_from",
    "read_message",
    "row_data",
    "row_from",
    "write_message",
]

MAX_LINE = 32 * 1024 * 1024


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, ``None`` at the end of the stream (or on a line that is not one)."""
    try:
        line = await reader.readline()
    except (ValueError, asyncio.LimitOverrunError, ConnectionError):
        return None
    if not line:
        return None
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


async def write_message(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    writer.write(json.dumps(message, ensure_ascii=False, default=str).encode() + b"\n")
    await writer.drain()


def entry_data(entry: ToolEntry) -> dict[str, Any]:
    return asdict(entry)


def entry_from(data: dict[str, Any]) -> ToolEntry:
    return ToolEntry(**data)


def row_data(row: ServerStatus) -> dict[str, Any]:
    return dict(row.__dict__)


def row_from(data: dict[str, Any]) -> ServerStatus:
    return ServerStatus(**data)
