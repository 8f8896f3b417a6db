"""An MCP server on a Unix socket: ``python unix_socket_server.py PATH``.

Listens on *PATH* and serves each connection with an ``mcp`` SDK server (tools ``echo`` and
``sized``, which answers *n* bytes of text), over the connection's bytes framed as the stdio
transport frames them (the server side of Hermes' ``open_byte_stream``, built on the SDK's
own stdio framing so the two sides are written independently).  Prints ``listening`` once
the socket accepts.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import socket
import sys
from io import TextIOWrapper

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("unix-socket")


@server.tool()
def echo(text: str) -> str:
    """Say *text* back."""
    return text


@server.tool()
def sized(n: int) -> str:
    """*n* bytes of text."""
    return "x" * n


async def _serve(connection: socket.socket) -> None:
    reader = TextIOWrapper(connection.makefile("rb"), encoding="utf-8")
    writer = TextIOWrapper(connection.makefile("wb"), encoding="utf-8", write_through=True)
    async with stdio_server(anyio.wrap_file(reader), anyio.wrap_file(writer)) as (read, write):
        lowlevel = server._lowlevel_server
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


def main(path: str) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen()
    print("listening", flush=True)
    while True:  # one connection at a time: the tests connect one after another
        connection, _ = listener.accept()
        with connection:
            anyio.run(_serve, connection)


if __name__ == "__main__":
    main(sys.argv[1])
