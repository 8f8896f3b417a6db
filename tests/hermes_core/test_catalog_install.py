"""``hermes mcp catalog/install/suggest`` as a user runs them (the CLI as a subprocess).

Sources are real local git repositories (``file://``), bootstraps really install (a local
Python package with pip, an npm package from the test cache), probes talk to real servers.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import textwrap
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_core.plugins import hookimpl
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.plugins.types import AppDeclaration, CatalogManifest
from servers.reference import EVERYTHING, PACKAGES, node
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

Run = Callable[..., subprocess.CompletedProcess[str]]

NOTES_SERVER = '''\
from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")
NOTES: list[str] = []


@server.tool()
def add_note(text: str) -> str:
    """Add a note."""
    NOTES.append(text)
    return "added"


@server.tool()
def list_notes() -> str:
    """List the notes."""
    return "\\n".join(NOTES)


@server.tool()
def delete_notes() -> str:
    """Delete every note."""
    NOTES.clear()
    return "deleted"
'''


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def notes_repo(tmp_path: Path) -> Path:
    """A git repository holding a Python package with an MCP server, tagged v1."""
    repo = tmp_path / "notes-repo"
    package = repo / "notes_server"
    package.mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "notes-server"\nversion = "1.0"\n'
        '[tool.setuptools]\npackages = ["notes_server"]\n'
    )
    (package / "__init__.py").write_text(NOTES_SERVER)
    (package / "__main__.py").write_text("from notes_server import server\n\nserver.run('stdio')\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "notes server")
    git(repo, "tag", "v1")
    return repo


@pytest.fixture
def catalog_dir(tmp_path: Path) -> Path:
    path = tmp_path / "catalog"
    path.mkdir()
    return path


@pytest.fixture
def hermes(home: Path, catalog_dir: Path) -> Run:
    def run(
        *args: str, env: dict[str, str] | None = None, **kw: object
    ) -> subprocess.CompletedProcess[str]:
        base = {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": str(catalog_dir)}
        return run_hermes(*args, env={**base, **(env or {})}, **kw)  # type: ignore[arg-type]

    return run


def write(catalog_dir: Path, name: str, text: str) -> Path:
    path = catalog_dir / f"{name}.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def notes_manifest(repo: Path, ref: str, *, extra_env: str = "") -> str:
    python = shlex.quote(sys.executable)
    pip = "pip install --quiet --no-deps --no-build-isolation --no-index"
    return f"""\
        manifest_version: 1
        name: notes
        description: Notes, from a local git repository
        source:
          git: file://{repo}
          ref: {ref}
        install:
          bootstrap:
            - {python} -m {pip} --target lib .
        transport:
          command: {sys.executable}
          args: ["-m", "notes_server"]
          env:
            PYTHONPATH: "${{INSTALL_DIR}}/lib"{extra_env}
        tools:
          default_enabled: [add_note, list_notes]
        """


def config(home: Path) -> dict[str, object]:
    from hermes_core.config.loader import load_config

    servers = load_config(home / "config.yaml").tree["mcp_servers"]
    from hermes_core.yaml_lines import plain

    result: dict[str, object] = plain(servers)
    return result


def test_install_clones_bootstraps_with_pip_probes_and_keeps_the_choice_on_reinstall(
    hermes: Run, home: Path, catalog_dir: Path, notes_repo: Path
) -> None:
    write(catalog_dir, "notes", notes_manifest(notes_repo, "v1"))
    done = hermes("mcp", "install", "notes", "--yes")
    assert done.returncode == 0, done.stderr
    folder = home / "mcp-installs" / "notes"
    out = done.stdout
    # What will run is shown first.
    assert f"source:    file://{notes_repo} at v1" in out
    assert "bootstrap 1: " in out and "pip install" in out
    assert f"runs:      {sys.executable} -m notes_server" in out
    assert f"[1/2] git clone file://{notes_repo} (v1)" in out
    assert "[2/2] " in out
    assert (folder / "lib" / "notes_server" / "__init__.py").is_file()
    log = home / "logs" / "mcp-install-notes.log"
    assert "(exit 0)" in log.read_text()
    entry = config(home)["notes"]
    assert entry == {
        "command": sys.executable,
        "args": ["-m", "notes_server"],
        "env": {"PYTHONPATH": f"{folder}/lib"},
        "tools": {"include": ["add_note", "list_notes"]},
    }
    tools = hermes("mcp", "tools", "--json")
    listed = [t["tool"] for t in json.loads(tools.stdout) if not t["utility"]]
    assert sorted(listed) == ["add_note", "list_notes"]

    # The user narrows the choice; then a new commit (a new tool, an env change in the
    # manifest) is installed by SHA: the entry is updated, the choice survives.
    (home / "config.yaml").write_text(
        (home / "config.yaml").read_text().replace("[add_note, list_notes]", "[list_notes]")
    )
    init = notes_repo / "notes_server" / "__init__.py"
    init.write_text(
        init.read_text()
        + '\n\n@server.tool()\ndef count_notes() -> int:\n    """Count."""\n    return len(NOTES)\n'
    )
    git(notes_repo, "commit", "-qam", "count")
    sha = git(notes_repo, "rev-parse", "HEAD")
    write(
        catalog_dir,
        "notes",
        notes_manifest(notes_repo, sha, extra_env='\n            NOTES_MODE: "quiet"'),
    )
    again = hermes("mcp", "install", "notes", "--yes")
    assert again.returncode == 0, again.stderr
    assert "updated mcp_servers.notes" in again.stdout
    entry = config(home)["notes"]
    assert isinstance(entry, dict)
    assert entry["env"] == {"PYTHONPATH": f"{folder}/lib", "NOTES_MODE": "quiet"}
    assert entry["tools"] == {"include": ["list_notes"]}
    assert "def count_notes" in (folder / "lib" / "notes_server" / "__init__.py").read_text()
    assert git(folder, "rev-parse", "HEAD") == sha


def test_npm_bootstrap_from_the_test_cache_and_a_probe_against_server_everything(
    hermes: Run, home: Path, catalog_dir: Path
) -> None:
    node()
    package = PACKAGES / "server-everything"
    write(
        catalog_dir,
        "everything",
        f"""\
        manifest_version: 1
        name: everything
        description: The MCP reference server, installed with npm
        install:
          bootstrap:
            - npm install --offline --ignore-scripts --no-audit --no-fund --prefix . {package}
        transport:
          command: node
          args:
            - "${{INSTALL_DIR}}/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
            - stdio
        tools:
          default_enabled: [echo, "get-s*"]
        """,
    )
    done = hermes("mcp", "install", "everything", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    folder = home / "mcp-installs" / "everything"
    assert (folder / "node_modules" / "@modelcontextprotocol" / "server-everything").exists()
    entry = config(home)["everything"]
    assert isinstance(entry, dict)
    assert (
        entry["args"][0]
        == f"{folder}/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    )
    # default_enabled globs become the probed names they match.
    assert entry["tools"] == {"include": ["echo", "get-structured-content", "get-sum"]}
    # The count is what is offered: the chosen tools and the utility tools (pre-checked).
    listed = hermes("mcp", "tools", "--json")
    offered = [t["tool"] for t in json.loads(listed.stdout)]
    utilities = [t["tool"] for t in json.loads(listed.stdout) if t["utility"]]
    assert utilities
    assert (
        f"tools: {len(offered)} enabled (echo, get-structured-content, get-sum; "
        f"utility tools: {', '.join(utilities)})" in done.stdout
    ), done.stdout
    assert EVERYTHING.exists()


def test_a_bootstrap_that_fails_half_way_leaves_nothing_half_installed(
    hermes: Run, home: Path, catalog_dir: Path
) -> None:
    manifest = """\
        manifest_version: 1
        name: half
        description: Fails half-way
        install:
          bootstrap:
            - "{first}"
            - "{second}"
            - echo never > never
        transport:
          command: "${{INSTALL_DIR}}/run"
        """
    # A fresh install that fails: no folder, no config entry.
    write(catalog_dir, "half", manifest.format(first="echo 1 > built", second="exit 3"))
    failed = hermes("mcp", "install", "half", "--yes")
    assert failed.returncode == 1
    assert "bootstrap step 2 failed (exit 3): exit 3; nothing was installed" in failed.stderr
    assert not (home / "mcp-installs" / "half").exists()
    assert not (home / "config.yaml").exists()
    assert "(exit 3)" in (home / "logs" / "mcp-install-half.log").read_text()
    # A working install, then a failing reinstall: the previous install is kept as it was.
    write(catalog_dir, "half", manifest.format(first="echo 1 > built", second="true"))
    built = hermes("mcp", "install", "half", "--yes")
    # Installed, but its command is not there: saved disabled, exit 1 (as `hermes mcp add`).
    assert built.returncode == 1 and "saved 'half' disabled" in built.stdout
    before = (home / "config.yaml").read_bytes()
    write(catalog_dir, "half", manifest.format(first="echo 2 > built", second="exit 3"))
    assert hermes("mcp", "install", "half", "--yes").returncode == 1
    folder = home / "mcp-installs" / "half"
    assert (folder / "built").read_text() == "1\n" and (folder / "never").exists()
    assert (home / "config.yaml").read_bytes() == before
    assert sorted(p.name for p in (home / "mcp-installs").iterdir()) == ["half"]


def test_a_failed_clone_leaves_nothing(
    hermes: Run, home: Path, catalog_dir: Path, tmp_path: Path
) -> None:
    write(
        catalog_dir,
        "gone",
        f"""\
        manifest_version: 1
        name: gone
        description: Its repository does not exist
        source: {{git: "file://{tmp_path}/nowhere", ref: v1}}
        transport: {{command: "${{INSTALL_DIR}}/run"}}
        """,
    )
    done = hermes("mcp", "install", "gone", "--yes")
    assert done.returncode == 1
    assert f"git could not fetch file://{tmp_path}/nowhere at v1" in done.stderr
    assert list((home / "mcp-installs").iterdir()) == []
    assert not (home / "config.yaml").exists()


def test_keys_go_to_env_with_mode_0600_and_other_lines_kept_across_installs(
    hermes: Run, home: Path, catalog_dir: Path
) -> None:
    env_file = home / ".env"
    env_file.write_text("# mine\nOTHER=1\nexport SHARED_TOKEN=from-before\n")
    for name, keys in (
        ("one", ["ONE_TOKEN", "SHARED_TOKEN"]),
        ("two", ["SHARED_TOKEN", "TWO_URL"]),
    ):
        listed = "\n".join(
            f"    - {{name: {k}, secret: {str(k.endswith('TOKEN')).lower()}, required: true}}"
            for k in keys
        )
        used = ", ".join(f'"${{{k}}}"' for k in keys)
        write(
            catalog_dir,
            name,
            f"manifest_version: 1\nname: {name}\ndescription: keys\n"
            f"transport: {{command: /nonexistent/{name}-mcp, args: [{used}]}}\n"
            f"auth:\n  keys:\n{listed}\n",
        )
    secret = "s3cr3t-one-value"
    first = hermes("mcp", "install", "one", "--yes", env={"ONE_TOKEN": secret})
    # A command that cannot start is saved disabled, exit 1 (as `hermes mcp add` does).
    assert first.returncode == 1, first.stderr
    assert "saved 'one' disabled: needs one-mcp" in first.stdout
    assert "then `hermes mcp enable one`" in first.stdout
    missing = hermes("mcp", "install", "two", "--yes")
    assert missing.returncode == 2
    assert "TWO_URL is required; nothing was installed" in missing.stderr
    second = hermes("mcp", "install", "two", "--yes", env={"TWO_URL": "http://localhost:9/x y"})
    assert second.returncode == 1, second.stderr
    for done in (first, missing, second):
        assert secret not in done.stdout + done.stderr
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert env_file.read_text() == (
        "# mine\nOTHER=1\nexport SHARED_TOKEN=from-before\n"
        f"ONE_TOKEN={secret}\n"
        'TWO_URL="http://localhost:9/x y"\n'
    )
    assert sorted(config(home)) == ["one", "two"]


def test_default_excluded_writes_exclude_without_a_checklist(
    hermes: Run, home: Path, catalog_dir: Path
) -> None:
    write(
        catalog_dir,
        "huge",
        """\
        manifest_version: 1
        name: huge
        description: Thousands of generated tools
        transport: {url: "https://huge.example/mcp"}
        auth: oauth
        tools: {default_excluded: ["*delete*", "*_purge_*"]}
        """,
    )
    done = hermes("mcp", "install", "huge", "--yes")
    assert done.returncode == 0, done.stderr
    assert "asking" not in done.stdout
    assert "tools: all except *delete*, *_purge_*" in done.stdout
    assert config(home)["huge"] == {
        "url": "https://huge.example/mcp",
        "auth": "oauth",
        "tools": {"exclude": ["*delete*", "*_purge_*"]},
    }


def test_remote_oauth_entries_install_without_a_probe(hermes: Run, home: Path) -> None:
    done = hermes("mcp", "install", "figma", "--yes")
    assert done.returncode == 0, done.stderr
    assert "connects:  https://mcp.figma.com/mcp (OAuth sign-in)" in done.stdout
    assert "sign in with `hermes mcp login figma`" in done.stdout
    assert config(home)["figma"] == {
        "url": "https://mcp.figma.com/mcp",
        "auth": "oauth",
        "oauth": {"client_name": "Claude Code"},
    }


def test_catalog_states_future_and_broken_manifests(
    hermes: Run, home: Path, catalog_dir: Path
) -> None:
    write(catalog_dir, "later", "manifest_version: 2\nname: later\ndescription: From the future\n")
    broken = write(
        catalog_dir,
        "broken",
        "manifest_version: 1\nname: broken\ndescription: x\ntransport:\n  comand: x\n",
    )
    (home / "config.yaml").write_text(
        "mcp_servers:\n  time: {command: uvx, args: [mcp-server-time]}\n"
        "  fetch: {command: uvx, enabled: false}\n"
    )
    path = "/usr/bin:/bin"  # acme-studio (the example vendor's app) is not on it
    done = hermes("mcp", "catalog", env={"PATH": path})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()

    def row(name: str) -> str:
        return next(line for line in lines if line.startswith(name + " "))

    assert "available" in row("memory") and "installed" not in row("memory")
    assert "installed (enabled)" in row("time")
    assert "installed (disabled)" in row("fetch")
    assert "unavailable here" in row("acme-studio")
    assert "[from acme-studio-hermes 2.4.0]" in row("acme-studio")
    after = lines[lines.index(row("acme-studio")) + 1]
    assert after.strip() == "Acme Studio is not installed. Install Acme Studio, then try again."
    assert row("later").endswith(
        "⚠ 'later' requires a newer Hermes (manifest_version 2); run `hermes update` to install it"
    )
    assert f"warning: {broken}:5: transport.comand: is not a manifest key" in done.stderr
    listed = json.loads(hermes("mcp", "catalog", "--json", env={"PATH": path}).stdout)
    by_name = {e["name"]: e for e in listed["entries"]}
    assert by_name["acme-studio"]["from"] == "acme-studio-hermes 2.4.0"
    assert by_name["memory"]["from"].endswith("(built-in)")
    assert by_name["later"]["state"] == "requires a newer Hermes"
    assert "broken" not in by_name and len(listed["problems"]) == 1
    future = hermes("mcp", "install", "later", "--yes")
    assert future.returncode == 1 and "⚠ 'later' requires a newer Hermes" in future.stderr
    bad = hermes("mcp", "install", "broken", "--yes")
    assert bad.returncode == 2 and f"{broken}:5: transport.comand" in bad.stderr
    # On a machine where the app is installed, the vendor's entry is available.
    bindir = os.path.dirname(sys.executable)
    ok = hermes("mcp", "catalog", "--json", env={"PATH": f"{bindir}:{path}"})
    states = {e["name"]: e["state"] for e in json.loads(ok.stdout)["entries"]}
    assert states["acme-studio"] == "available"
    refused = hermes("mcp", "install", "acme-studio", "--yes", env={"PATH": path})
    assert refused.returncode == 1
    assert refused.stderr.strip().endswith(
        "'acme-studio' is unavailable: missing_app. Acme Studio is not installed. "
        "Install Acme Studio, then try again."
    )
    assert not (home / "mcp-installs").exists()


def test_unknown_names_no_terminal_and_bare_mcp(hermes: Run, home: Path) -> None:
    unknown = hermes("mcp", "install", "memroy", "--yes")
    assert unknown.returncode == 2
    assert (
        "no catalog entry named 'memroy' (the catalog has: acme-studio, brave-search,"
        in unknown.stderr
    )
    asked = hermes("mcp", "install", "memory")
    assert asked.returncode == 2
    assert "no terminal to ask on: add --yes to install without asking" in asked.stderr
    assert not (home / "config.yaml").exists()
    bare = hermes("mcp")
    assert bare.returncode == 0 and "memory " in bare.stdout and "Install one:" in bare.stdout
    configure = hermes("mcp", "configure", "memory")  # not configured: said first
    assert configure.returncode == 2 and "no server named 'memory'" in configure.stderr
    (home / "config.yaml").write_text("mcp_servers:\n  memory: {command: x}\n")
    configure = hermes("mcp", "configure", "memory")
    assert configure.returncode == 2 and "needs an interactive terminal" in configure.stderr


def test_suggest(hermes: Run) -> None:
    done = hermes("mcp", "suggest", "look at https://www.figma.com/design/abc and remember it")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0].startswith("figma  (keyword 'figma'; available)")
    as_json = json.loads(hermes("mcp", "suggest", "--json", "file a Linear issue").stdout)
    assert [(r["name"], r["why"]) for r in as_json] == [("linear", "keyword 'linear'")]
    assert hermes("mcp", "suggest", "nothing relevant").returncode == 1


def test_an_entry_refused_by_its_app_declaration_on_a_fake_host(
    hermes_pm: HermesPluginManager,
    hermes_fake_host: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The vendor's way: the catalog entry next to the app declaration of the same name."""
    from hermes_core.cli import mcp_catalog, mcp_install

    text = (
        "manifest_version: 1\nname: render-farm\ndescription: GPU renders\n"
        f"transport: {{command: {sys.executable}}}\n"  # a command that is here: no runner missing
    )
    plugin = types.SimpleNamespace(
        declare_app=hookimpl(
            lambda: [
                AppDeclaration(
                    "render-farm", requires={"gpu": "nvidia"}, display_name="Render Farm"
                )
            ]
        ),
        catalog_entry=hookimpl(lambda: [CatalogManifest("render-farm", text, "farm/catalog.yaml")]),
    )
    hermes_pm.register_plugin(plugin, "render-farm")
    hermes_pm.apply()
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    monkeypatch.setenv("HERMES_CATALOG_PATH", "")
    host = hermes_fake_host("linux")
    host.set_gpu("amd")
    assert mcp_install.install(hermes_pm, "render-farm", assume_yes=True) == 1
    assert capsys.readouterr().err == (
        "error: 'render-farm' is unavailable: unsupported_gpu, needs an NVIDIA GPU.\n"
    )
    assert not (tmp_path / "config.yaml").exists() and not (tmp_path / "mcp-installs").exists()
    assert mcp_catalog.catalog(hermes_pm) == 0
    out = capsys.readouterr().out.splitlines()
    (row,) = [i for i, line in enumerate(out) if line.startswith("render-farm ")]
    assert "unavailable here" in out[row] and "[from render-farm]" in out[row]
    assert out[row + 1].strip() == (
        "Render Farm needs an NVIDIA GPU; none was found on this machine. "
        "Use Render Farm on a machine with an NVIDIA GPU."
    )
    host.set_gpu("nvidia")
    from hermes_platform.host import clear_caches

    clear_caches()
    assert mcp_catalog.catalog(hermes_pm, as_json=True) == 0
    listed = json.loads(capsys.readouterr().out)["entries"]
    assert {e["name"]: e["state"] for e in listed}["render-farm"] == "available"
