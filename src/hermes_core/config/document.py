"""The whole ``config.yaml``: :class:`HermesConfig`, the top of the config models."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field

from hermes_core.config.defaults import DEFAULT_TOOL_TIMEOUT
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.sampling import SamplingConfig
from hermes_core.config.server import ServerConfig
from hermes_core.config.values import REDACTED

__all__ = ["HermesConfig"]


class HermesConfig(ConfigModel):
    """The whole ``config.yaml``: ``mcp_servers`` parsed, every other key kept as read."""

    mcp_servers: dict[str, ServerConfig] = Field(default_factory=dict)
    sampling: SamplingConfig | None = None
    """The host-wide ``sampling:`` defaults (a server's own ``sampling:`` keys win)."""

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

    def __repr_args__(self) -> Any:
        extra = self.model_extra or {}
        for name, value in super().__repr_args__():
            yield name, (REDACTED if name in extra else value)
