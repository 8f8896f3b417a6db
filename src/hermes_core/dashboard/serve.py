"""Run the dashboard: bind 127.0.0.1, print the login URL on the first line, open a browser,
serve until interrupted."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import webbrowser

import uvicorn

from hermes_core.config.errors import ConfigError
from hermes_core.dashboard.app import build_app
from hermes_core.dashboard.hosting import Hosting
from hermes_core.dashboard.security import Secrets
from hermes_core.host.setup.factory import HostFactory
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.sessions.shared import session_store

__all__ = ["HOST", "bind", "serve"]

HOST = "127.0.0.1"


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:*port* (0: a free port); ``OSError`` when taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve(manager: HermesPluginManager, sock: socket.socket, *, open_browser: bool) -> int:
    """Serve the dashboard on *sock* until Ctrl-C; the URL (with its one-time token) is the
    first line printed."""
    port = sock.getsockname()[1]
    keys = Secrets()
    url = f"http://{HOST}:{port}/login?token={keys.login}"
    print(url, flush=True)
    print(
        "hermes dashboard: the link works once (it sets a cookie); Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    try:
        # With state: the questions live in the state database (every replica's).
        state = HostFactory.from_manager(manager).state_database()
    except ConfigError:
        state = None  # the page shows the config's error; questions in state.db meanwhile
    sessions = session_store(state)
    app = build_app(Hosting(manager, sessions), keys, port)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    if open_browser:  # in a thread: a browser command may wait for the page it opens
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sessions.close()
    return 0
