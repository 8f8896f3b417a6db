"""A hostile MCP endpoint over HTTP: answers every POST with a body that never ends.

Run as ``python hostile_http.py PORT MODE``; MODE is

* ``endless-json``: ``application/json``, chunked, bytes without end (no Content-Length);
* ``endless-sse``: ``text/event-stream`` with one ``data:`` line without end;
* ``endless-line``: ``text/event-stream``, ``data: `` and then 1 MiB chunks without a line end;
* ``huge-length``: ``application/json`` announcing a 4 GB Content-Length;
* ``bogus``: a Streamable HTTP MCP server written by hand that answers ``initialize``,
  ``ping`` and ``tools/list`` properly; its tool ``noisy`` answers with an SSE stream of 200
  notifications with invalid parameters before its result, and its tool ``garbage`` with
  events that are not JSON at all, each before its result; ``badjson`` answers with a JSON
  body that is not JSON;
* ``bogus-sse``: the same server over the legacy HTTP+SSE transport (``GET`` any path for the
  event stream, ``POST /messages``), every answer an event of that stream;
* ``bogus-nolist``: the ``bogus`` server whose ``tools/list`` never answers;
* ``hang PATH``: never answers a POST; the first one creates the file PATH (the event a test
  waits for).

It is a plain HTTP server (no MCP SDK): a real peer that no well-behaved server would be.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = b"x" * 65536
BIG_CHUNK = b"x" * 1024 * 1024
EVENTS: queue.Queue[str] = queue.Queue()
"""``bogus-sse``: what goes out on the GET stream (one client at a time)."""
MARKER: list[str] = []
"""``hang``: the file to create on the first POST."""
SCHEMA = {"type": "object", "properties": {}}
BOGUS = json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": 7})


def _answers(message: dict[str, object]) -> list[str] | None:
    """What the ``bogus`` server sends for one message (``None``: nothing, a notification)."""
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return None
    params = message.get("params") or {}
    assert isinstance(params, dict)
    tool = params.get("name") if method == "tools/call" else None
    if method == "initialize":
        result: object = {
            "protocolVersion": params.get("protocolVersion"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bogus", "version": "1"},
        }
    elif method == "tools/list":
        result = {
            "tools": [
                {"name": name, "description": f"{name}.", "inputSchema": SCHEMA}
                for name in ("noisy", "garbage", "badjson")
            ]
        }
    elif tool == "badjson":
        return ["not json at all"]
    elif tool in ("noisy", "garbage"):
        noise = ["this is not json" if tool == "garbage" else BOGUS] * 200
        text = {"content": [{"type": "text", "text": "after the noise"}]}
        return [*noise, json.dumps({"jsonrpc": "2.0", "id": ident, "result": text})]
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": "method not found"}
        return [json.dumps({"jsonrpc": "2.0", "id": ident, "error": error})]
    return [json.dumps({"jsonrpc": "2.0", "id": ident, "result": result})]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "endless-json"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.mode == "hang":
            with open(MARKER[0], "a", encoding="utf-8") as fh:
                fh.write("initialize\n")
            threading.Event().wait()  # never answers (the client hangs up or we are killed)
        if self.mode in ("bogus", "bogus-sse", "bogus-nolist"):
            if self.mode == "bogus-nolist" and json.loads(body).get("method") == "tools/list":
                threading.Event().wait()
            self._bogus(json.loads(body))
            return
        self.send_response(200)
        if self.mode == "huge-length":
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(4 * 1024**3))
            self.end_headers()
            self._endless(chunked=False)
            return
        sse = self.mode in ("endless-sse", "endless-line")
        self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if self.mode == "endless-line":
            self._chunk(b"data: ")
            self._endless(chunked=True, chunk=BIG_CHUNK)
            return
        if self.mode == "endless-sse":
            self._chunk(b'event: message\ndata: {"jsonrpc": "2.0", "id": 0, "result": "')
        else:
            self._chunk(b'{"jsonrpc": "2.0", "id": 0, "result": {"x": "')
        self._endless(chunked=True)

    def _bogus(self, message: dict[str, object]) -> None:
        answers = _answers(message)
        if answers is None:  # a notification (initialized, cancelled): accepted
            self._accepted()
        elif self.mode == "bogus-sse":  # the answers go out on the GET stream
            self._accepted()
            for answer in answers:
                EVENTS.put(answer)
        elif len(answers) == 1:
            data = answers[0].encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for answer in answers:
                self._chunk(f"event: message\ndata: {answer}\n\n".encode())
            self._chunk(b"")  # the last chunk: the stream ends

    def _accepted(self) -> None:
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        if self.mode != "bogus-sse":
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self._chunk(b"event: endpoint\ndata: /messages\n\n")
            while True:
                self._chunk(f"event: message\ndata: {EVENTS.get()}\n\n".encode())
        except OSError:
            return  # the client hung up

    def do_DELETE(self) -> None:
        self.do_GET()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _endless(self, *, chunked: bool, chunk: bytes = CHUNK) -> None:
        try:
            while True:
                if chunked:
                    self._chunk(chunk)
                else:
                    self.wfile.write(chunk)
        except OSError:
            return  # the client hung up


def main() -> None:
    port, mode = int(sys.argv[1]), sys.argv[2]
    MARKER.extend(sys.argv[3:])
    Handler.mode = mode
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
