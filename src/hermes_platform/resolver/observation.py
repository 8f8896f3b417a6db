"""What a check of the machine observed: a state, an optional value, a detail for people."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NOT_CHECKED", "OBSERVATION_STATES", "Observation"]

OBSERVATION_STATES = ("not_checked", "present", "absent", "unavailable", "error")


@dataclass(frozen=True)
class Observation:
    """The outcome of one check: a state, an optional value, a human-only detail.

    ``state`` is one of :data:`OBSERVATION_STATES`: ``present`` (``value`` is
    what was read), ``absent`` (the thing looked for is not there),
    ``unavailable`` (there, but it states no value), ``error`` (unreadable or
    malformed) or ``not_checked``.
    """

    state: str
    value: str | None = None
    detail: str = ""


NOT_CHECKED = Observation("not_checked")
