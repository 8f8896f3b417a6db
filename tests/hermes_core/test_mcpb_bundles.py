"""``.mcpb`` bundles built by the test: a good one that really starts (a Python server using
the mcp SDK), a wrong hash, zip-slip, a link out, too many files, a header that claims too
much, an unknown server type, and the bundle of a registry entry fetched over HTTP."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
import subprocess
import sys
import types
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_core.catalog.registry.bundle import MAX_FILES, MAX_UNPACKED_BYTES
from hermes_core.cli.mcp_bundle_install import install_bundle
from hermes_core.plugins import hookimpl
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.plugins.types import AppDeclaration
from servers.net import PORT, http_server
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

SERVERS = Path(__file__).resolve().parents[1] / "servers"
Run = Callable[..., subprocess.CompletedProcess[str]]

SERVER = '''\
import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes-bundle")


@server.tool()
def greet(name: str) -> str:
    """Greet someone with the configured prefix."""
    return os.environ.get("NOTES_PREFIX", "") + name


server.run("stdio")
'''


def manifest(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "manifest_version": "0.2",
        "name": "notes-bundle",
        "display_name": "Notes bundle",
        "version": "1.0.0",
        "description": "A bundle built by the test",
        "author": {"name": "Test"},
        "server": {
            "type": "python",
            "entry_point": "server/main.py",
            "mcp_config": {
                "command": "python3",
                "args": ["${__dirname}/server/main.py"],
                "env": {
                    "NOTES_PREFIX": "${user_config.prefix}",
                    "NOTES_KEY": "${user_config.api_key}",
                },
            },
        },
        "user_config": {
            "prefix": {"type": "string", "title": "Greeting prefix", "default": "hello "},
            "api_key": {
                "type": "string",
                "title": "API key",
                "sensitive": True,
                "required": True,
            },
        },
        "compatibility": {"platforms": ["darwin", "linux", "win32"]},
    }
    base.update(changes)
    return base


def build(
    path: Path, data: dict[str, Any] | None = None, extra: dict[str, bytes] | None = None
) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(data or manifest()))
        archive.writestr("server/main.py", SERVER)
        for name, content in (extra or {}).items():
            archive.writestr(name, content)
    return path


@pytest.fixture
def hermes(home: Path) -> Run:
    python_dir = os.path.dirname(sys.executable)  # python3 with the mcp SDK comes first

    def run(*args: str, env: dict[str, str] | None = None) -> Any:
        base = {
            "HERMES_HOME": str(home),
            "HERMES_CATALOG_PATH": "",
            "PATH": f"{python_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        }
        return run_hermes(*args, env={**base, **(env or {})})

    return run


def nothing_written(home: Path) -> None:
    assert not (home / "config.yaml").exists()
    assert not (home / ".env").exists()
    installs = home / "mcp-installs"
    assert not installs.exists() or list(installs.iterdir()) == []


def test_a_good_bundle_installs_and_starts(hermes: Run, home: Path, tmp_path: Path) -> None:
    bundle = build(tmp_path / "notes.mcpb")
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()
    done = hermes("mcp", "install", str(bundle), "--yes", env={"NOTES_BUNDLE_API_KEY": "k-123"})
    assert done.returncode == 0, done.stdout + done.stderr
    folder = home / "mcp-installs" / "notes-bundle"
    out = done.stdout
    assert f"Install bundle 'Notes bundle' 1.0.0 from {bundle}" in out
    assert "UNVETTED" in out and f"  sha256:    {digest}" in out
    assert f"  runs:      python3 {folder}/server/main.py (python server)" in out
    assert "  asks for:  NOTES_BUNDLE_API_KEY (secret, required;" in out
    assert "  asks for:  NOTES_BUNDLE_PREFIX (value, optional, default hello;" in out
    assert "k-123" not in out + done.stderr
    assert (folder / "server" / "main.py").read_text() == SERVER
    from ruamel.yaml import YAML

    entry = YAML(typ="safe").load((home / "config.yaml").read_text())["mcp_servers"]["notes-bundle"]
    assert entry == {
        "command": "python3",
        "args": [f"{folder}/server/main.py"],
        "env": {"NOTES_PREFIX": "${NOTES_BUNDLE_PREFIX}", "NOTES_KEY": "${NOTES_BUNDLE_API_KEY}"},
        "tools": {"exclude": []},  # every tool installed: a choice a reinstall keeps
    }
    env_file = home / ".env"
    assert env_file.read_text() == 'NOTES_BUNDLE_PREFIX="hello "\nNOTES_BUNDLE_API_KEY=k-123\n'
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    called = hermes("mcp", "call", "--json", "mcp_notes_bundle_greet", "--args", '{"name": "Ada"}')
    assert called.returncode == 0, called.stdout + called.stderr
    assert "hello Ada" in called.stdout
    # A newer file at the same place: update shows it and applies it.
    build(bundle, manifest(version="1.1.0"))
    listed = hermes("mcp", "update")
    assert listed.stdout.splitlines()[0] == "notes-bundle: 1.0.0 → 1.1.0"
    applied = hermes("mcp", "update", "notes-bundle", "--yes")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert hermes("mcp", "update").stdout.strip() == "notes-bundle: 1.1.0 is the latest"


def test_a_wrong_hash_is_refused_before_anything_is_unpacked(
    hermes: Run, home: Path, tmp_path: Path
) -> None:
    bundle = build(tmp_path / "notes.mcpb")
    done = hermes("mcp", "install", str(bundle), "--yes", "--sha256", "0" * 64)
    assert done.returncode == 1
    assert "SHA-256 mismatch (expected " + "0" * 64 in done.stderr
    assert "refused, nothing was unpacked or written" in done.stderr
    nothing_written(home)


def _central_size(path: Path, member: str, size: int) -> None:
    """Make the central directory claim *member* inflates to *size* bytes."""
    data = bytearray(path.read_bytes())
    at = 0
    while True:
        at = data.index(b"PK\x01\x02", at)
        name_len = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + name_len].decode() == member:
            struct.pack_into("<I", data, at + 24, size)
            break
        at += 4
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("zip-slip", "unsafe path '../evil.txt' in the bundle (refused)"),
        ("absolute", "unsafe path '/tmp/evil.txt' in the bundle (refused)"),
        ("link", "'server/out' is a symbolic link (bundles may not hold links)"),
        ("too-many", f"more than {MAX_FILES} files"),
        ("too-big", f"unpacks to more than {MAX_UNPACKED_BYTES} bytes"),
        ("type", "server type 'uv' is not one this Hermes runs (node, python, binary)"),
        ("entry-point", "its entry_point 'server/missing.py' is not in the bundle"),
        ("platform", "is unavailable: unsupported_os. The bundle runs on plan9"),
        ("not-zip", "not a zip file (a .mcpb bundle is one)"),
        ("duplicate", "cannot unpack it (File exists)"),
    ],
)
def test_unsafe_or_unusable_bundles_are_refused(
    hermes: Run, home: Path, tmp_path: Path, case: str, message: str
) -> None:
    bundle = tmp_path / "bad.mcpb"
    if case == "zip-slip":
        build(bundle, extra={"../evil.txt": b"x"})
    elif case == "absolute":
        build(bundle)
        with zipfile.ZipFile(bundle, "a") as archive:
            info = zipfile.ZipInfo("/tmp/evil.txt")
            archive.writestr(info, b"x")
    elif case == "link":
        build(bundle)
        with zipfile.ZipFile(bundle, "a") as archive:
            info = zipfile.ZipInfo("server/out")
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    elif case == "too-many":
        build(bundle, extra={f"junk/{i}": b"" for i in range(MAX_FILES)})
    elif case == "too-big":
        build(bundle, extra={"blob.bin": b"\0" * 1024})
        _central_size(bundle, "blob.bin", MAX_UNPACKED_BYTES + 1)
    elif case == "type":
        build(bundle, manifest(server={"type": "uv", "mcp_config": {"command": "uv"}}))
    elif case == "entry-point":
        data = manifest()
        data["server"] = {**data["server"], "entry_point": "server/missing.py"}
        build(bundle, data)
    elif case == "platform":
        build(bundle, manifest(compatibility={"platforms": ["plan9"]}))
    elif case == "duplicate":
        build(bundle)
        with warnings.catch_warnings(), zipfile.ZipFile(bundle, "a") as archive:
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate it writes
            archive.writestr("server/main.py", "print('the second one')\n")
    else:
        bundle.write_bytes(b"not a zip at all")
    done = hermes("mcp", "install", str(bundle), "--yes", env={"NOTES_BUNDLE_API_KEY": "k"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert message in done.stderr
    nothing_written(home)
    assert not (tmp_path / "evil.txt").exists()


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    data, files = tmp_path / "registry.json", tmp_path / "files"
    files.mkdir()
    data.write_text("[]")
    argv = [sys.executable, str(SERVERS / "registry_server.py"), PORT, str(data), str(files)]
    with http_server(argv, path="") as url:
        yield url, data, files


@pytest.mark.network
def test_the_bundle_of_a_registry_entry_is_checked_then_installed(
    hermes: Run, home: Path, registry: tuple[str, Path, Path]
) -> None:
    url, data, files = registry
    bundle = build(files / "notes.mcpb")
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()

    def entry(sha: str) -> dict[str, Any]:
        return {
            "name": "io.github.acme/notes",
            "description": "Notes as a bundle",
            "version": "1.0.0",
            "packages": [
                {
                    "registryType": "mcpb",
                    "identifier": f"{url}/files/notes.mcpb",
                    "version": "1.0.0",
                    "fileSha256": sha,
                    "transport": {"type": "stdio"},
                }
            ],
        }

    data.write_text(json.dumps([entry("f" * 64)]))
    args = ("mcp", "install", "io.github.acme/notes", "--registry", url, "--yes")
    env = {"NOTES_API_KEY": "k"}
    bad = hermes(*args, env=env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "SHA-256 mismatch" in bad.stderr
    nothing_written(home)
    assert list((home / "cache" / "downloads").iterdir()) == []  # the download is gone too
    data.write_text(json.dumps([entry(digest)]))
    good = hermes(*args, env=env)
    assert good.returncode == 0, good.stdout + good.stderr
    assert f"From registry 127.0.0.1 ({url}): io.github.acme/notes" in good.stdout
    assert (home / "mcp-installs" / "notes" / "server" / "main.py").exists()


def test_a_plugin_app_declaration_refuses_a_bundle_here(
    hermes_pm: HermesPluginManager,
    hermes_fake_host: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plugin = types.SimpleNamespace(
        declare_app=hookimpl(
            lambda: [AppDeclaration("notes-bundle", requires={"gpu": "nvidia"}, display_name="N")]
        )
    )
    hermes_pm.register_plugin(plugin, "notes-vendor")
    hermes_pm.apply()
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "home"))
    hermes_fake_host("linux").set_gpu("amd")
    bundle = build(tmp_path / "notes.mcpb")
    assert install_bundle(hermes_pm, str(bundle), sha256=None, assume_yes=True) == 1
    assert capsys.readouterr().err == (
        "error: 'notes-bundle' is unavailable: unsupported_gpu, needs an NVIDIA GPU.\n"
    )
    nothing_written(tmp_path / "home")
