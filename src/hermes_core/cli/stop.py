"""Ending a ``hermes`` command early with its exit code, from anywhere inside it."""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["Stop", "guard"]


class Stop(Exception):
    """Ends a command with exit code *code*; *message*, when given, is printed as its
    ``error:`` line (else it was printed already)."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code, self.message = code, message


def guard(action: Callable[[], int]) -> int:
    """*action*'s exit code, or the code it stopped with."""
    try:
        return action()
    except Stop as stop:
        if stop.message:
            print(f"error: {stop.message}", file=sys.stderr)
        return stop.code
