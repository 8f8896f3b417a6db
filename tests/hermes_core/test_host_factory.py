"""HostFactory: config.yaml against the registered transports and auth providers, in process.

The end-to-end CLI tests are in test_plugin_contributions.py; these cover what an embedder
calls directly: loading, the host's transports, and a reload of the watched config.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import pytest

from hermes_core.config.models import ConfigError
from hermes_core.host.setup.config_source import ConfigSource
from hermes_core.host.setup.factory import HostFactory, builtin_auth_providers, builtin_transports
from hermes_core.host.transports import open_stdio
from hermes_core.plugins.types import (
    AuthContext,
    AuthProviderSpec,
    ServerSpec,
    TransportSpec,
    TransportStreams,
)

pytestmark = [pytest.mark.process, pytest.mark.slow]

HOSTILE = str(Path(__file__).parents[1] / "servers" / "hostile_server.py")


def factory_with(opened: list[str]) -> HostFactory:
    @asynccontextmanager
    async def recording(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[TransportStreams]:
        opened.append(spec.name)
        async with open_stdio(spec, errlog) as streams:
            yield streams

    def no_auth(context: AuthContext) -> None:
        return None

    transports = {
        **builtin_transports(),
        "recorded": TransportSpec("recorded", "command", "stdio, recorded", connect=recording),
    }
    auth = {**builtin_auth_providers(), "nothing": AuthProviderSpec("nothing", create=no_auth)}
    return HostFactory(ConfigSource(transports, auth))


def write(home: Path, servers: dict[str, Any]) -> Path:
    path = home / "config.yaml"
    temporary = home / "config.yaml.tmp"
    temporary.write_text(json.dumps({"mcp_servers": servers}, indent=2))
    temporary.replace(path)
    return path


def test_the_factory_knows_the_builtins_through_their_hooks() -> None:
    factory = HostFactory()
    assert list(factory.source.transports) == ["stdio", "streamable_http", "sse"]
    assert list(factory.source.auth_providers) == ["headers", "oauth"]
    assert set(factory.source.openers) == {"stdio", "streamable_http", "sse"}


def test_loading_checks_names_against_what_the_factory_has(tmp_path: Path) -> None:
    path = write(tmp_path, {"s": {"command": "x", "transport": "recorded"}})
    assert factory_with([]).load_config(path).config.mcp_servers["s"].transport == "recorded"
    with pytest.raises(ConfigError) as caught:
        HostFactory().load_config(path)
    assert caught.value.line == 5 and caught.value.key == "mcp_servers.s.transport"
    assert caught.value.reason.startswith("unknown transport 'recorded'; registered: stdio,")


def test_a_reload_of_the_watched_config_goes_through_the_factory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    opened: list[str] = []
    factory = factory_with(opened)
    entry = {"command": sys.executable, "args": [HOSTILE], "transport": "recorded"}
    path = write(tmp_path, {"first": entry})

    async def scenario() -> None:
        async with factory.host(factory.servers(factory.load_config(path))) as host:
            assert opened == ["first"]
            watcher = host.watch_config(path, interval=3600)
            write(tmp_path, {"first": entry, "second": entry})
            task = await watcher.check()
            assert task is not None
            assert (await task)["added"] == ["second"]
            assert opened == ["first", "second"]  # the plugin transport, after the reload too
            result = await host.call_tool("mcp_second_echo", {"text": "reloaded"})
            assert result["content"][0]["text"] == "reloaded"

    asyncio.run(scenario())
