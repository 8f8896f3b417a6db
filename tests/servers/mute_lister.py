"""A stdio MCP peer that answers ``initialize`` and ``ping`` but never ``tools/list``.

Written at the JSON-RPC level with the standard library only, so that it starts in a few
milliseconds even on a loaded machine: a test can then give ``connect_timeout`` a few seconds
and still meet the listing timeout, not a slow start.
"""

from __future__ import annotations

import json
import sys


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
                "serverInfo": {"name": "mute", "version": "1"},
            },
        )
    elif method == "ping":
        reply(message_id, {})
    # tools/list (and anything else): never answered
