"""A ``server.json`` becomes an entry: the mapping of each package type and input kind, read
from the parsed document (the CLI tests run the same code against a registry)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_core.catalog.registry.entry import (
    PlanError,
    choose,
    config_name,
    entry_for,
    questions,
)
from hermes_core.catalog.registry.server_json import ServerJsonError, parse_server_json


def doc(*packages: dict[str, Any], **fields: Any) -> Any:
    raw = {"name": "io.github.acme/db-tool", "version": "3.1.0", "packages": list(packages)}
    return parse_server_json({**raw, **fields}, "test")


OCI = {
    "registryType": "oci",
    "identifier": "docker.io/acme/db",
    "version": "3.1.0",
    "transport": {"type": "stdio"},
    "runtimeArguments": [
        {
            "type": "named",
            "name": "--mount",
            "value": "type=bind,src={source_path},dst={target_path}",
            "variables": {
                "source_path": {"description": "Host folder", "isRequired": True},
                "target_path": {"value": "/project"},
            },
        }
    ],
    "packageArguments": [
        {"type": "positional", "valueHint": "database_name", "isRequired": True},
        {"type": "named", "name": "--port", "description": "Port"},
        {"type": "positional", "value": "literal ${HOME}"},
    ],
    "environmentVariables": [
        {"name": "DB_PASSWORD", "isRequired": True, "isSecret": True},
        {"name": "SSL_MODE", "default": "prefer", "choices": ["disable", "prefer", "require"]},
    ],
}


def test_oci_with_variables_optional_inputs_and_literals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    choice = choose(doc(OCI))
    assert choice.kind == "oci"  # the only package, its runner missing: still chosen
    asked = questions(choice, "db-tool")
    assert [(q.variable, q.secret, q.required, q.default) for q in asked] == [
        ("DB_TOOL_SOURCE_PATH", False, True, None),
        ("DB_TOOL_DATABASE_NAME", False, True, None),
        ("DB_TOOL_PORT", False, False, None),
        ("DB_PASSWORD", True, True, None),
        ("SSL_MODE", False, False, "prefer"),
    ]
    assert asked[-1].choices == ("disable", "prefer", "require")
    answered = {"DB_TOOL_SOURCE_PATH", "DB_TOOL_DATABASE_NAME", "DB_PASSWORD", "SSL_MODE"}
    entry, runner = entry_for(choice, "db-tool", answered)
    assert entry == {
        "command": "docker",
        "args": [
            "run", "--rm", "-i",
            "--mount", "type=bind,src=${DB_TOOL_SOURCE_PATH},dst=/project",
            "-e", "DB_PASSWORD", "-e", "SSL_MODE",
            "docker.io/acme/db:3.1.0",
            "${DB_TOOL_DATABASE_NAME}",
            "literal $${HOME}",
        ],
        "env": {"DB_PASSWORD": "${DB_PASSWORD}", "SSL_MODE": "${SSL_MODE}"},
    }  # fmt: skip
    assert runner is not None and runner.state == "needs docker"


def test_pypi_prefers_uvx_and_falls_back_to_pipx(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pipx = tmp_path / "pipx"
    pipx.write_text("#!/bin/sh\n")
    pipx.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    package = {"registryType": "pypi", "identifier": "weather-mcp", "version": "0.5.0"}
    entry, runner = entry_for(choose(doc(package)), "weather", set())
    assert entry == {"command": "pipx", "args": ["run", "weather-mcp==0.5.0"]} and runner is None
    hinted = {**package, "runtimeHint": "uvx"}
    entry, runner = entry_for(choose(doc(hinted, {**package, "registryType": "npm"})), "w", set())
    assert entry["command"] == "uvx" and runner is not None and runner.state == "needs uv"


def test_the_choice_and_its_refusals() -> None:
    npm = {"registryType": "npm", "identifier": "@acme/x", "version": "1.0.0"}
    remote = {"remotes": [{"type": "sse", "url": "https://x.example/sse"}]}
    both = doc(npm, **remote)
    assert choose(both, "remote").kind == "remote"
    assert entry_for(choose(both, "remote"), "x", set())[0] == {
        "url": "https://x.example/sse",
        "transport": "sse",
    }
    with pytest.raises(PlanError, match=r"has no pypi package \(it offers npm, remote\)"):
        choose(both, "pypi")
    with pytest.raises(PlanError, match="package type nuget is not one this Hermes installs"):
        choose(doc({"registryType": "nuget", "identifier": "Acme.Mcp"}))
    http = {**npm, "transport": {"type": "streamable-http", "url": "http://localhost:{port}/mcp"}}
    with pytest.raises(PlanError, match="Hermes installs stdio packages"):
        choose(doc(http), "npm")
    assert config_name("io.github.acme/weather mcp!") == "weather-mcp"


def test_server_json_problems_name_the_key_and_unknown_fields_are_listed() -> None:
    with pytest.raises(ServerJsonError, match=r"test: packages\[0\]\.identifier: is required"):
        doc({"registryType": "npm"})
    with pytest.raises(ServerJsonError, match="packages: has more than 64 items"):
        doc(*[{"registryType": "npm", "identifier": "x"}] * 65)
    with pytest.raises(ServerJsonError, match="isSecret: must be true or false"):
        doc({"registryType": "npm", "identifier": "x",
             "environmentVariables": [{"name": "A", "isSecret": "yes"}]})  # fmt: skip
    found = doc({"registryType": "npm", "identifier": "x", "provenance": {}}, icons2=[])
    assert found.unknown == ("icons2", "packages[0].provenance")
