"""A fake desktop app that serves MCP while it runs (a declaration's ``liveness``).

Usage: ``python desktop_app.py RUNTIME_FILE``.  It listens on an ephemeral loopback port
(Streamable HTTP at ``/mcp``), requires ``Authorization: Bearer <token>`` with a fresh random
token, and writes ``RUNTIME_FILE`` (JSON: ``pid``, ``http``, ``token``) atomically once it
listens; it removes the file when it quits (SIGTERM or SIGINT).  Its tools: ``hello`` (the
greeting), ``port`` (where it serves).
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import json
import os
import secrets
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn
from headers_server import require  # (this folder is on sys.path)
from mcp.server.mcpserver import MCPServer

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("desktop-app")
PORT = 0


@server.tool()
def hello(name: str = "world") -> str:
    """Greet *name* from the running app."""
    return f"hello {name} from the desktop app"


@server.tool()
def port() -> str:
    """The port this app serves on."""
    return str(PORT)


def main() -> None:
    global PORT
    runtime = Path(sys.argv[1])
    token = secrets.token_hex(16)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    PORT = sock.getsockname()[1]
    app = require(server.streamable_http_app(), f"Bearer {token}")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    web = uvicorn.Server(config)

    def quit_app(*_: Any) -> None:
        runtime.unlink(missing_ok=True)  # gone first: the app is quitting
        web.should_exit = True

    original = web.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets=sockets)
        partial = runtime.with_name(runtime.name + ".tmp")
        data = {"pid": os.getpid(), "http": f"http://127.0.0.1:{PORT}", "token": token}
        partial.write_text(json.dumps(data))
        os.replace(partial, runtime)

    web.startup = startup  # type: ignore[method-assign]
    web.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    signal.signal(signal.SIGTERM, quit_app)
    signal.signal(signal.SIGINT, quit_app)
    try:
        web.run(sockets=[sock])
    finally:
        runtime.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
