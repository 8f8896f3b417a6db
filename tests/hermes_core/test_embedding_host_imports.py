"""What an embedding host imports (modules, never sizes).

A program that builds :class:`~hermes_core.host.host.MCPHost` from ``HostServer`` objects and
connects a plain stdio server needs the SDK and the host's own modules, and nothing of the rarer
paths: no plugin manager (the built-in transports come without one), no config.yaml machinery,
no OAuth, elicitation or sampling machinery while no server uses them, and none of
hermes_platform's declaration parser or resolvers while no declaration gates a server.  Each
of these costs resident memory in every embedding process (docs/performance-history.md,
"Memory"), so this test pins the set: a module on the list that comes back is a regression to
look at.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hermes_core.host.host import MCPHost
from hermes_core.host.setup.factory import builtin_transports
from servers.reference import EVERYTHING, node
from support.imports import offending

pytestmark = [pytest.mark.process]

EMBEDDING_HOST_MUST_NOT_IMPORT = {
    # The plugin manager and the built-in plugins (the transports come from host.transports).
    "pluggy",
    "hermes_core.plugins.manager",
    "hermes_core.plugins.hookspecs",
    "hermes_core.builtin",
    "hermes_core.host.setup.factory",
    # config.yaml: reading, validating, editing.
    "ruamel",
    "hermes_core.config.loader",
    "hermes_core.config.models",
    "hermes_core.yaml_input",
    "hermes_core.json_records",
    # auth: oauth (the elicitation block's model shares only config.checks with it).
    "hermes_core.config.oauth",
    "hermes_core.auth",
    # Sampling while no backend is registered.
    "hermes_core.sampling.catalog",
    "hermes_core.sampling.handler",
    "hermes_core.sampling.limiter",
    # App declarations while no server is declared: only the registry (hermes_platform.declared).
    "hermes_platform.declaration",
    "hermes_platform.resolver",
    "hermes_platform.sentences",
    "hermes_platform.host",
    "difflib",
}

SCRIPT = """
import asyncio, json, sys
from hermes_core.host.host import HostServer, MCPHost

async def main():
    server = HostServer("everything", command=sys.argv[1], args=[sys.argv[2], "stdio"])
    async with MCPHost([server]) as host:
        result = await host.call_tool("mcp_everything_echo", {"message": "hi"})
        assert result["content"][0]["text"] == "Echo: hi", result
        assert host.status()[0].connection == "connected"

asyncio.run(main())
print(json.dumps(sorted(sys.modules)))
"""


def embedding_host_modules() -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, node(), str(EVERYTHING)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    modules: set[str] = set(json.loads(result.stdout.splitlines()[-1]))
    return modules


def test_an_embedding_host_with_a_stdio_server_imports_none_of_the_rarer_paths() -> None:
    modules = embedding_host_modules()
    # It did connect and call through the SDK and our own stdio reader.
    assert {"mcp.client.session", "hermes_core.host.transports.stdio"} <= modules
    assert offending(modules, EMBEDDING_HOST_MUST_NOT_IMPORT) == []


def test_a_host_without_transports_gets_the_builtin_plugins_ones() -> None:
    # The defaults are the very registrations the built-in plugin's hook returns.
    host = MCPHost([])
    hooked = {name: spec.connect for name, spec in builtin_transports().items()}
    assert host._openers == hooked
