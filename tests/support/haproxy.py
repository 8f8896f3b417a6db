"""A real ``haproxy`` (Debian's package) in front of proxy replicas: round-robin, no sticky
sessions, a health check on ``/healthz``; its configuration is written to a temporary
directory.  This is the configuration docs/scaling.md gives an operator."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from servers.net import free_port, stop, wait_for_port

__all__ = ["haproxy", "haproxy_config"]


def haproxy_config(port: int, backends: Sequence[str]) -> str:
    """The configuration: ``127.0.0.1:port`` balanced over *backends* (``host:port``)."""
    servers = "\n".join(
        f"    server r{i} {address} check inter 500ms fall 2 rise 1"
        for i, address in enumerate(backends)
    )
    return f"""global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 10m
    timeout server 10m
    timeout http-keep-alive 10s
    option redispatch
    retries 2
    retry-on conn-failure

frontend mcp
    bind 127.0.0.1:{port}
    default_backend replicas

backend replicas
    balance roundrobin
    option httpchk GET /healthz
{servers}
"""


@contextlib.contextmanager
def haproxy(folder: Path, backends: Sequence[str]) -> Iterator[str]:
    """HAProxy on a free loopback port over *backends*; yields its ``/mcp`` URL."""
    binary = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if binary is None:
        raise RuntimeError("haproxy is not installed (apt-get install haproxy)")
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = folder / "haproxy.cfg"
    config.write_text(haproxy_config(port, backends))
    check = subprocess.run([binary, "-c", "-f", str(config)], capture_output=True, check=False)
    if check.returncode != 0:
        raise RuntimeError(f"haproxy rejected {config}: {check.stderr.decode()[-2000:]}")
    with open(folder / "haproxy.log", "wb") as log:
        process = subprocess.Popen([binary, "-db", "-f", str(config)], stdout=log, stderr=log)
    try:
        wait_for_port(port, 30)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)
