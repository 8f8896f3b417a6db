"""``hermes mcp proxy`` for tests: a home whose config.yaml names real servers, and the raw
``mcp`` SDK client on the proxy as a real subprocess (stdio) or over HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

from servers.reference import EVERYTHING, FILESYSTEM, node
from support import cli_launch

SERVERS = Path(__file__).resolve().parents[1] / "servers"
UPSTREAM = SERVERS / "proxy_upstream.py"
MODERN = SERVERS / "modern_server.py"


def proxy_env(home: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    return {**base, "HERMES_HOME": str(home), "HERMES_STRICT_PLUGINS": "1"}


def write_config(home: Path, *, servers: Mapping[str, Any] | None = None, extra: str = "") -> Path:
    """``home/config.yaml`` with *servers* (default: everything, filesystem over
    ``home/files``, the 2026-07-28-only server and the test upstream) and *extra* text."""
    home.mkdir(parents=True, exist_ok=True)
    files = home / "files"
    files.mkdir(exist_ok=True)
    (files / "hello.txt").write_text("hello from the filesystem\n")
    if servers is None:
        servers = {
            "everything": {"command": node(), "args": [str(EVERYTHING), "stdio"]},
            "files": {"command": node(), "args": [str(FILESYSTEM), str(files)]},
            "modern": {"command": sys.executable, "args": [str(MODERN)]},
            "up": {"command": sys.executable, "args": [str(UPSTREAM)]},
        }
    text = "mcp_servers:\n"
    for name, entry in servers.items():
        text += f"  {name}:\n"
        for key, value in entry.items():
            text += f"    {key}: {json.dumps(value)}\n"
    path = home / "config.yaml"
    path.write_text(text + extra)
    return path


def proxy_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "hermes_core", "mcp", "proxy", *args]


@contextlib.asynccontextmanager
async def proxy_session(
    home: Path,
    *args: str,
    errlog: Path | None = None,
    env: Mapping[str, str] | None = None,
    **client: Any,
) -> AsyncIterator[Any]:
    """The raw ``mcp`` SDK client on ``hermes mcp proxy ARGS`` (stdio subprocess); *env* is
    laid over the proxy's environment; *client* goes to ``ClientSession``
    (``elicitation_callback``, ``message_handler``...)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    environ = {**proxy_env(home), **(env or {})}
    argv = cli_launch.shim_argv(["mcp", "proxy", *args], environ) or proxy_argv(*args)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=environ)
    log = open(errlog or os.devnull, "w")  # noqa: SIM115 - closed below
    try:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write, **client) as session,
        ):
            await session.initialize()
            yield session
    finally:
        log.close()


@contextlib.asynccontextmanager
async def http_session(url: str, token: str | None, **client: Any) -> AsyncIterator[Any]:
    """The raw SDK client on the proxy's Streamable HTTP endpoint with *token*."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, trust_env=False, timeout=300) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, **client) as session,
    ):
        await session.initialize()
        yield session


def start_http(
    home: Path, port: int, *args: str, env: Mapping[str, str] | None = None
) -> cli_launch.LaunchedProcess | subprocess.Popen[bytes]:
    """``hermes mcp proxy --http PORT ARGS`` (*env* laid over its environment; forked from
    the suite's launcher where it can be); its stderr goes to ``home/proxy.err``."""
    full_env = {**proxy_env(home), **(env or {})}
    with open(home / "proxy.err", "wb") as errlog:
        words = ["mcp", "proxy", "--http", str(port), *args]
        launched = cli_launch.popen(words, full_env, stderr=errlog, stdout=subprocess.DEVNULL)
        if launched is not None:
            return launched
        return subprocess.Popen(
            proxy_argv("--http", str(port), *args),
            env=full_env,
            stderr=errlog,
            stdout=subprocess.DEVNULL,
        )


@contextlib.contextmanager
def running_http(
    home: Path, *args: str, env: Mapping[str, str] | None = None
) -> Iterator[tuple[str, str]]:
    """``hermes mcp proxy --http PORT ARGS`` on a free port: its URL and the token of its
    unnamed profile; stopped on the way out."""
    from servers.net import free_port, stop, wait_for_port

    port = free_port()
    proc = start_http(home, port, *args, env=env)
    try:
        wait_for_port(port, 60)
        yield f"http://127.0.0.1:{port}/mcp", (home / "proxy-token").read_text().strip()
    finally:
        stop(proc)


def text_of(result: Any) -> str:
    return "".join(getattr(item, "text", "") for item in result.content)
