"""A ``url`` without ``transport:`` whose server only speaks the legacy HTTP+SSE transport
(server-everything started with ``sse``): Streamable HTTP answers 404, the host falls back to
SSE, as the TypeScript SDK's clients do. An explicit ``transport: streamable_http`` does not."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers.net import free_port, wait_for_port
from servers.reference import EVERYTHING, LOOPBACK, node
from support.cli import run_hermes

pytestmark = [
    pytest.mark.process,
    pytest.mark.node,
    pytest.mark.cli,
    pytest.mark.network,
    pytest.mark.slow,
]


@pytest.fixture(scope="module")
def everything_sse() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [node(), "-r", str(LOOPBACK), str(EVERYTHING), "sse"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port)
    try:
        yield f"http://127.0.0.1:{port}/sse"
    finally:
        process.terminate()
        process.wait(10)


def test_a_url_without_transport_falls_back_to_sse(everything_sse: str, tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  legacy:\n    url: {everything_sse}\n    connect_timeout: 30\n"
    )
    env = {"HERMES_HOME": str(tmp_path)}
    called = run_hermes(
        "mcp", "call", "--json", "mcp_legacy_echo", "--args", '{"message": "over sse"}', env=env
    )
    assert called.returncode == 0, called.stdout + called.stderr
    assert json.loads(called.stdout)["content"][0]["text"] == "Echo: over sse"
    rows = json.loads(run_hermes("mcp", "status", "--json", env=env).stdout)
    assert rows[0]["connection"] == "connected" and rows[0]["transport"] == "sse"


def test_an_explicit_streamable_http_does_not_fall_back(
    everything_sse: str, tmp_path: Path
) -> None:
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  legacy:\n    url: {everything_sse}\n    transport: streamable_http\n"
        "    connect_timeout: 30\n"
    )
    report = run_hermes("mcp", "test", "legacy", "--json", env={"HERMES_HOME": str(tmp_path)})
    assert report.returncode == 1
    assert "HTTP 404" in json.loads(report.stdout)["error"]
