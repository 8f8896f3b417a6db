"""A server's effective sampling settings: its ``sampling:`` block over the host-wide one."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from hermes_core.config.sampling import SamplingConfig

__all__ = ["NO_BACKEND", "NO_MODEL", "SamplingSettings", "merge_sampling", "unplannable"]

NO_BACKEND = "no sampling backend is installed (pip install hermes-llm)"
"""Why no server is offered sampling when no backend is registered."""
NO_MODEL = (
    "no model configured (set sampling.model or sampling.allowed_models; "
    "`hermes mcp sampling models` lists them)"
)
"""Why no server is offered sampling when no model is configured (nothing asked for it)."""


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


def unplannable(settings: SamplingSettings, backends: Collection[str]) -> str | None:
    """Why *settings* cannot be offered whatever the *backends* (their names) list, or None
    when the answer needs their models.  Asked first, so that a host with no model configured
    (the usual case) never lists models: that imports the backends' libraries (hermes-llm:
    ``llm`` and the provider SDKs it loads, about 0.5 s of CPU)."""
    if not settings.enabled:
        return "disabled (sampling.enabled: false)"
    if settings.model is None and not settings.allowed_models:  # before the backends: the
        return NO_MODEL  # usual case, and a host that never asked for sampling says this
    if not backends:
        return NO_BACKEND
    where = settings.backend
    if where is not None and where not in backends:
        return f"no sampling backend named {where!r} (installed: {', '.join(backends)})"
    return None
