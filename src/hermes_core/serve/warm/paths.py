"""Where the warm host of a ``HERMES_HOME`` lives: ``run/host.sock`` (mode 0600) and
``run/host.pid`` under it, its log in ``logs/warm-host.log``; and whether it is up.

:func:`probe` says hello: it connects and waits at most :data:`HELLO_TIMEOUT` for the answer.
A socket or pid file left by a host that died (killed, machine rebooted) is *stale*: nothing
listens on the socket, or the pid is gone; :func:`probe` removes both files, so the next
command starts cold and ``hermes mcp up`` can start a new host.  A host that accepts the
connection but does not answer in time is *hung*: the command runs cold (the files stay:
``hermes mcp down`` ends it), and this process does not wait on it again.

``run/`` is created 0700 and must be a directory of this user (never a symbolic link); the pid
file is written to a fresh file (``O_EXCL | O_NOFOLLOW``) then renamed over ``host.pid``, so a
link planted at either name is replaced, never followed.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from hermes_core.serve.warm.address import connect_unix

__all__ = [
    "HELLO_TIMEOUT",
    "WarmPathError",
    "WarmPaths",
    "WarmState",
    "alive",
    "is_warm_host",
    "probe",
]

#: How long a command waits for the warm host's hello before it runs cold (seconds).
HELLO_TIMEOUT = 2.0
#: The longest hello answer read.
_MAX_HELLO = 4096
#: Homes whose warm host did not answer its hello in this process: not waited on again.
_HUNG: set[Path] = set()


class WarmState(enum.Enum):
    DOWN = "down"
    UP = "up"
    STALE = "stale"
    HUNG = "hung"


class WarmPathError(OSError):
    """``run/`` is not a private directory of this user (a link, a file, someone else's)."""


@dataclass(frozen=True)
class WarmPaths:
    home: Path

    @property
    def run_dir(self) -> Path:
        return self.home / "run"

    @property
    def socket(self) -> Path:
        return self.run_dir / "host.sock"

    @property
    def pid_file(self) -> Path:
        return self.run_dir / "host.pid"

    @property
    def log(self) -> Path:
        return self.home / "logs" / "warm-host.log"

    def pid(self) -> int | None:
        try:
            fd = os.open(self.pid_file, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as fh:
            text = fh.read(32).decode("ascii", errors="replace").strip()
        return int(text) if text.isdigit() else None

    def prepare_run_dir(self) -> None:
        """Create ``run/`` (0700), or check the one there: a directory of this user."""
        self.run_dir.mkdir(parents=True, mode=0o700, exist_ok=True)
        info = os.lstat(self.run_dir)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            raise WarmPathError(f"{self.run_dir} is not a directory of this user; remove it")
        os.chmod(self.run_dir, 0o700, follow_symlinks=False)

    def write_pid(self, pid: int) -> None:
        """Write *pid* to the pid file: a fresh file (never through a link), renamed into place."""
        tmp = self.run_dir / "host.pid.tmp"
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(f"{pid}\n")
        os.replace(tmp, self.pid_file)

    def clean(self) -> None:
        for path in (self.socket, self.pid_file):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def alive(pid: int) -> bool:
    """Whether process *pid* exists (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_warm_host(pid: int) -> bool | None:
    """Whether process *pid* runs ``hermes mcp up --foreground`` (``None``: cannot tell here)."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return False if os.path.isdir("/proc/self") else None
    except OSError:
        return None
    return b"up" in words and b"--foreground" in words and b"mcp" in words


def _hello(paths: WarmPaths) -> tuple[bool, int | None]:
    """(whether something listens on the socket, the pid the warm host answered with: ``None``
    when it did not answer a hello within :data:`HELLO_TIMEOUT`)."""
    deadline = time.monotonic() + HELLO_TIMEOUT
    try:
        sock = connect_unix(paths.socket, HELLO_TIMEOUT)
    except TimeoutError:
        return True, None  # the backlog is full: it listens, it does not accept
    except OSError:
        return False, None
    with sock:
        try:
            sock.sendall(b'{"op": "hello"}\n')
            data = b""
            while b"\n" not in data and len(data) < _MAX_HELLO:
                sock.settimeout(max(0.001, deadline - time.monotonic()))
                chunk = sock.recv(_MAX_HELLO)
                if not chunk:
                    break
                data += chunk
        except OSError:
            return True, None
    try:
        answer = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return True, None
    pid = answer.get("pid") if isinstance(answer, dict) else None
    return True, pid if isinstance(pid, int) and answer.get("hello") == "hermes" else None


def probe(paths: WarmPaths, *, clean: bool = True) -> tuple[WarmState, int | None]:
    """Whether a warm host answers on *paths*' socket, and its pid; a stale one is cleaned
    (with *clean*).  Waits at most :data:`HELLO_TIMEOUT`, once per home in a process."""
    pid = paths.pid()
    if not os.path.lexists(paths.socket) and pid is None:
        return WarmState.DOWN, None
    if paths.home in _HUNG:
        return WarmState.HUNG, pid
    listening = False
    if paths.socket.is_socket():
        listening, answered = _hello(paths)
        if answered is not None:
            return WarmState.UP, answered
    if listening and pid is not None and alive(pid):
        _HUNG.add(paths.home)
        return WarmState.HUNG, pid
    if clean:
        paths.clean()
    return WarmState.STALE, pid
