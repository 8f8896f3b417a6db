"""The processes this process has started, as the kernel lists them (Linux ``/proc``)."""

from __future__ import annotations

import os
import select
from pathlib import Path

from support import cli_launch


def live_children() -> set[int]:
    """Child processes of this process that have not exited (zombies do not count), but for
    the launcher the suite's ``hermes`` runs are forked from (``support.cli_launch``)."""
    me = os.getpid()
    launcher = cli_launch.launcher_pid()
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)"
        if len(fields) > 1 and int(fields[1]) == me and fields[0] not in ("Z", "X"):
            found.add(int(entry.name))
    found.discard(launcher)
    return found


def wait_exit(pid: int, seconds: float) -> bool:
    """Whether process *pid* (not our child) ends within *seconds*: waits on its pidfd."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], seconds)
        return bool(ready)
    finally:
        os.close(fd)
