"""``sampling:``: what an MCP server may ask of the host's LLM (per server, and a host-wide
default block at the top level of ``config.yaml`` with the same keys; per-server values win).

Every key is optional here (unset means "take the host-wide value, else the default"), so
the two blocks merge key by key.  Unlike the rest of a server entry, an unknown key or a bad
value is an error: a typo here must never switch a limit off.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator, model_validator

from hermes_core.config.checks import deferred, fail, kind, known_keys

__all__ = ["LOG_LEVELS", "SamplingConfig"]

LOG_LEVELS = ("debug", "info", "warning")
_APPROVALS = ("auto", "ask")


def _count(value: object, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise fail(f"must be a whole number (got {kind(value)})")
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise fail("must be a whole number (got text)") from None
    if isinstance(value, float):
        if not value.is_integer():
            raise fail("must be a whole number (got a fraction)")
        value = int(value)
    if value < minimum:
        raise fail(f"must be {minimum} or more")
    return int(value)


class SamplingConfig(BaseModel):
    """One ``sampling:`` block (``None`` = not set here)."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    enabled: bool | None = None
    """Offer sampling to the server at all (default true)."""
    backend: str | None = None
    """Which ``sampling_provider`` answers (default: the first that offers the model)."""
    model: str | None = None
    """The model (an ID or alias the backend lists); wins over the server's hints."""
    max_tokens_cap: int | None = None
    """``maxTokens`` is clamped to this (default 4096)."""
    timeout: float | None = None
    """Seconds for one LLM call (default 30)."""
    max_rpm: int | None = None
    """Requests per sliding minute, per server (default 10)."""
    max_tool_rounds: int | None = None
    """Consecutive tool-use rounds in one exchange (default 5; 0 = no tools)."""
    allowed_models: tuple[str, ...] | None = None
    """The models the server may get (empty = any)."""
    log_level: str | None = None
    """Level of the per-request audit line: debug, info (default) or warning; prompt text
    only at debug."""
    approval: str | None = None
    """``ask``: the user approves each request (the elicitation channel); default auto."""

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, value: Any) -> Any:
        return known_keys(value, list(cls.model_fields))

    @field_validator("enabled", mode="before")
    @classmethod
    def _enabled(cls, value: object) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        raise fail(f"must be true or false (got {kind(value)})")

    @field_validator("backend", "model", mode="before")
    @classmethod
    def _name(cls, value: object) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise fail(f"must be a non-empty name (got {kind(value)})")
        return value.strip()

    def strings(self) -> dict[str, str]:
        """Every text setting that is set, by key path (``allowed_models[1]``): what
        ``${VAR}`` expansion walks."""
        found = {
            key: value
            for key in ("backend", "model", "log_level", "approval")
            if isinstance(value := getattr(self, key), str)
        }
        for index, name in enumerate(self.allowed_models or ()):
            found[f"allowed_models[{index}]"] = name
        return found

    @field_validator("max_tokens_cap", "max_rpm", mode="before")
    @classmethod
    def _positive(cls, value: object) -> int | None:
        return None if value is None else _count(value, minimum=1)

    @field_validator("max_tool_rounds", mode="before")
    @classmethod
    def _rounds(cls, value: object) -> int | None:
        return None if value is None else _count(value, minimum=0)

    @field_validator("timeout", mode="before")
    @classmethod
    def _timeout(cls, value: object) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail(f"must be a number of seconds (got {kind(value)})")
        if not math.isfinite(value) or value <= 0:
            raise fail("must be a positive number of seconds")
        return float(value)

    @field_validator("allowed_models", mode="before")
    @classmethod
    def _allowed(cls, value: object) -> tuple[str, ...] | None:
        if value is None:
            return None
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple):
            raise fail(f"must be a list of model names (got {kind(value)})")
        names: list[str] = []
        for index, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                raise fail(f"must be a model name (got {kind(item)})", index)
            names.append(item.strip())
        return tuple(names)

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: object, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if deferred(value, info):
            return str(value).strip()
        if not isinstance(value, str) or value.strip().lower() not in LOG_LEVELS:
            raise fail(f"must be one of {', '.join(LOG_LEVELS)}")
        return value.strip().lower()

    @field_validator("approval", mode="before")
    @classmethod
    def _approval(cls, value: object, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if deferred(value, info):
            return str(value).strip()
        if not isinstance(value, str) or value.strip().lower() not in _APPROVALS:
            raise fail(f"must be one of {', '.join(_APPROVALS)}")
        return value.strip().lower()
