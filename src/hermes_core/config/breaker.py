"""``circuit_breaker:`` of a server entry: when its calls pause, and for how long."""

from __future__ import annotations

from typing import Any

from pydantic import field_validator, model_validator

from hermes_core.config.checks import fail, kind_of, known_keys
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.values import parse_seconds

__all__ = ["BreakerConfig"]


class BreakerConfig(ConfigModel):
    """``circuit_breaker:``: consecutive failures that pause a server's calls, and for how long."""

    threshold: int = 3
    """Consecutive failed calls (transport errors, timeouts, error results) that open it."""
    cooldown: float = 60.0
    """Seconds the breaker stays open before one call goes through as a probe."""

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        shape = "a mapping with threshold and cooldown"
        return known_keys(value, list(cls.model_fields), shape=shape)

    @field_validator("threshold", mode="before")
    @classmethod
    def _threshold(cls, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail(f"must be a whole number of failures, 1 or more (got {kind_of(value)})")
        return value

    @field_validator("cooldown", mode="before")
    @classmethod
    def _cooldown(cls, value: object) -> float:
        return parse_seconds(value, 60.0, zero_ok=False)
