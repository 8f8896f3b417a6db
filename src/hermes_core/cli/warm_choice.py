"""Whether a command runs on the warm host (``hermes mcp up``) or cold, said on stderr once.

A command uses the warm host when one answers its hello within
:data:`~hermes_core.serve.warm.paths.HELLO_TIMEOUT`; ``HERMES_WARM=0`` always runs cold.  A
stale socket is removed (one ``note:`` line); a warm host that does not answer, or fails
before the command's body runs, is bypassed with one ``warning:`` line and the command runs
cold.  The choice is made once per process: ``hermes mcp call``'s two handlers ask in turn.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hermes_core.home import hermes_home
from hermes_core.serve.warm.paths import HELLO_TIMEOUT, WarmPaths, WarmState, probe

__all__ = ["bypass", "choose", "using"]

#: Per home: the warm host's pid when it is used, ``None`` when the command runs cold.
_CHOSEN: dict[Path, int | None] = {}
_SAID: set[Path] = set()


def choose() -> tuple[WarmPaths, int] | None:
    """This home's warm host and its pid, or ``None``: the command runs cold."""
    if os.environ.get("HERMES_WARM", "").strip() == "0":
        return None
    paths = WarmPaths(hermes_home())
    if paths.home not in _CHOSEN:
        state, pid = probe(paths)
        if state is WarmState.STALE:
            print(f"note: removed a stale warm host socket (pid {pid} is gone)", file=sys.stderr)
        elif state is WarmState.HUNG:
            bypass(paths, pid, f"did not answer within {HELLO_TIMEOUT:g} s")
        _CHOSEN[paths.home] = pid if state is WarmState.UP else None
    pid = _CHOSEN[paths.home]
    return None if pid is None else (paths, pid)


def bypass(paths: WarmPaths, pid: int | None, why: str) -> None:
    """Say (once) that the warm host is bypassed because of *why*; the command runs cold."""
    _CHOSEN[paths.home] = None
    if paths.home in _SAID:
        return
    _SAID.add(paths.home)
    who = f" (pid {pid})" if pid else ""
    print(
        f"warning: the warm host{who} {why}; running without it (`hermes mcp down` stops it)",
        file=sys.stderr,
    )


def using(paths: WarmPaths, pid: int) -> None:
    """Say (once) that the command runs on the warm host."""
    if paths.home in _SAID:
        return
    _SAID.add(paths.home)
    print(f"using the warm host (pid {pid}; `hermes mcp down` stops it)", file=sys.stderr)
