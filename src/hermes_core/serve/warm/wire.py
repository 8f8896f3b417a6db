"""The warm host's wire: one JSON object per line over its Unix socket.

A client sends a request (``{"op": "snapshot"}``, ``{"op": "call", ...}``, ``{"op": "wake",
...}``, ``{"op": "stop"}``); the host answers with one line, or, for a call, any number of
``{"progress": [done, total, message]}`` and ``{"ask": {...}}`` lines (the client answers each
question with ``{"answer": {"action": ..., "content": ...}}``) and then ``{"result": ...}``.
Lines are bounded (:data:`MAX_LINE`); a longer one ends the connection.

Standard library only: ``hermes mcp call``'s warm path imports this and little else.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any, TypeVar

from hermes_core.json_types import JsonObject

__all__ = ["MAX_LINE", "read_message", "rebuilt", "write_message"]

MAX_LINE = 32 * 1024 * 1024
_T = TypeVar("_T")


def rebuilt(kind: type[_T], data: Mapping[str, Any]) -> _T:
    """A dataclass *kind* from its fields as ``dataclasses.asdict`` sent them (a field
    missing, unknown or of the wrong kind: ``TypeError``, as the class's own check says)."""
    return kind(**data)


async def read_message(reader: asyncio.StreamReader) -> JsonObject | None:
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


async def write_message(writer: asyncio.StreamWriter, message: Mapping[str, object]) -> None:
    writer.write(json.dumps(message, ensure_ascii=False, default=str).encode() + b"\n")
    await writer.drain()
