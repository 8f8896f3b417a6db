"""An MCP server (mcp SDK, stdio) for the interceptor, budget, audit and telemetry tests.

Usage: ``python intercept_server.py``.  Tools: ``read_note``/``delete_note`` (a policy's
targets), ``contact`` (text with e-mail addresses), ``big`` (as many characters as asked),
``hinted`` (the same, with a ``_meta`` result size hint of 1,000 characters), ``report``
(structured content and its text) and ``meta_seen`` (the ``_meta`` its request carried: the
W3C trace context the client injected).
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("intercept")


@server.tool(annotations={"readOnlyHint": True})
def read_note(name: str) -> str:
    """The note called *name*."""
    return f"note {name}: remember the milk"


@server.tool(annotations={"destructiveHint": True})
def delete_note(name: str) -> str:
    """Delete the note called *name*."""
    return f"deleted {name}"


@server.tool()
def contact(name: str) -> str:
    """How to reach *name*."""
    return f"{name}: write to alice@example.com or bob.smith@example.org"


def _text(chars: int) -> str:
    line = "0123456789abcdefghijklmnopqrstuvwxyz-the-quick-brown-fox-jumps-over-the-lazy-dog\n"
    return (line * (chars // len(line) + 1))[:chars]


@server.tool()
def big(chars: int) -> str:
    """*chars* characters of text."""
    return _text(chars)


@server.tool(meta={"anthropic/maxResultSizeChars": 1000})
def hinted(chars: int) -> str:
    """*chars* characters of text; the tool asks for results of 1,000 characters at most."""
    return _text(chars)


@server.tool(structured_output=True)
def report(rows: int, padding: int = 0) -> dict[str, Any]:
    """A structured report of *rows* rows, each padded with *padding* characters."""
    return {"rows": [{"n": i, "pad": "p" * padding} for i in range(rows)], "count": rows}


@server.tool()
def meta_seen(ctx: Context) -> str:  # type: ignore[type-arg]
    """The ``_meta`` of this request, as JSON."""
    meta = ctx.request_context.meta
    dumped = meta.model_dump() if hasattr(meta, "model_dump") else dict(meta or {})
    return json.dumps(dumped, default=str)


if __name__ == "__main__":
    server.run("stdio")
