"""The event loop a long-running command runs on.

``hermes mcp proxy`` and the warm host (``hermes mcp up``) answer every call they forward on
one event loop, so its own cost per message is part of each call's: uvloop (libuv, in C) is used
where it is installed — it is a dependency on Linux and macOS — and asyncio's own loop
elsewhere (Windows).  ``HERMES_EVENT_LOOP=asyncio`` picks asyncio's loop anyway (to compare,
or to rule the loop out when something misbehaves); ``HERMES_EVENT_LOOP=uvloop`` insists on
uvloop (an error where it is missing).  A value other than these two is an error: a typo never
silently picks a loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import TypeVar

__all__ = ["LOOP_VARIABLE", "LoopChoiceError", "loop_choice", "run"]

T = TypeVar("T")

LOOP_VARIABLE = "HERMES_EVENT_LOOP"
_CHOICES = ("uvloop", "asyncio")


class LoopChoiceError(ValueError):
    """``$HERMES_EVENT_LOOP`` names no loop this machine can run."""


def loop_choice() -> str:
    """``"uvloop"`` or ``"asyncio"``: what :func:`run` will use (checked, never guessed)."""
    wanted = os.environ.get(LOOP_VARIABLE, "").strip()
    if wanted and wanted not in _CHOICES:
        raise LoopChoiceError(
            f"${LOOP_VARIABLE}={wanted!r} is not an event loop: use one of {', '.join(_CHOICES)}"
        )
    if wanted == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401
    except ImportError:
        if wanted == "uvloop":
            raise LoopChoiceError(
                f"${LOOP_VARIABLE}=uvloop but uvloop is not installed here "
                "(pip install uvloop; it does not run on Windows)"
            ) from None
        return "asyncio"
    return "uvloop"


def run(main: Coroutine[object, object, T]) -> T:
    """Run *main* to its end on the loop :func:`loop_choice` picks (call that first to report
    a bad choice in words)."""
    if loop_choice() == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
