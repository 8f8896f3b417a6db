"""App declarations that travel with installs: a registry ``server.json`` and a ``.mcpb``
``manifest.json`` carrying ``_meta["dev.hermes/declaration"]``, installed with the real
``hermes`` CLI, then gated as a plugin's declaration gates a server (the app is an executable
the test puts on PATH, or not); a malformed or unknown declaration is refused in the
declaration parser's words, nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_core.plugins import hookimpl
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.plugins.types import AppDeclaration
from hermes_platform import declaration
from servers.net import PORT, http_server
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

SERVERS = Path(__file__).resolve().parents[1] / "servers"
Run = Callable[..., subprocess.CompletedProcess[str]]
PYTHON_DIR = os.path.dirname(sys.executable)

SERVER = """\
from mcp.server.mcpserver import MCPServer

server = MCPServer("studio-bundle")


@server.tool()
def render(scene: str) -> str:
    \"\"\"Render a scene in the studio.\"\"\"
    return "rendered " + scene


server.run("stdio")
"""

DECLARATION = {
    "display_name": "Acme Studio",
    "app": {
        "linux": {
            "presence": "executable",
            "location": [{"kind": "command", "name": "acme-studio-test"}],
        },
        "darwin": {
            "presence": "executable",
            "location": [{"kind": "command", "name": "acme-studio-test"}],
        },
    },
    "requires": {"app": True},
}


SCREEN_LINE = "  app:       Acme Studio (declared: its tools are offered only where it can run)"


def manifest(meta: dict[str, Any] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "manifest_version": "0.2",
        "name": "studio",
        "version": "1.0.0",
        "description": "A bundle that fronts a desktop app",
        "author": {"name": "Test"},
        "server": {
            "type": "python",
            "entry_point": "server/main.py",
            "mcp_config": {"command": "python3", "args": ["${__dirname}/server/main.py"]},
        },
    }
    if meta is not None:
        data["_meta"] = meta
    return data


def build(path: Path, meta: dict[str, Any] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest(meta)))
        archive.writestr("server/main.py", SERVER)
    return path


@pytest.fixture
def app_bin(tmp_path: Path) -> Path:
    folder = tmp_path / "app-bin"
    folder.mkdir()
    tool = folder / "acme-studio-test"
    tool.write_text("#!/bin/sh\necho 'Acme Studio 1.0'\n")
    tool.chmod(0o755)
    return folder


@pytest.fixture
def hermes(home: Path, app_bin: Path) -> Run:
    def run(*args: str, app: bool = True, env: dict[str, str] | None = None) -> Any:
        path = f"{PYTHON_DIR}:/usr/bin:/bin"
        base = {
            "HERMES_HOME": str(home),
            "HERMES_CATALOG_PATH": "",
            "PATH": f"{app_bin}:{path}" if app else path,
        }
        return run_hermes(*args, env={**base, **(env or {})})

    return run


def status_of(hermes: Run, name: str, *, app: bool) -> dict[str, Any]:
    done = hermes("mcp", "status", "--json", app=app)
    rows = {row["server"]: row for row in json.loads(done.stdout)}
    found: dict[str, Any] = rows[name]
    return found


def assert_gated(hermes: Run, home: Path, name: str) -> None:
    """Installed with its declaration kept: offered while the app is here, not offered (the
    declaration's sentence as the reason) when it is gone; removing the server forgets it."""
    record = json.loads((home / "installs" / f"{name}.json").read_text())
    assert record["declaration"] == DECLARATION
    here = status_of(hermes, name, app=True)
    assert here["offered"] is True and here["tools"] >= 1, here
    assert here["availability"] == "available"
    gone = status_of(hermes, name, app=False)
    assert gone["offered"] is False, gone
    assert gone["availability"] == "missing_app"
    assert gone["gate"] == "Acme Studio is not installed. Install Acme Studio, then try again."
    tools = hermes("mcp", "tools", "--json", app=False)
    assert "render" not in tools.stdout
    removed = hermes("mcp", "remove", name)
    assert removed.returncode == 0, removed.stderr
    assert not (home / "installs" / f"{name}.json").exists()


def test_a_bundle_with_a_declaration_installs_gated(
    hermes: Run, home: Path, tmp_path: Path
) -> None:
    bundle = build(tmp_path / "studio.mcpb", {"dev.hermes/declaration": DECLARATION})
    refused = hermes("mcp", "install", str(bundle), "--yes", app=False)
    assert refused.returncode == 1
    assert "'studio' is unavailable: missing_app. Acme Studio is not installed." in refused.stderr
    assert not (home / "config.yaml").exists()
    done = hermes("mcp", "install", str(bundle), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert SCREEN_LINE in done.stdout
    assert_gated(hermes, home, "studio")


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    data, files = tmp_path / "registry.json", tmp_path / "files"
    files.mkdir()
    data.write_text("[]")
    argv = [sys.executable, str(SERVERS / "registry_server.py"), PORT, str(data), str(files)]
    with http_server(argv, path="") as url:
        yield url, data, files


@pytest.mark.network
def test_a_registry_server_json_with_a_declaration_installs_gated(
    hermes: Run, home: Path, registry: tuple[str, Path, Path]
) -> None:
    import hashlib

    url, data, files = registry
    bundle = build(files / "studio.mcpb")  # the declaration is the server.json's
    entry = {
        "name": "io.github.acme/studio",
        "description": "Acme Studio's server",
        "version": "1.0.0",
        "_meta": {
            "io.modelcontextprotocol.registry/publisher-provided": {
                "dev.hermes/declaration": DECLARATION
            }
        },
        "packages": [
            {
                "registryType": "mcpb",
                "identifier": f"{url}/files/studio.mcpb",
                "version": "1.0.0",
                "fileSha256": hashlib.sha256(bundle.read_bytes()).hexdigest(),
                "transport": {"type": "stdio"},
            }
        ],
    }
    broken = {
        **entry,
        "name": "io.github.acme/broken",
        "_meta": {"dev.hermes/declaration": {**DECLARATION, "require": {"app": True}}},
    }
    data.write_text(json.dumps([entry, broken]))
    args = ("--registry", url, "--yes")
    bad = hermes("mcp", "install", "io.github.acme/broken", *args)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert bad.stderr == (
        "error: io.github.acme/broken (server.json _meta): _meta['dev.hermes/declaration'] has "
        "unknown keys ['require']; did you mean 'requires'? (valid keys: ['app', "
        "'display_name', 'requires']); refused, nothing was installed\n"
    )
    assert not (home / "config.yaml").exists()
    done = hermes("mcp", "install", "io.github.acme/studio", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert SCREEN_LINE in done.stdout
    # Kept in the install record, as a bundle's is: from there on the gate is the same code
    # (test_a_bundle_with_a_declaration_installs_gated follows it through status, tools and
    # remove), so one status without the app proves the registry's declaration is the one used.
    record = json.loads((home / "installs" / "studio.json").read_text())
    assert record["declaration"] == DECLARATION
    gone = status_of(hermes, "studio", app=False)
    assert gone["offered"] is False and gone["availability"] == "missing_app", gone


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        (
            {"dev.hermes/declaraton": DECLARATION},
            "_meta has unknown keys ['dev.hermes/declaraton']; did you mean "
            "'dev.hermes/declaration'? (valid keys: ['dev.hermes/declaration'])",
        ),
        (
            {"dev.hermes/declaration": "acme"},
            "_meta['dev.hermes/declaration'] must be an object with "
            "('app', 'requires', 'display_name')",
        ),
        (
            {"dev.hermes/declaration": {"app": {"linux": {"presence": "sometimes"}}}},
            "app.linux.presence must be one of",
        ),
        (
            {"dev.hermes/declaration": {"requires": {"gpu": "nvidia", "min_version": "2"}}},
            "requires.min_version needs requires.app: true",
        ),
    ],
    ids=["unknown-key", "not-an-object", "bad-presence", "min-version-without-app"],
)
def test_a_malformed_bundle_declaration_is_refused_in_the_parsers_words(
    hermes: Run, home: Path, tmp_path: Path, meta: dict[str, Any], message: str
) -> None:
    from hermes_platform.declaration import DeclarationError, parse_declaration

    bundle = build(tmp_path / "studio.mcpb", meta)
    done = hermes("mcp", "install", str(bundle), "--yes")
    assert done.returncode == 1, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"error: {bundle} (manifest.json _meta): "), line
    assert message in line and line.endswith("; refused, nothing was installed")
    raw = meta.get("dev.hermes/declaration")
    if isinstance(raw, dict):  # the parser's own sentence, word for word
        with pytest.raises(DeclarationError) as parsed:
            parse_declaration(
                "studio",
                raw_app=raw.get("app"),
                raw_requires=raw.get("requires"),
                where=f"{bundle} (manifest.json _meta)",
            )
        assert line == f"error: {parsed.value}; refused, nothing was installed"
    assert not (home / "config.yaml").exists()
    assert not (home / "mcp-installs").exists()


