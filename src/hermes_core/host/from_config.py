"""Turn ``config.yaml``'s ``mcp_servers`` into the host's :class:`HostServer` list.

Variables (``${VAR}``, ``$HERMES_HOME/.env``, ``${userHome}`` …) are resolved
here, at connect time.  A server whose entry cannot be resolved keeps its
error and is reported as failed; the others connect as usual.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from hermes_core.config.interpolate import load_dotenv, resolve
from hermes_core.config.loader import LoadedConfig, hermes_home
from hermes_core.config.models import ConfigError, ServerConfig
from hermes_core.host.host import HostServer

__all__ = ["host_server", "host_servers"]


def host_server(
    name: str, cfg: ServerConfig, *, display_name: str | None = None, error: str | None = None
) -> HostServer:
    tools = cfg.tools
    return HostServer(
        name=name,
        command=cfg.command,
        args=list(cfg.args),
        env=dict(cfg.env),
        url=cfg.url,
        headers=dict(cfg.headers),
        transport=cfg.transport,
        timeout=cfg.timeout,
        connect_timeout=cfg.connect_timeout,
        enabled=cfg.enabled,
        supports_parallel_tool_calls=cfg.supports_parallel_tool_calls,
        include=tuple(tools.include) if tools.include is not None else None,
        exclude=tuple(tools.exclude or ()),
        resources=tools.resources,
        prompts=tools.prompts,
        idle_timeout_seconds=cfg.idle_timeout_seconds,
        max_lifetime_seconds=cfg.max_lifetime_seconds,
        display_name=display_name,
        config_error=error,
    )


def host_servers(
    loaded: LoadedConfig,
    *,
    env: Mapping[str, str] | None = None,
    display_names: Mapping[str, str] | None = None,
    only: str | None = None,
) -> list[HostServer]:
    """Every configured server (or just *only*), variables resolved."""
    environ = dict(os.environ if env is None else env)
    dotenv = load_dotenv(hermes_home(environ) / ".env")
    names = display_names or {}
    servers = []
    for name, cfg in loaded.config.mcp_servers.items():
        if only is not None and name != only:
            continue
        try:
            resolved = resolve(name, cfg, env=environ, dotenv=dotenv, workspace=os.getcwd())
        except ConfigError as exc:
            servers.append(host_server(name, cfg, display_name=names.get(name), error=str(exc)))
            continue
        servers.append(host_server(name, resolved, display_name=names.get(name)))
    return servers
