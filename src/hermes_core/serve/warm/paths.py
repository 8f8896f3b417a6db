"""Where the warm host of a ``HERMES_HOME`` lives: ``run/host.sock`` (mode 0600) and
``run/host.pid`` under it, its log in ``logs/warm-host.log``; and whether it is up.

A socket or pid file left by a host that died (killed, machine rebooted) is *stale*: nothing
answers on the socket, or the pid is gone.  :func:`probe` notices it and removes both files,
so the next command starts cold and ``hermes mcp up`` can start a new host.
"""

from __future__ import annotations

import contextlib
import enum
import os
import socket
from dataclasses import dataclass
from pathlib import Path

__all__ = ["WarmPaths", "WarmState", "probe"]


class WarmState(enum.Enum):
    DOWN = "down"
    UP = "up"
    STALE = "stale"


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
            text = self.pid_file.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return int(text) if text.isdigit() else None

    def clean(self) -> None:
        for path in (self.socket, self.pid_file):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def probe(paths: WarmPaths, *, clean: bool = True) -> tuple[WarmState, int | None]:
    """Whether a warm host answers on *paths*' socket, and its pid; a stale one is cleaned
    (with *clean*)."""
    pid = paths.pid()
    if not paths.socket.exists() and pid is None:
        return WarmState.DOWN, None
    reachable = False
    if paths.socket.is_socket():
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(2)
            try:
                sock.connect(str(paths.socket))
                reachable = True
            except OSError:
                reachable = False
    if reachable and pid is not None and _alive(pid):
        return WarmState.UP, pid
    if clean:
        paths.clean()
    return WarmState.STALE, pid
