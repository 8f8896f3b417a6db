"""A minimal stdio MCP peer that answers with malformed tool schemas.

The SDK's own servers validate what they send, so a server that lists a tool
whose input schema is not an object has to be written at the JSON-RPC level.
It handles just initialize, tools/list and tools/call.
"""

from __future__ import annotations

import json
import sys

TOOLS = [
    {"name": "good", "description": "Fine.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "array_schema", "description": "Bad.", "inputSchema": {"type": "array"}},
    {"name": "props_not_object", "inputSchema": {"type": "object", "properties": [1, 2]}},
]


def reply(message_id: object, result: object) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    method, message_id = request.get("method"), request.get("id")
    if message_id is None:
        continue  # notifications
    if method == "initialize":
        reply(
            message_id,
            {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "1"},
            },
        )
    elif method == "tools/list":
        reply(message_id, {"tools": TOOLS})
    elif method == "tools/call":
        reply(message_id, {"content": [{"type": "text", "text": "ok"}]})
    else:
        sys.stdout.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": message_id,
                    "error": {"code": -32601, "message": "not found"},
                }
            )
            + "\n"
        )
        sys.stdout.flush()
