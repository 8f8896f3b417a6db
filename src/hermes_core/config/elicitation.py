"""``elicitation:``: whether a server may ask the user for input mid-call, and for how long.

Validated when ``config.yaml`` is read: unknown keys and bad values are errors at
file:line (a typo must never change what a server may do).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from hermes_core.config.checks import fail, kind, known_keys

__all__ = ["DEFAULT_ELICITATION_TIMEOUT", "ElicitationConfig"]

#: Seconds an elicitation (or an approval) waits for the user's answer.
DEFAULT_ELICITATION_TIMEOUT = 300.0


class ElicitationConfig(BaseModel):
    """A server's ``elicitation:`` block."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    enabled: bool = True
    """Advertise the elicitation capability to this server (``false``: it is never asked)."""
    timeout: float = DEFAULT_ELICITATION_TIMEOUT
    """Seconds to wait for the user's answer before the request is cancelled."""

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        return known_keys(value, list(cls.model_fields), shape="a mapping of elicitation settings")

    @field_validator("enabled", mode="before")
    @classmethod
    def _enabled(cls, value: object) -> bool:
        if value is None:
            return True
        if not isinstance(value, bool):
            raise fail(f"must be true or false (got {kind(value)})")
        return value

    @field_validator("timeout", mode="before")
    @classmethod
    def _timeout(cls, value: object) -> float:
        if value is None:
            return DEFAULT_ELICITATION_TIMEOUT
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail(f"must be a positive number of seconds (got {kind(value)})")
        if not math.isfinite(value) or value <= 0:
            raise fail("must be a positive number of seconds")
        return float(value)
