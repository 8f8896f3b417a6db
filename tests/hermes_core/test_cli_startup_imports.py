"""What ``hermes --help`` and ``hermes mcp list`` import (modules, never timings).

Each command runs as a real subprocess under ``python -X importtime``, which names every module
the process imports; the test pins the heavy stacks each command must leave alone.  ``--help``
builds the parser only; ``mcp list`` reads and validates ``config.yaml`` (pydantic, and the
plugins whose transports add config keys) but connects nothing; once the plugins' config names
are recorded (``hermes_core.plugins.config_keys``) it loads no plugin at all.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from support.imports import imported_modules, offending

pytestmark = [pytest.mark.process, pytest.mark.cli]

# Never needed to print the help.
HELP_MUST_NOT_IMPORT = {
    "mcp",
    "pydantic",
    "pluggy",
    "ruamel",
    "asyncio",
    "httpx",
    "anyio",
    "hermes_platform",
    "hermes_core.config",
    "hermes_core.host",
    "hermes_core.plugins.manager",
    "hermes_core.plugins.types",
    "hermes_core.plugins.declarations",
    "hermes_core.plugin_yaml",
    "hermes_core.importing.sources",
    "hermes_core.catalog",
    "rich",  # a terminal's spinner and colour only
    "questionary",
    "prompt_toolkit",
}

# Reading config.yaml needs ruamel, the pydantic models and the plugins (their transports add
# config keys), but nothing that connects: no SDK, no event loop, no host, no file editing.
LIST_MUST_NOT_IMPORT = {
    "mcp",
    "mcp_types",
    "asyncio",
    "httpx",
    "httpx2",
    "anyio",
    "hermes_core.host.host",
    "hermes_core.host.connection",
    "hermes_core.config.store",
    "hermes_core.importing.sources",
    "hermes_core.catalog",
    "rich",
    "questionary",
    "prompt_toolkit",
}

CONFIG = """\
mcp_servers:
  files:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
  remote:
    url: https://mcp.example.com/mcp
    enabled: false
"""


def test_help_imports_only_the_parser(tmp_path: Path) -> None:
    modules, result = imported_modules("--help", home=tmp_path)
    assert result.returncode == 0
    assert "usage: hermes" in result.stdout
    assert offending(modules, HELP_MUST_NOT_IMPORT) == []


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_mcp_list_reads_the_config_without_the_sdk_or_the_host(
    tmp_path: Path, extra: list[str]
) -> None:
    (tmp_path / "config.yaml").write_text(CONFIG, encoding="utf-8")
    modules, result = imported_modules("mcp", "list", *extra, home=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "files" in result.stdout and "remote" in result.stdout
    assert "hermes_core.config.models" in modules  # it does validate the file
    assert offending(modules, LIST_MUST_NOT_IMPORT) == []


def test_mcp_list_still_names_the_file_and_line_of_a_misspelt_key(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n  files:\n    command: npx\n    enabeld: false\n", encoding="utf-8"
    )
    modules, result = imported_modules("mcp", "list", home=tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    assert f"{tmp_path / 'config.yaml'}:4: mcp_servers.files.enabeld" in result.stderr
    assert "enabeld" in result.stderr
    assert offending(modules, LIST_MUST_NOT_IMPORT) == []


def test_a_second_mcp_list_loads_no_plugin_stack(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(CONFIG, encoding="utf-8")
    first, _ = imported_modules("mcp", "list", home=tmp_path)  # records the plugins' names
    assert "pluggy" in first
    modules, result = imported_modules("mcp", "list", home=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "files" in result.stdout and "remote" in result.stdout
    plugin_stack = {"pluggy", "hermes_platform", "hermes_core.plugins.manager"}
    assert offending(modules, plugin_stack | LIST_MUST_NOT_IMPORT) == []


# The app readers behind hermes_platform's version sources: an embedding host reads no version
# unless a declaration asks, so importing MCPHost leaves them alone.
HOST_MUST_NOT_IMPORT = {
    "plistlib",
    "xml",
    "hermes_platform.resolver.pe_version",
    "hermes_platform.resolver.file_versions",
}


def test_importing_the_host_leaves_the_app_readers_alone() -> None:
    code = (
        "import sys\n"
        "from hermes_core.host.host import MCPHost\n"
        "from hermes_core.plugins.types import VersionSource\n"
        "print(sorted(sys.modules))\n"
        "from hermes_platform.resolver.versions import VERSION_KINDS\n"
        "assert VERSION_KINDS.get('plist').__class__ is VersionSource\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    modules = set(ast.literal_eval(result.stdout))
    assert "hermes_core.host.host" in modules
    assert offending(modules, HOST_MUST_NOT_IMPORT) == []


# `plugins list` loads every plugin and runs their hooks on fake hosts, but reads no config.yaml:
# no configuration models (pydantic), no SDK, no event loop, no host.
PLUGINS_LIST_MUST_NOT_IMPORT = {
    "mcp",
    "mcp_types",
    "pydantic",
    "pydantic_core",
    "asyncio",
    "httpx",
    "httpx2",
    "anyio",
    "hermes_core.config.loader",
    "hermes_core.config.models",
    "hermes_core.host.host",
    "hermes_core.host.connection",
}


def test_plugins_list_loads_the_plugins_but_no_config_models(tmp_path: Path) -> None:
    modules, result = imported_modules("plugins", "list", home=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "acme-studio  (acme-studio-hermes" in result.stdout  # the vendor plugin, loaded
    assert {"pluggy", "hermes_core.plugins.exercise"} <= modules  # loaded and checked
    assert offending(modules, PLUGINS_LIST_MUST_NOT_IMPORT) == []


# `mcp down` talks to the warm host's socket: no SDK, no host, no proxy.
DOWN_MUST_NOT_IMPORT = {
    "mcp",
    "mcp_types",
    "httpx2",
    "hermes_core.host.host",
    "hermes_core.host.connection",
    "hermes_core.serve.proxy",
}


def test_mcp_down_loads_the_socket_client_only(tmp_path: Path) -> None:
    modules, result = imported_modules("mcp", "down", home=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "no warm host is running" in result.stdout
    assert "hermes_core.serve.warm.client" in modules
    assert offending(modules, DOWN_MUST_NOT_IMPORT) == []
