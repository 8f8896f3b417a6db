"""A hostile MCP endpoint over HTTP: answers every POST with a body that never ends.

Run as ``python hostile_http.py PORT MODE``; MODE is

* ``endless-json``: ``application/json``, chunked, bytes without end (no Content-Length);
* ``endless-sse``: ``text/event-stream`` with one ``data:`` line without end;
* ``huge-length``: ``application/json`` announcing a 4 GB Content-Length.

It is a plain HTTP server (no MCP SDK): a real peer that no well-behaved server would be.
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = b"x" * 65536


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "endless-json"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
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
