"""Ending a ``hermes`` command early with its exit code, from anywhere inside it.

A command raises :class:`Stop`; the dispatcher (:func:`hermes_core.cli.commands.dispatch`)
catches it once for every subcommand and answers with :func:`stopped`.  A caller that runs a
command's function itself and must go on afterwards (the interactive picker) uses
:func:`guard`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["Stop", "guard", "stopped"]


class Stop(Exception):
    """Ends a command with exit code *code*; *message*, when given, is printed as its
    ``error:`` line (else it was printed already)."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code, self.message = code, message


def stopped(stop: Stop) -> int:
    """Print *stop*'s ``error:`` line (if it has one) and answer its exit code."""
    if stop.message:
        print(f"error: {stop.message}", file=sys.stderr)
    return stop.code


def guard(action: Callable[[], int]) -> int:
    """*action*'s answer, or the code it stopped with."""
    try:
        return action()
    except Stop as stop:
        return stopped(stop)
