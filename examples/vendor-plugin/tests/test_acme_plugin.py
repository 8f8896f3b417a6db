"""Acme's own tests: the declaration on every OS, the plugin contract, the real MCP server."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import acme_studio.hermes_plugin
import anyio
import pytest

from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.testing import check_plugin
from hermes_platform import declaration
from hermes_platform.resolver.availability import availability
from hermes_platform.testing import FakeHost

MakeHost = Callable[..., FakeHost]
SKILL = Path(acme_studio.hermes_plugin.__file__).parent / "skills" / "acme-render" / "SKILL.md"


@pytest.fixture
def acme(hermes_pm: HermesPluginManager) -> declaration.Declaration:
    hermes_pm.register_plugin(acme_studio.hermes_plugin, "acme-studio")
    hermes_pm.apply()
    decl = declaration.lookup("acme-studio")
    assert decl is not None
    return decl


def test_the_plugin_contract() -> None:
    (declared,) = check_plugin(acme_studio.hermes_plugin)["declare_app"]
    assert declared.server == "acme-studio"
    assert declared.display_name == "Acme Studio"
    (entry,) = check_plugin(acme_studio.hermes_plugin)["catalog_entry"]
    assert entry.name == declared.server  # the catalog entry installs the declared server


def test_windows_newest_versioned_folder(
    acme: declaration.Declaration, hermes_fake_host: MakeHost
) -> None:
    host = hermes_fake_host("win32", env={"ProgramFiles": "C:\\Program Files"})
    host.add_exe("C:/Program Files/Acme/Acme Studio 2.2/acme-studio.exe", (2, 2, 0, 0))
    assert availability(acme).state == "version_too_old"
    host.add_exe("C:/Program Files/Acme/Acme Studio 2.10/acme-studio.exe", (2, 10, 0, 0))
    result = availability(acme)
    assert (result.state, result.version) == ("available", "2.10.0.0")


def test_macos_bundle(acme: declaration.Declaration, hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin", home="/Users/me")
    assert availability(acme).state == "missing_app"
    host.add_bundle("/Applications/Acme Studio.app", "2.3.1")
    assert availability(acme).state == "available"


def test_linux_presence_only(acme: declaration.Declaration, hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux", home="/home/me")
    assert availability(acme).state == "missing_app"
    host.add_file("/home/me/.local/share/flatpak/exports/bin/com.acme.Studio")
    assert availability(acme).state == "available"


def test_the_skill_requires_the_app() -> None:
    text = SKILL.read_text()
    assert text.startswith("---\n")
    assert "requires_apps: [acme-studio]" in text.split("---")[1]


@pytest.mark.process
def test_the_real_mcp_server_lists_its_tools() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = shutil.which("acme-studio-mcp")
    params = (
        StdioServerParameters(command=command)
        if command
        else StdioServerParameters(command=sys.executable, args=["-m", "acme_studio.server"])
    )

    async def session() -> tuple[list[str], str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = await client.list_tools()
            result = await client.call_tool("render", {"scene": "lobby"})
            text = result.content[0].text  # type: ignore[union-attr]
            return sorted(t.name for t in tools.tools), text

    names, text = anyio.run(session)
    assert names == ["render", "studio_version"]
    assert "rendered 'lobby' at 1920x1080" in text