def test_a_plugins_own_declaration_wins_over_one_kept_from_an_install(
    hermes_pm: HermesPluginManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "installs").mkdir(parents=True)
    monkeypatch.setenv("HERMES_HOME", str(home))
    record = {"format": 1, "name": "studio", "kind": "bundle", "version": "1.0.0",
              "package": "mcpb", "server": "bundle:studio", "registry": "", "source": "",
              "sha256": "", "declaration": DECLARATION}  # fmt: skip
    (home / "installs" / "studio.json").write_text(json.dumps(record))
    (home / "installs" / "other.json").write_text(json.dumps({**record, "name": "other"}))
    (home / "installs" / "stray.json").write_text(json.dumps({**record, "name": "studio"}))
    vendor = types.SimpleNamespace(
        declare_app=hookimpl(lambda: [AppDeclaration("studio", requires={"gpu": "nvidia"})])
    )
    hermes_pm.register_plugin(vendor, "acme-vendor")
    hermes_pm.apply()  # strict: a second provider of one name would raise
    declared = {r.item.server: r.plugin for r in hermes_pm.app_declarations()}
    assert declared == {"studio": "acme-vendor", "other": "hermes_core.builtin.installed_apps"}
    studio = declaration.lookup("studio")
    assert studio is not None and studio.required_gpu == "nvidia"
