"""The door of ``hermes mcp proxy --http``, against the real process on real sockets: the
Host/Origin checks on a loopback address other than 127.0.0.1, a half-sent request closed at
the header timeout (``proxy.header_timeout``), and the client with the token served while
more connections than the cap hold half-sent requests."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_core.serve.http_guard import MAX_OPEN
from support.proxy import UPSTREAM, proxy_argv, proxy_env, write_config

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "door-test", "version": "1"},
        },
    }
).encode()


def _free_port(address: str) -> int:
    with socket.socket() as sock:
        sock.bind((address, 0))
        return int(sock.getsockname()[1])


def _wait_for(address: str, port: int, proc: subprocess.Popen[bytes], home: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, (home / "proxy.err").read_text()
        with contextlib.suppress(OSError), socket.create_connection((address, port), timeout=1):
            return
        time.sleep(0.1)  # a poll of a port that is not open yet: nothing to wait on
    raise AssertionError(f"the proxy never listened on {address}:{port}")


@contextlib.contextmanager
def proxy_on(home: Path, address: str, extra: str = "") -> Iterator[tuple[int, str]]:
    """``hermes mcp proxy --http ADDRESS:PORT``: its port and bearer token."""
    from servers.net import stop

    write_config(
        home, servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)]}}, extra=extra
    )
    port = _free_port(address)
    with open(home / "proxy.err", "wb") as errlog:
        proc = subprocess.Popen(
            proxy_argv("--http", f"{address}:{port}"),
            env=proxy_env(home),
            stderr=errlog,
            stdout=subprocess.DEVNULL,
        )
    try:
        _wait_for(address, port, proc, home)
        yield port, (home / "proxy-token").read_text().strip()
    finally:
        stop(proc)


def _closed(sock: socket.socket) -> bool:
    """Whether the other end closed *sock* (a reset too: it had unread bytes of ours)."""
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True


def _post(address: str, port: int, token: str, **headers: str) -> int:
    conn = http.client.HTTPConnection(address, port, timeout=60)
    try:
        sent = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        }
        conn.request("POST", "/mcp", body=INITIALIZE, headers=sent)
        return conn.getresponse().status
    finally:
        conn.close()


def test_host_and_origin_are_checked_on_any_loopback_address(tmp_path: Path) -> None:
    with proxy_on(tmp_path, "127.0.0.2") as (port, token):
        # DNS rebinding: a name that resolves to this address, as a browser would send it
        assert _post("127.0.0.2", port, token, Host="evil.example") == 421
        assert _post("127.0.0.2", port, token, Host=f"evil.example:{port}") == 421
        origin = {"Origin": "http://evil.example"}
        assert _post("127.0.0.2", port, token, **origin) == 403
        # the address itself, and a loopback origin, are served
        assert _post("127.0.0.2", port, token) == 200
        assert _post("127.0.0.2", port, token, Origin=f"http://127.0.0.2:{port}") == 200
        # no token: 401 whatever the Host says
        assert _post("127.0.0.2", port, "wrong", Host="evil.example") == 401


def test_a_half_sent_request_is_closed_at_the_header_timeout(tmp_path: Path) -> None:
    with (
        proxy_on(tmp_path, "127.0.0.1", "proxy:\n  header_timeout: 1\n") as (port, _token),
        socket.create_connection(("127.0.0.1", port), timeout=60) as stalled,
    ):
        stalled.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-")
        started = time.monotonic()
        assert _closed(stalled)  # by the proxy, not by our 60 s
        assert 0.5 <= time.monotonic() - started < 30


def test_the_token_holder_is_served_through_a_flood_of_half_open_connections(
    tmp_path: Path,
) -> None:
    with proxy_on(tmp_path, "127.0.0.1", "proxy:\n  header_timeout: 120\n") as (port, token):
        flood: list[socket.socket] = []
        try:
            for _ in range(MAX_OPEN + 64):  # more than the cap, none ever sends a whole head
                sock = socket.create_connection(("127.0.0.1", port), timeout=60)
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                flood.append(sock)
            assert _post("127.0.0.1", port, token) == 200
            # the oldest of the flood were closed to make room; a request without the token
            # is answered 401 and closed, never counted
            assert _closed(flood[0])
            assert _post("127.0.0.1", port, "wrong") == 401
            assert _post("127.0.0.1", port, token) == 200
        finally:
            for sock in flood:
                sock.close()


def test_a_bad_header_timeout_is_exit_2_at_its_line(tmp_path: Path) -> None:
    from support.cli import run_hermes

    write_config(
        tmp_path, servers={"up": {"command": "true"}}, extra="proxy:\n  header_timeout: 0\n"
    )
    done = run_hermes("mcp", "proxy", "--http", "8999", env=proxy_env(tmp_path))
    assert done.returncode == 2, done.stderr
    assert "config.yaml:5: proxy.header_timeout: must be a number of seconds above 0" in done.stderr
    assert "Traceback" not in done.stderr
