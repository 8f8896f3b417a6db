"""A stdio MCP server written by hand, line by line (no SDK), for the host's plain-call lane.

It answers ``initialize``, ``tools/list`` and ``tools/call`` of these tools:

* ``ok``: ``Echo: <message>`` (the usual text result);
* ``fancy``: text with non-ASCII, a TAG character and an annotation (the general way);
* ``error``: a JSON-RPC error response (code -32000, "boom");
* ``bad``: a result whose ``content`` is not a list (not a ``CallToolResult``);
* ``twice``: first a line with the call's id but neither ``result`` nor ``error``, then the
  usual result;
* ``hang``: never answers; a ``notifications/cancelled`` naming it is appended to the file
  ``$LINE_SERVER_CANCELS`` (its ``requestId``, one per line);
* ``die``: exits without answering;
* ``notify``: ``notifications/tools/list_changed`` and then its answer, in one write;
* ``big``: a text of ``size`` bytes (``x`` repeated).

Each ``tools/call`` request's ``id`` is appended to ``$LINE_SERVER_IDS`` when that is set.
"""

from __future__ import annotations

import json
import os
import sys

TOOLS = ["ok", "fancy", "error", "bad", "twice", "hang", "die", "notify", "big"]
SCHEMA = {"type": "object", "properties": {"message": {"type": "string"}}}


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def note(variable: str, value: object) -> None:
    path = os.environ.get(variable)
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(f"{value}\n")


def answer(request_id: object, result: dict[str, object]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def call(request_id: object, params: dict[str, object]) -> None:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    assert isinstance(arguments, dict)
    note("LINE_SERVER_IDS", json.dumps(request_id))
    if name == "ok":
        text = f"Echo: {arguments.get('message')}"
        answer(request_id, {"content": [{"type": "text", "text": text}]})
    elif name == "fancy":
        text = "caf\u00e9 \U000e0041 done"
        item = {"type": "text", "text": text, "annotations": {"audience": ["user"]}}
        answer(request_id, {"content": [item], "isError": False})
    elif name == "error":
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32000, "message": "boom"}})
    elif name == "bad":
        answer(request_id, {"content": "not a list"})
    elif name == "twice":
        send({"jsonrpc": "2.0", "id": request_id, "note": "neither result nor error"})
        answer(request_id, {"content": [{"type": "text", "text": "second"}]})
    elif name == "big":
        answer(request_id, {"content": [{"type": "text", "text": "x" * int(arguments["size"])}]})
    elif name == "die":
        sys.exit(3)
    elif name == "notify":
        notice = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        result = {"content": [{"type": "text", "text": "told"}]}
        both = [notice, {"jsonrpc": "2.0", "id": request_id, "result": result}]
        sys.stdout.write("".join(json.dumps(m) + "\n" for m in both))
        sys.stdout.flush()
    # "hang": no answer


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            answer(
                request_id,
                {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {"listChanged": True}},
                    "serverInfo": {"name": "line-server", "version": "1"},
                },
            )
        elif method == "tools/list":
            tools = [{"name": n, "description": f"{n}.", "inputSchema": SCHEMA} for n in TOOLS]
            answer(request_id, {"tools": tools})
        elif method == "tools/call":
            call(request_id, message["params"])
        elif method == "notifications/cancelled":
            note("LINE_SERVER_CANCELS", json.dumps(message["params"]["requestId"]))
        elif method == "ping":
            answer(request_id, {})
        elif request_id is not None:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no"}})


if __name__ == "__main__":
    main()
