"""Probe a server entry: connect, list every tool (no filter), disconnect."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from dataclasses import dataclass

from hermes_core.config.interpolate import load_dotenv, resolve
from hermes_core.config.loader import validate_server
from hermes_core.config.models import ConfigError
from hermes_core.home import hermes_home
from hermes_core.host.setup.factory import HostFactory
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["ProbedTool", "probe_tools"]

PROBE_TIMEOUT = 30.0
_FAMILY = {
    "list_resources": "resources",
    "list_resource_templates": "resources",
    "read_resource": "resources",
    "list_prompts": "prompts",
    "get_prompt": "prompts",
}


@dataclass(frozen=True)
class ProbedTool:
    name: str
    description: str
    family: str | None = None
    """``resources``/``prompts`` for the generated utility tools (``tools.<family>``)."""


def probe_tools(
    name: str, entry: dict[str, object], manager: HermesPluginManager
) -> tuple[list[ProbedTool], str | None]:
    """The server's tools (unfiltered), or ``([], why)`` when it cannot be reached."""
    factory = HostFactory.from_manager(manager)
    unfiltered = {k: v for k, v in entry.items() if k not in ("tools", "enabled")}
    cfg, problems, _warnings = validate_server(
        name, unfiltered, path="(catalog entry)", kinds=factory.kinds
    )
    if problems or cfg is None:
        return [], problems[0].reason if problems else "invalid entry"
    try:
        dotenv = load_dotenv(hermes_home() / ".env")
        resolved = resolve(name, cfg, env=os.environ, dotenv=dotenv, workspace=os.getcwd())
    except ConfigError as exc:
        return [], str(exc)
    server = factory.server(name, resolved)
    if "connect_timeout" not in entry:
        server = dataclasses.replace(server, connect_timeout=PROBE_TIMEOUT)

    async def run() -> tuple[list[ProbedTool], str | None]:
        async with factory.host([server]) as host:
            (row,) = host.status()
            if row.last_error:
                return [], row.last_error
            tools = [
                ProbedTool(
                    e.tool, e.description, _FAMILY.get(e.tool, "resources") if e.utility else None
                )
                for e in host.tools(include_gated=True)
            ]
            return tools, None

    return asyncio.run(run())
