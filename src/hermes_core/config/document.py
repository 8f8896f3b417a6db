"""The whole ``config.yaml``: :class:`HermesConfig`, the top of the config models."""

from __future__ import annotations

import math
from collections.abc import Iterator

from pydantic import Field, field_validator

from hermes_core.config.bus import BusConfig
from hermes_core.config.call_settings import (
    DEFAULT_MAX_RESULT_TOKENS,
    AuditConfig,
    ResultsConfig,
    interceptor_names,
    result_tokens,
)
from hermes_core.config.defaults import DEFAULT_TOOL_TIMEOUT
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.sampling import SamplingConfig
from hermes_core.config.server import ServerConfig
from hermes_core.config.state import StateConfig
from hermes_core.config.values import REDACTED

__all__ = ["HermesConfig"]


class HermesConfig(ConfigModel):
    """The whole ``config.yaml``: ``mcp_servers`` parsed, every other key kept as read."""

    mcp_servers: dict[str, ServerConfig] = Field(default_factory=dict)
    sampling: SamplingConfig | None = None
    """The host-wide ``sampling:`` defaults (a server's own ``sampling:`` keys win)."""
    interceptors: list[str] = Field(default_factory=list)
    """The call interceptors of every server's calls, in order (before each server's own)."""
    max_result_tokens: int = DEFAULT_MAX_RESULT_TOKENS
    """The result budget of every server (its own ``max_result_tokens`` wins; 0: none)."""
    audit: AuditConfig = Field(default_factory=AuditConfig)
    """The ``audit:`` block: the log of every tool call."""
    results: ResultsConfig = Field(default_factory=ResultsConfig)
    """The ``results:`` block: how long results cut by the budget are kept."""
    state: StateConfig | None = None
    """The ``state:`` block: the durable state on PostgreSQL (``None``: SQLite files)."""
    bus: BusConfig | None = None
    """The ``bus:`` block: the fleet's Redis (``None``: one process, nothing shared)."""

    @field_validator("interceptors", mode="before")
    @classmethod
    def _interceptors(cls, value: object) -> list[str]:
        return interceptor_names(value)

    @field_validator("max_result_tokens", mode="before")
    @classmethod
    def _result_tokens(cls, value: object) -> int:
        tokens = result_tokens(value)
        return DEFAULT_MAX_RESULT_TOKENS if tokens is None else tokens

    def enabled_servers(self) -> dict[str, ServerConfig]:
        """The servers to connect: those without ``enabled: false``, in file order."""
        return {name: cfg for name, cfg in self.mcp_servers.items() if cfg.enabled}

    def tool_call_timeout(self, server: str) -> float:
        """Seconds for one tool call: the server's ``timeout``, else ``timeouts.mcp.tool_call``,
        else 300."""
        cfg = self.mcp_servers.get(server)
        if cfg is not None and "timeout" in cfg.model_fields_set:
            return cfg.timeout
        timeouts = (self.model_extra or {}).get("timeouts")
        mcp = timeouts.get("mcp") if isinstance(timeouts, dict) else None
        value = mcp.get("tool_call") if isinstance(mcp, dict) else None
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is not None and math.isfinite(number) and number > 0:
            return float(number)
        return cfg.timeout if cfg is not None else DEFAULT_TOOL_TIMEOUT

    def __repr_args__(self) -> Iterator[tuple[str | None, object]]:
        extra = self.model_extra or {}
        for name, value in super().__repr_args__():
            yield name, (REDACTED if name in extra else value)
