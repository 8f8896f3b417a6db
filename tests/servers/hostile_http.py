"""A hostile MCP endpoint over HTTP: answers every POST with a body that never ends.

Run as ``python hostile_http.py PORT MODE``; MODE is

* ``endless-json``: ``application/json``, chunked, bytes without end (no Content-Length);
* ``endless-sse``: ``text/event-stream`` with one ``data:`` line without end;
* ``huge-length``: ``application/json`` announcing a 4 GB Content-Length;
* ``bogus``: a Streamable HTTP MCP server written by hand that answers ``initialize``,
  ``ping`` and ``tools/list`` properly; its tool ``noisy`` answers with an SSE stream of 200
  notifications with invalid parameters before its result, and its tool ``garbage`` with
  events that are not JSON at all, each before its result; ``badjson`` answers with a JSON
  body that is not JSON.

It is a plain HTTP server (no MCP SDK): a real peer that no well-behaved server would be.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = b"x" * 65536


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "endless-json"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.mode == "bogus":
            self._bogus(json.loads(body))
            return
        self.send_response(200)
        if self.mode == "huge-length":
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(4 * 1024**3))
            self.end_headers()
            self._endless(chunked=False)
            return
        kind = "text/event-stream" if self.mode == "endless-sse" else "application/json"
        self.send_header("Content-Type", kind)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if self.mode == "endless-sse":
            self._chunk(b'event: message\ndata: {"jsonrpc": "2.0", "id": 0, "result": "')
        else:
            self._chunk(b'{"jsonrpc": "2.0", "id": 0, "result": {"x": "')
        self._endless(chunked=True)

    def _bogus(self, message: dict[str, object]) -> None:
        method, ident = message.get("method"), message.get("id")
        if ident is None:  # a notification (initialized, cancelled): accepted
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        params = message.get("params") or {}
        assert isinstance(params, dict)
        if method == "initialize":
            result: object = {
                "protocolVersion": params.get("protocolVersion"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "bogus", "version": "1"},
            }
        elif method == "tools/list":
            schema = {"type": "object", "properties": {}}
            result = {
                "tools": [
                    {"name": "noisy", "description": "Noisy.", "inputSchema": schema},
                    {"name": "garbage", "description": "Garbage.", "inputSchema": schema},
                    {"name": "badjson", "description": "Bad JSON.", "inputSchema": schema},
                ]
            }
        elif method == "tools/call" and params.get("name") in ("noisy", "garbage"):
            self._call_stream(ident, str(params["name"]))
            return
        elif method == "tools/call" and params.get("name") == "badjson":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "15")
            self.end_headers()
            self.wfile.write(b"not json at all")
            return
        elif method == "ping":
            result = {}
        else:
            self._json({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "?"}})
            return
        self._json({"jsonrpc": "2.0", "id": ident, "result": result})

    def _json(self, payload: object) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _call_stream(self, ident: object, tool: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        bogus = {"jsonrpc": "2.0", "method": "notifications/progress", "params": 7}
        for _ in range(200):
            line = "this is not json" if tool == "garbage" else json.dumps(bogus)
            self._chunk(f"event: message\ndata: {line}\n\n".encode())
        done = {
            "jsonrpc": "2.0",
            "id": ident,
            "result": {"content": [{"type": "text", "text": "after the noise"}]},
        }
        self._chunk(f"event: message\ndata: {json.dumps(done)}\n\n".encode())
        self._chunk(b"")  # the last chunk: the stream ends

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self.do_GET()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _endless(self, *, chunked: bool) -> None:
        try:
            while True:
                if chunked:
                    self._chunk(CHUNK)
                else:
                    self.wfile.write(CHUNK)
        except OSError:
            return  # the client hung up


def main() -> None:
    port, mode = int(sys.argv[1]), sys.argv[2]
    Handler.mode = mode
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
