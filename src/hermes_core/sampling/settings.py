"""A server's effective sampling settings: its ``sampling:`` block over the host-wide one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from hermes_core.config.sampling import SamplingConfig

__all__ = ["NO_BACKEND", "SamplingSettings", "merge_sampling"]

NO_BACKEND = "no sampling backend is installed (pip install hermes-llm)"
"""Why no server is offered sampling when no backend is registered."""


@dataclass(frozen=True)
class SamplingSettings:
    """The limits one server's sampling requests run under (defaults from the user guide)."""

    enabled: bool = True
    backend: str | None = None
    model: str | None = None
    max_tokens_cap: int = 4096
    timeout: float = 30.0
    max_rpm: int = 10
    max_tool_rounds: int = 5
    allowed_models: tuple[str, ...] = ()
    log_level: Literal["debug", "info", "warning"] = "info"
    approval: Literal["auto", "ask"] = "auto"


def merge_sampling(
    host_wide: SamplingConfig | None, server: SamplingConfig | None
) -> SamplingSettings:
    """Key by key: the server's value, else the host-wide one, else the default."""
    values: dict[str, object] = {}
    for block in (host_wide, server):
        if block is None:
            continue
        for key in block.model_fields_set:
            value = getattr(block, key)
            if value is not None:
                values[key] = value
    return SamplingSettings(**values)  # type: ignore[arg-type]
