"""Ending a ``hermes`` command early with its exit code, from anywhere inside it."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Stop", "guard"]


class Stop(Exception):
    """Ends a command with exit code *code* (its message was already printed)."""

    def __init__(self, code: int) -> None:
        self.code = code


def guard(action: Callable[[], int]) -> int:
    """*action*'s exit code, or the code it stopped with."""
    try:
        return action()
    except Stop as stop:
        return stop.code
