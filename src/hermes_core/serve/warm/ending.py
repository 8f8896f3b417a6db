"""Making sure a warm host's process ends (``hermes mcp down``).

After its answer to ``stop`` the process has closed every server and exits within moments;
one that does not (hung, or not answering at all) is sent ``SIGTERM`` (its handler stops the
host as ``stop`` does), then ``SIGKILL`` — only when its command line shows it is a warm host
(:func:`~hermes_core.serve.warm.paths.is_warm_host`): a pid file may name a process that
has since been reused by another program.
"""

from __future__ import annotations

import enum
import os
import select
import signal
import time

from hermes_core.serve.warm.paths import alive

__all__ = ["EXIT_GRACE", "Ending", "end_process", "wait_exit"]

#: How long a process is given to exit after its answer, and after ``SIGTERM`` (seconds).
EXIT_GRACE = 10.0


class Ending(enum.Enum):
    EXITED = "exited"
    TERMINATED = "ended with SIGTERM"
    KILLED = "ended with SIGKILL"


def wait_exit(pid: int, seconds: float) -> bool:
    """Whether process *pid* (not our child) has ended within *seconds*."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    except (AttributeError, OSError):  # no pidfd here: look a few times a second
        deadline = time.monotonic() + seconds
        while alive(pid):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True
    try:
        ready, _, _ = select.select([fd], [], [], seconds)
        return bool(ready)
    finally:
        os.close(fd)


def end_process(pid: int, grace: float = EXIT_GRACE) -> Ending:
    """End warm host *pid*: wait *grace* for it to exit, then send ``SIGTERM`` and wait
    :data:`EXIT_GRACE`, then ``SIGKILL``."""
    if wait_exit(pid, grace):
        return Ending.EXITED
    for signum, ending in ((signal.SIGTERM, Ending.TERMINATED), (signal.SIGKILL, Ending.KILLED)):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            return Ending.EXITED
        if wait_exit(pid, EXIT_GRACE):
            return ending
    return Ending.KILLED
