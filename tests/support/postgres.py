"""A real PostgreSQL for the tests: Debian's ``postgresql`` package (``initdb``, ``pg_ctl``
under ``/usr/lib/postgresql/<version>/bin``), started on a loopback port in a temporary
folder, once per test session (``postgres_server``, registered in ``tests/conftest.py``).

The cluster has a superuser ``admin`` (used only here, to make databases) and the role the
tests' Hermes connects as, ``hermes``: a plain login role with a password that owns each
database it is given (:meth:`PostgresServer.new_database`), never a superuser — what the
state store must work with.  Run as root (CI), the server runs as the package's ``postgres``
user (PostgreSQL refuses root).  ``pg_ctl -w`` waits for the server to accept connections;
nothing sleeps.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["PASSWORD", "PostgresServer", "postgres_server"]

#: The ``hermes`` role's password (a test value; the tests put it in ``.env``).
PASSWORD = "pg-test-password-7f3a"
ADMIN_PASSWORD = "pg-admin-password-91c2"
_counter = itertools.count(1)


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version_key)
    if not found:
        pytest.fail(
            "PostgreSQL is not installed (apt-get install postgresql; .ci/run installs it)",
            pytrace=False,
        )
    return Path(found[-1]).parent


def _version_key(path: str) -> tuple[int, ...]:
    version = Path(path).parents[1].name
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """One PostgreSQL cluster in *folder*, listening on 127.0.0.1 and a socket there."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.bin = _bin_dir()
        self.data = folder / "data"
        self.log = folder / "server.log"
        self.port = _free_port()
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "postgres"
            info = pwd.getpwnam(self.user)
            os.chown(folder, info.pw_uid, info.pw_gid)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            check=check,
            timeout=120,
            user=self.user,
            cwd=self.folder,
        )

    def init(self) -> None:
        pwfile = self.folder / "admin.pw"
        pwfile.write_text(ADMIN_PASSWORD + "\n")
        if self.user is not None:
            shutil.chown(pwfile, self.user)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "admin",
            f"--pwfile={pwfile}",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale=C",
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=200 -c shared_buffers=16MB"
        )
        done = self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t",
            "120", "start", check=False,
        )  # fmt: skip
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {done.stderr}\n{log}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "120", "stop")

    def admin(self, sql: str, database: str = "postgres") -> str:
        """Run *sql* as the superuser (over the socket); its output."""
        done = subprocess.run(
            [str(self.bin / "psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1",
             "-h", str(self.folder), "-p", str(self.port), "-U", "admin", "-d", database,
             "-c", sql],
            capture_output=True, text=True, check=True, timeout=120, user=self.user,
        )  # fmt: skip
        return done.stdout.strip()

    def create_role(self) -> None:
        self.admin(
            f"CREATE ROLE hermes LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '{PASSWORD}'"
        )

    def new_database(self) -> str:
        """A new empty database owned by ``hermes``; its name."""
        name = f"hermes_{os.getpid()}_{next(_counter)}"
        self.admin(f"CREATE DATABASE {name} OWNER hermes")
        return name

    def url(self, database: str, *, password: str = "${HERMES_PG_PASSWORD}") -> str:
        """The ``state.url`` of *database* (the password a ``${VAR}`` by default)."""
        return f"postgresql://hermes:{password}@127.0.0.1:{self.port}/{database}"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL (started on first use, stopped at the end)."""
    folder = Path(tempfile.mkdtemp(prefix="hpg"))  # short: the socket path has a limit
    server = PostgresServer(folder)
    try:
        server.init()
        server.start()
        server.create_role()
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
