"""Hostile runtime files (issue 47): a FIFO, a symbolic link, a huge file, a non-loopback
endpoint, a pid that is not the app's, a token that would split a header, a file rewritten every
10 ms — each is bounded, refused with a reason, or ignored; none blocks, none leaks the token."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_core.host.liveness.endpoint import (
    MAX_RUNTIME_FILE,
    LiveEndpoint,
    NotRunning,
    live_endpoint,
)
from hermes_core.host.liveness.follow import AppFollower
from hermes_core.host.liveness.live_spec import live_spec
from hermes_core.host.server_spec import HostServer
from hermes_platform import declaration
from support.desktop import app_block

ALIVE = os.getppid()  # a live process that is not this one


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "mcp.json"
    decl = declaration.parse_declaration("desk", app_block(path), where="desk/plugin.yaml")
    declaration.register("desk", decl)
    try:
        yield path
    finally:
        declaration.unregister("desk")


def write(path: Path, **data: object) -> None:
    path.write_text(json.dumps({"pid": ALIVE, "http": "http://127.0.0.1:4000", **data}))


def reason(path: Path) -> str:
    seen = live_endpoint("desk")
    assert isinstance(seen, NotRunning), seen
    return seen.reason


def test_a_good_file_gives_the_endpoint_and_hides_the_token(runtime: Path) -> None:
    write(runtime, token="s3cret-token", http="http://localhost:4000/ignored?x=1")
    seen = live_endpoint("desk")
    assert isinstance(seen, LiveEndpoint)
    assert seen.url == "http://localhost:4000/mcp"  # the path is the declaration's
    assert "s3cret-token" not in repr(seen) and "s3cret-token" not in str(seen.as_dict())
    spec = live_spec(HostServer("desk", transport="streamable_http"), seen)
    assert spec.headers == {"Authorization": "Bearer s3cret-token"}
    assert "s3cret-token" not in repr(spec)
    # What the entry says itself wins: its own url (the token is never sent there), its header.
    mine = HostServer("desk", url="http://127.0.0.1:9/mcp", transport="streamable_http")
    assert live_spec(mine, seen) is mine
    own = HostServer("desk", transport="streamable_http", headers={"authorization": "Bearer me"})
    assert live_spec(own, seen).headers == {"authorization": "Bearer me"}


def test_no_file_means_not_running(runtime: Path) -> None:
    assert reason(runtime) == "no runtime file (the app is not running)"


def test_a_fifo_is_refused_without_blocking(runtime: Path) -> None:
    os.mkfifo(runtime)  # opening it to read would block until a writer comes
    assert reason(runtime) == "its runtime file is not a regular file; refused"


def test_a_symbolic_link_is_refused(runtime: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    write(target, token="t")
    runtime.symlink_to(target)
    assert reason(runtime) == "its runtime file is a symbolic link; refused"


def test_a_huge_file_is_refused_unread(runtime: Path) -> None:
    with open(runtime, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)  # sparse: big, cheap
    assert reason(runtime) == f"its runtime file is over {MAX_RUNTIME_FILE} bytes; refused"


@pytest.mark.parametrize(
    "url",
    [
        "http://192.168.1.10:4000",
        "http://evil.example:4000",
        "https://127.0.0.1:4000",
        "http://user:pw@127.0.0.1:4000",
        "http://127.0.0.1",
        "",
    ],
)
def test_an_endpoint_off_loopback_is_refused(runtime: Path, url: str) -> None:
    write(runtime, http=url, token="t")
    assert reason(runtime).startswith("its runtime file's 'http': ")


@pytest.mark.parametrize(
    ("pid", "why"),
    [
        ("self", "its runtime file names this process (pid {self}); refused"),
        (2**31 - 2, f"process {2**31 - 2} named by its runtime file is not running"),
        (-1, "its runtime file has no valid 'pid'"),
        ("1234", "its runtime file has no valid 'pid'"),
    ],
    ids=["this-process", "not-running", "negative", "a-string"],
)
def test_a_pid_that_is_not_the_apps_is_refused(runtime: Path, pid: object, why: str) -> None:
    # This process's pid is read when the test runs (each pytest-xdist worker has its own;
    # a test id must be the same in every worker).
    if pid == "self":
        pid = os.getpid()
    write(runtime, pid=pid)
    assert reason(runtime) == why.replace("{self}", str(os.getpid()))


def test_a_token_that_would_split_a_header_is_refused(runtime: Path) -> None:
    write(runtime, token="abc\r\nX-Evil: 1")
    text = reason(runtime)
    assert text == "its runtime file's 'token' is not a usable token" and "Evil" not in text


def test_half_written_json_is_not_running(runtime: Path) -> None:
    runtime.write_text('{"pid": 12, "http": "http://127.0')
    assert reason(runtime) == "its runtime file is not JSON (being written, or damaged)"


def test_a_file_rewritten_every_10_ms_restarts_at_most_once_a_poll(runtime: Path) -> None:
    restarts: list[str] = []
    stop = threading.Event()

    def write_port(port: int) -> None:
        partial = runtime.with_name("mcp.json.tmp")
        partial.write_text(json.dumps({"pid": ALIVE, "http": f"http://127.0.0.1:{port}"}))
        os.replace(partial, runtime)

    def rewrite() -> None:
        port = 4000
        while not stop.wait(0.01):
            port += 1
            write_port(port)

    async def scenario() -> tuple[int, int]:
        tasks: set[asyncio.Task[object]] = set()

        async def restart(name: str) -> None:
            restarts.append(name)
            follower.observe(name)

        def spawn(coro: object, _name: str) -> asyncio.Task[object]:
            task = asyncio.ensure_future(coro)  # type: ignore[arg-type]
            tasks.add(task)
            return task

        follower = AppFollower(
            {"desk": HostServer("desk", transport="streamable_http")},
            restart,
            spawn,
            interval=0.1,
        )
        write_port(4000)
        follower.follow()
        writer = threading.Thread(target=rewrite)
        writer.start()
        try:
            # Ten polls of the storm (≈100 rewrites when the machine is quiet).
            polls = await asyncio.wait_for(follower.polled(10), 60)
            done = len(restarts)
        finally:
            stop.set()
            await asyncio.to_thread(writer.join)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return done, polls

    restarted, polls = asyncio.run(scenario())
    assert polls >= 10
    assert 1 <= restarted <= polls, (restarted, polls)  # one a poll at most, never one a write
