"""Checks for values of the config blocks that are read by hand (``oauth:``, ``elicitation:``)."""

from __future__ import annotations

import math

__all__ = ["positive_seconds"]


def positive_seconds(value: object) -> float | None:
    """*value* as seconds when it is a finite number above zero (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value <= 0:
        return None
    return float(value)
