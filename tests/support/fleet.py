"""A fleet for tests: replicas of ``hermes mcp proxy --http`` (each its own ``HERMES_HOME``,
the same config.yaml text and proxy token, as separate machines would have) and raw HTTP
requests to one replica at a time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from servers.net import free_port, stop, wait_for_port
from support.cli_launch import LaunchedProcess
from support.proxy import MODERN, UPSTREAM, start_http, write_config

__all__ = ["Replica", "fleet_servers", "initialize", "rpc"]


def fleet_servers() -> dict[str, Any]:
    """An untrusted server (its writes are approved) and a 2026-07-28 one (``grow``)."""
    return {
        "up": {"command": sys.executable, "args": [str(UPSTREAM)], "trust": "untrusted"},
        "modern": {"command": sys.executable, "args": [str(MODERN)]},
    }


class Replica:
    """One replica: *home*, a fixed port, *config* (the text after ``mcp_servers``)."""

    def __init__(self, home: Path, token: str, extra: str, env: Mapping[str, str]) -> None:
        self.home = home
        self.port = free_port()
        self.env = dict(env)
        self.process: LaunchedProcess | subprocess.Popen[bytes] | None = None
        write_config(home, servers=fleet_servers(), extra=extra)
        token_file = home / "proxy-token"
        token_file.write_text(token + "\n")
        os.chmod(token_file, 0o600)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}/mcp"

    def start(self) -> None:
        self.process = start_http(self.home, self.port, env=self.env)

    def wait_ready(self, seconds: float = 120) -> None:
        wait_for_port(self.port, seconds)

    def kill(self) -> None:
        """``kill -9``: no shutdown of any kind."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None

    def stderr(self) -> str:
        return (self.home / "proxy.err").read_text(errors="replace")


def rpc(
    url: str,
    token: str,
    message: dict[str, Any],
    *,
    session: str | None = None,
    method: str = "POST",
) -> tuple[int, dict[str, str], Any]:
    """One JSON-RPC message POSTed to *url*: ``(status, headers, the JSON answer or None)``
    (an SSE answer is read to its first ``data:`` event)."""
    import httpx2

    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
    }
    if session is not None:
        headers["Mcp-Session-Id"] = session
    with httpx2.Client(trust_env=False, timeout=60) as http:
        response = http.request(method, url, headers=headers, content=json.dumps(message))
        body: Any = None
        text = response.text
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            for line in text.splitlines():
                if line.startswith("data:") and line[5:].strip():
                    body = json.loads(line[5:])
                    break
        elif text.strip():
            body = json.loads(text)
        return response.status_code, dict(response.headers), body


def initialize(url: str, token: str) -> str:
    """A 2025-11-25 session opened on *url* (initialized): its id."""
    status, headers, body = rpc(
        url,
        token,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "fleet-test", "version": "1"},
            },
        },
    )
    assert status == 200, (status, body)
    session = headers["mcp-session-id"]
    done = rpc(
        url, token, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session=session
    )
    assert done[0] in (200, 202), done
    return session
