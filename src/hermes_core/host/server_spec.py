"""One server as the host needs it: where it runs, how it is reached and what it is offered.

Built from ``config.yaml`` by :mod:`hermes_core.host.setup.from_config`, or directly by an embedder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hermes_core.config.client_cert import ClientCertificate
from hermes_core.config.policy_rules import Policy
from hermes_core.host.tools.overrides import ToolOverride
from hermes_core.offers.elicitation import ElicitationSettings
from hermes_core.offers.roots import Root
from hermes_core.sampling.settings import SamplingSettings
from hermes_core.sanitize.urls import display_url

__all__ = ["HostServer"]


@dataclass(frozen=True)
class HostServer:
    """One server as the host needs it (built from ``config.yaml`` by ``hermes_core.config``)."""

    name: str
    command: str | None = None
    args: list[str] = field(default_factory=list, hash=False)
    env: dict[str, str] = field(default_factory=dict, hash=False, repr=False)
    cwd: str | None = None
    """The stdio process's working folder (``None``: ours)."""
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict, hash=False, repr=False)
    transport: str = "stdio"
    sse_fallback: bool = False
    """A ``url`` without ``transport:``: when Streamable HTTP answers 404 or 405, try the
    legacy SSE transport at the same URL (as the TypeScript SDK's clients do)."""
    timeout: float = 300.0
    connect_timeout: float = 60.0
    enabled: bool = True
    supports_parallel_tool_calls: bool = False
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    resources: bool = True
    prompts: bool = True
    overrides: Mapping[str, ToolOverride] = field(default_factory=dict, hash=False)
    """``tools.overrides``: server tool name -> how it is shown and called."""
    idle_timeout_seconds: float = 0.0
    max_lifetime_seconds: float = 0.0
    keepalive_interval: float = 180.0
    """Probe the server after this many quiet seconds (0: never)."""
    keepalive_timeout: float = 30.0
    """How long a keepalive probe may take before the server counts as wedged."""
    breaker_threshold: int = 3
    breaker_cooldown: float = 60.0
    trust: Literal["full", "untrusted"] = "full"
    lazy: bool = False
    always_load: bool = False
    """Offered in full by ``hermes chat`` even when its tool search is on."""
    pin: bool = True
    """Pin each tool's definition when first listed; a changed one is held back until the user
    accepts it (``hermes mcp trust``).  Takes effect on a host that has a trust store."""
    identity: str | None = None
    """Where the server is reached, as written in config (hashed; no values of variables):
    pins belong to it.  ``None``: derived from the resolved fields."""
    policy: Policy | None = field(default=None, compare=False, repr=False)
    """The administrator's policy: the tools it refuses are not offered, their calls refused."""
    schema_cache: Path | None = field(default=None, compare=False)
    """Where this server's tool listing is cached (``lazy`` servers); None: no cache."""
    fingerprint: str | None = None
    """The connection-relevant config, hashed without credential values (the cache key)."""
    max_message_bytes: int = 64 * 1024 * 1024
    """The largest message accepted from the server (stdio line, SSE event, HTTP body)."""
    client_certificate: ClientCertificate | None = field(default=None, repr=False)
    auth: Any = field(default=None, repr=False, compare=False)
    """An ``httpx2.Auth`` for HTTP servers (``auth: oauth``), or None."""
    elicitation: ElicitationSettings = field(default_factory=ElicitationSettings)
    """The ``elicitation:`` block: whether this server may ask the user, and how long to wait."""
    options: Mapping[str, Any] = field(default_factory=dict, hash=False, repr=False)
    """The entry's keys that belong to its transport or auth provider (``${VAR}`` resolved):
    a plugin transport reads its ``config_key`` here."""
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    """The ``sampling:`` settings (the server's block over the host-wide one)."""
    roots: tuple[Root, ...] = ()
    """The ``roots:`` folders offered to the server (empty: no roots capability)."""
    interceptors: tuple[str, ...] = ()
    """The call interceptors of this server's calls, in order (the built-ins, the host-wide
    ``interceptors:``, then the entry's own); empty: no ``intercept`` step."""
    max_result_tokens: int = 25_000
    """The result budget (``max_result_tokens``): a larger result is cut to a preview and
    saved whole (the ``result_budget`` interceptor)."""
    display_name: str | None = None
    config_error: str | None = None
    """Set when the config entry could not be resolved; the server is not started."""

    def __repr__(self) -> str:
        # Resolved args, env, URLs and headers can carry secrets: show their shape only.
        where = display_url(self.url) if self.url else f"{self.command} ({len(self.args)} args)"
        return f"HostServer({self.name!r}, {self.transport}, {where}, enabled={self.enabled})"
