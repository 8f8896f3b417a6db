"""A real ``redis-server`` (Debian's package) for the fleet tests: loopback, an ephemeral port,
a temporary directory, no persistence (no RDB snapshot, no AOF), stopped on the way out.
:meth:`RedisServer.restart` stops it and starts it again on the same port (everything it held
is gone, as in a real restart without persistence)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from servers.net import free_port, stop, wait_for_port

__all__ = ["RedisServer", "redis_server"]


class RedisServer:
    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            "--save", "",
            "--appendonly", "no",
            "--protected-mode", "yes",
        ]  # fmt: skip
        with open(self.folder / "redis.log", "ab") as log:
            self.process = subprocess.Popen(argv, stdout=log, stderr=log)
        wait_for_port(self.port, 30)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[RedisServer]:
    """A running :class:`RedisServer` keeping its files in *folder*."""
    folder.mkdir(parents=True, exist_ok=True)
    server = RedisServer(folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()
