"""``hermes mcp search/install/update`` against a local MCP registry (tests/servers/
registry_server.py, the v0.1 API's read side), run as a user does: the CLI as a subprocess.

The npm entry really starts (server-memory from the npm cache the suite fills), the remote
entry really connects (headers_server.py, which refuses a request without the token), the PyPI
entry starts through a ``uvx`` on PATH that runs the suite's installed mcp-server-time.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from servers.net import PORT, http_server
from servers.reference import NPM_DIR, PY_SERVERS_DIR, node
from support.cli import run_hermes
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]

SERVERS = Path(__file__).resolve().parents[1] / "servers"
Run = Callable[..., subprocess.CompletedProcess[str]]


def server_json(name: str, version: str, **fields: Any) -> dict[str, Any]:
    return {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": name,
        "description": f"The {name.rsplit('/', 1)[-1]} server",
        "version": version,
        **fields,
    }


def remote(url: str, **fields: Any) -> dict[str, Any]:
    return {"remotes": [{"type": "streamable-http", "url": url, **fields}]}


MEMORY = server_json(
    "io.github.modelcontextprotocol/server-memory",
    "2026.8.31",
    repository={"url": "https://github.com/modelcontextprotocol/servers", "source": "github"},
    packages=[
        {
            "registryType": "npm",
            "registryBaseUrl": "https://registry.npmjs.org",
            "identifier": "@modelcontextprotocol/server-memory",
            "version": "2026.8.31",
            "transport": {"type": "stdio"},
            "environmentVariables": [
                {"name": "MEMORY_FILE_PATH", "description": "Where the graph is kept"}
            ],
        }
    ],
)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "registry.json"
    path.write_text("[]")
    return path


def publish(data: Path, *servers: dict[str, Any]) -> None:
    data.write_text(json.dumps([*json.loads(data.read_text()), *servers]))


@pytest.fixture
def registry(data: Path, tmp_path: Path) -> Iterator[str]:
    files = tmp_path / "files"
    files.mkdir()
    argv = [sys.executable, str(SERVERS / "registry_server.py"), PORT, str(data), str(files)]
    env = {**os.environ, "REQUIRE_TOKEN": "registry-token-1"}
    with http_server(argv, env=env, path="") as url:
        yield url


@pytest.fixture
def home(tmp_path: Path, registry: str) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    (path / "config.yaml").write_text(
        f"# my registries\nregistries:\n  local:\n    url: {registry}\n"
        "    token: ${LOCAL_REGISTRY_TOKEN}\n"
    )
    (path / ".env").write_text("LOCAL_REGISTRY_TOKEN=registry-token-1\n")
    os.chmod(path / ".env", 0o600)
    return path


@pytest.fixture
def hermes(home: Path) -> Run:
    def run(*args: str, env: dict[str, str] | None = None, **kw: Any) -> Any:
        base = {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": ""}
        return run_hermes(*args, env={**base, **(env or {})}, **kw)

    return run


def config(home: Path) -> dict[str, Any]:
    from ruamel.yaml import YAML

    found: dict[str, Any] = YAML(typ="safe").load((home / "config.yaml").read_text())
    return found


def test_search_pages_with_the_cursor_and_sends_the_token(
    hermes: Run, data: Path, home: Path, registry: str
) -> None:
    publish(
        data,
        server_json("io.github.acme/alpha", "1.0.0", **remote("https://alpha.example/mcp")),
        server_json("io.github.acme/alpha", "1.1.0", **remote("https://alpha.example/mcp")),
        server_json("io.github.acme/beta", "0.3.0", packages=[MEMORY["packages"][0]]),
        server_json("io.github.zeta/gamma\x1b[31m", "2.0.0", description="red\x1b[0m text"),
    )
    first = hermes("mcp", "search", "--limit", "2")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == "io.github.acme/alpha  1.1.0  [local]"  # the latest version only
    assert "  remote: streamable-http https://alpha.example/mcp" in lines
    assert "io.github.acme/beta  0.3.0  [local]" in lines
    assert "  packages: npm" in lines
    (more,) = [line for line in lines if line.startswith("more from local:")]
    cursor = more.rsplit("--cursor ", 1)[1]
    second = hermes("mcp", "search", "--registry", "local", "--cursor", cursor, "--json")
    assert second.returncode == 0, second.stderr
    page = json.loads(second.stdout)
    assert [s["name"] for s in page["servers"]] == ["io.github.zeta/gamma[31m"]
    assert page["servers"][0]["description"] == "red[0m text"  # no escape sequences shown
    assert page["next"] == [] and page["problems"] == []
    only = json.loads(hermes("mcp", "search", "bet", "--json").stdout)
    assert [(s["name"], s["packages"][0]["identifier"]) for s in only["servers"]] == [
        ("io.github.acme/beta", "@modelcontextprotocol/server-memory")
    ]
    seen = [json.loads(line) for line in Path(str(data) + ".requests").read_text().splitlines()]
    assert {s["authorization"] for s in seen} == {"Bearer registry-token-1"}
    assert seen[0]["query"] == {"limit": "2", "version": "latest"}
    assert hermes("mcp", "search", "nothing-like-this").returncode == 1
    unknown = hermes("mcp", "search", "x", "--registry", "nope")
    assert unknown.returncode == 2
    assert "--registry 'nope': not a configured registry (configured: local)" in unknown.stderr


def test_registry_config_mistakes_and_a_missing_token(
    hermes: Run, home: Path, registry: str
) -> None:
    (home / ".env").write_text("")
    missing = hermes("mcp", "search", "x")
    assert missing.returncode == 1
    assert "its token ${LOCAL_REGISTRY_TOKEN} is not set" in missing.stderr
    (home / "config.yaml").write_text(
        f"registries:\n  local:\n    url: {registry}\n    tokn: ${{X}}\n"
        "  leak:\n    url: https://r.example\n    token: abc123\n"
    )
    bad = hermes("mcp", "search", "x")
    assert bad.returncode == 2
    typo = "registries.local.tokn: unknown key (did you mean 'token'?)"
    assert f"{home / 'config.yaml'}:4: {typo}" in bad.stderr
    assert "registries.leak.token: must be a ${VAR} reference" in bad.stderr
    assert "abc123" not in bad.stderr


def test_install_an_npm_server_that_really_starts(
    hermes: Run, data: Path, home: Path, registry: str
) -> None:
    node()
    publish(data, MEMORY)
    graph = home / "graph.json"
    env = {"npm_config_prefer_offline": "true", "MEMORY_FILE_PATH": str(graph)}
    asked = hermes("mcp", "install", "io.github.modelcontextprotocol/server-memory", cwd=NPM_DIR)
    assert asked.returncode == 2 and "add --yes" in asked.stderr
    assert "mcp_servers" not in (home / "config.yaml").read_text()
    done = hermes(
        "mcp", "install", "io.github.modelcontextprotocol/server-memory", "--yes",
        env=env, cwd=NPM_DIR,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert (
        "Install 'io.github.modelcontextprotocol/server-memory' 2026.8.31 from registry local"
        in out
    )
    assert "UNVETTED: not reviewed for the Hermes catalog" in out
    assert "  package:   npm @modelcontextprotocol/server-memory 2026.8.31 from " in out
    assert "  runs:      npx -y @modelcontextprotocol/server-memory@2026.8.31" in out
    assert "  asks for:  MEMORY_FILE_PATH (value, optional;" in out
    assert re.search(r"tools: all \d+ enabled \(", out), out  # own tools and utility tools
    written = config(home)
    assert written["mcp_servers"]["server-memory"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"],
        "env": {"MEMORY_FILE_PATH": "${MEMORY_FILE_PATH}"},
        "tools": {"exclude": []},  # every tool installed: a choice a reinstall keeps
    }
    assert (home / "config.yaml").read_text().startswith("# my registries\n")
    assert f"MEMORY_FILE_PATH={graph}" in (home / ".env").read_text()
    tools = hermes("mcp", "tools", "--json", env=env, cwd=NPM_DIR)
    names = {t["name"] for t in json.loads(tools.stdout)}
    assert "mcp_server_memory_create_entities" in names, tools.stderr
    again = hermes("mcp", "update", "--json")
    assert json.loads(again.stdout) == [
        {
            "name": "server-memory",
            "installed": "2026.8.31",
            "latest": "2026.8.31",
            "newer": False,
            "from": registry,
            "note": None,
        }
    ]


def test_a_remote_entry_with_a_secret_header_and_an_update(
    hermes: Run, data: Path, home: Path, tmp_path: Path
) -> None:
    token = "s3cret-header-value"
    header = {
        "name": "Authorization",
        "value": "Bearer {token}",
        "variables": {"token": {"description": "API token", "isRequired": True, "isSecret": True}},
    }
    argv = [sys.executable, str(SERVERS / "headers_server.py"), PORT]
    env = {**os.environ, "REQUIRE_AUTHORIZATION": f"Bearer {token}"}
    with http_server(argv, env=env) as url:
        publish(
            data, server_json("io.github.acme/secure", "1.0.0", **remote(url, headers=[header]))
        )
        missing = hermes("mcp", "install", "io.github.acme/secure", "--yes")
        assert missing.returncode == 2
        assert "SECURE_TOKEN is required; nothing was installed" in missing.stderr
        done = hermes(
            "mcp", "install", "io.github.acme/secure", "--yes", env={"SECURE_TOKEN": token}
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"  connects:  {url}" in done.stdout
        assert "  header:    Authorization: Bearer ${SECURE_TOKEN}" in done.stdout
        assert "  asks for:  SECURE_TOKEN (secret, required;" in done.stdout
        assert token not in done.stdout + done.stderr + (home / "config.yaml").read_text()
        assert config(home)["mcp_servers"]["secure"] == {
            "url": url,
            "headers": {"Authorization": "Bearer ${SECURE_TOKEN}"},
            "tools": {"exclude": []},
        }
        env_file = home / ".env"
        assert f"SECURE_TOKEN={token}" in env_file.read_text()
        assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
        tools = json.loads(hermes("mcp", "tools", "--json").stdout)
        assert "mcp_secure_headers_seen" in [t["name"] for t in tools]
        # Choose a tool filter, then a new version is published: update shows and keeps it.
        hermes("mcp", "disable", "secure")
        text = (home / "config.yaml").read_text()
        # (the entry's tools: already says "every tool", the install's choice; add to it)
        text = re.sub(r"\n *enabled: false", "", text)
        text = re.sub(r"(\n( *)exclude: \[\])", r"\1\n\2prompts: false", text)
        text = text.replace("tools: {exclude: []}", "tools: {exclude: [], prompts: false}")
        assert "prompts: false" in text, text
        (home / "config.yaml").write_text(text)
        v2 = server_json("io.github.acme/secure", "1.1.0", **remote(url + "?v=2", headers=[header]))
        publish(data, v2)
        shown = hermes("mcp", "update")
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.splitlines() == [
            "secure: 1.0.0 → 1.1.0",
            "apply with: hermes mcp update secure --yes",
        ]
        assert config(home)["mcp_servers"]["secure"]["url"] == url
        applied = hermes("mcp", "update", "secure", "--yes")
        assert applied.returncode == 0, applied.stdout + applied.stderr
        entry = config(home)["mcp_servers"]["secure"]
        assert entry["url"] == url + "?v=2"
        assert entry["tools"] == {"exclude": [], "prompts": False}
        assert "enabled" not in entry
        latest = hermes("mcp", "update", "secure")
        assert latest.stdout.strip() == "secure: 1.1.0 is the latest"
    catalog_only = hermes("mcp", "update", "nope")
    assert catalog_only.returncode == 2 and "no server named 'nope'" in catalog_only.stderr


def test_a_pypi_entry_needs_uv_then_starts_through_uvx(
    hermes: Run, data: Path, home: Path, tmp_path: Path
) -> None:
    program = PY_SERVERS_DIR / "bin" / "mcp-server-time"
    assert program.exists(), "run `nox -s tests` to install the third-party Python servers"
    publish(
        data,
        server_json(
            "io.github.modelcontextprotocol/time",
            "2026.10.19",
            packages=[
                {
                    "registryType": "pypi",
                    "identifier": "mcp-server-time",
                    "version": "2026.10.19",
                    "runtimeHint": "uvx",
                    "transport": {"type": "stdio"},
                    "packageArguments": [
                        {"type": "named", "name": "--local-timezone", "value": "UTC"}
                    ],
                }
            ],
        ),
    )
    bare = tmp_path / "bare-bin"
    bare.mkdir()
    python_dir = os.path.dirname(sys.executable)
    done = hermes(
        "mcp", "install", "io.github.modelcontextprotocol/time", "--yes",
        env={"PATH": f"{bare}:/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "  runs:      uvx mcp-server-time==2026.10.19 --local-timezone UTC" in done.stdout
    assert "saved 'time' disabled: needs uv: `uvx` is not on PATH." in done.stdout
    assert config(home)["mcp_servers"]["time"] == {
        "command": "uvx",
        "args": ["mcp-server-time==2026.10.19", "--local-timezone", "UTC"],
        "enabled": False,
    }
    # uv arrives: a uvx that runs the pinned program from the suite's Python servers.
    uvx = bare / "uvx"
    uvx.write_text(
        f'#!/bin/sh\nspec="$1"; shift\nexec {PY_SERVERS_DIR}/bin/"${{spec%%==*}}" "$@"\n'
    )
    uvx.chmod(0o755)
    path = {"PATH": f"{bare}:{python_dir}:/usr/bin:/bin"}
    assert hermes("mcp", "enable", "time", env=path).returncode == 0
    tools = hermes("mcp", "tools", "--json", env=path)
    assert "mcp_time_get_current_time" in {t["name"] for t in json.loads(tools.stdout)}, (
        tools.stderr
    )


def test_refusals_unknown_types_unknown_fields_and_app_declarations(
    hermes: Run, data: Path, home: Path
) -> None:
    publish(
        data,
        server_json(
            "io.github.acme/crate",
            "1.0.0",
            packages=[
                {"registryType": "cargo", "identifier": "acme-mcp", "transport": {"type": "stdio"}}
            ],
        ),
        server_json(
            "io.github.acme/studio",
            "1.0.0",
            _meta={
                "dev.hermes/declaration": {
                    "app": {
                        "linux": {
                            "presence": "executable",
                            "location": [{"kind": "command", "name": "acme-studio-nowhere"}],
                        }
                    },
                    "requires": {"app": True},
                }
            },
            **remote("https://studio.example/mcp"),
        ),
        server_json(
            "io.github.acme/future",
            "3.0.0",
            futureField={"x": 1},
            remotes=[
                {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp", "signature": "…"}
            ],
        ),
    )
    cargo = hermes("mcp", "install", "io.github.acme/crate", "--yes")
    assert cargo.returncode == 1
    assert "package type cargo is not one this Hermes installs" in cargo.stderr
    studio = hermes(
        "mcp", "install", "io.github.acme/studio", "--yes", env={"PATH": "/usr/bin:/bin"}
    )
    assert studio.returncode == 1
    assert "'studio' is unavailable: missing_app." in studio.stderr
    assert "mcp_servers" not in (home / "config.yaml").read_text()
    gone = hermes("mcp", "install", "io.github.acme/nothing", "--yes")
    assert gone.returncode == 2
    assert "no server named 'io.github.acme/nothing' in local (" in gone.stderr
    future = hermes("mcp", "install", "io.github.acme/future", "--yes")
    assert (
        "fields this Hermes does not read (ignored): futureField, remotes[0].signature"
        in future.stdout
    )
    # Nothing listens there: a failed probe is saved disabled, exit 1, as `hermes mcp add` does.
    assert future.returncode == 1 and "saved 'future' disabled: the probe failed" in future.stdout
    clash = hermes("mcp", "install", "io.github.other/future", "--yes")
    assert clash.returncode == 2
    publish(data, server_json("io.github.other/future", "1.0.0", **remote("https://o.example/mcp")))
    clash = hermes("mcp", "install", "io.github.other/future", "--yes")
    assert clash.returncode == 2
    assert (
        "mcp_servers.future already exists and was not installed from io.github.other/future"
        in clash.stderr
    )


def test_on_a_terminal_the_secret_is_asked_hidden(data: Path, home: Path, tmp_path: Path) -> None:
    header = {"name": "X-Api-Key", "isRequired": True, "isSecret": True, "description": "Key"}
    publish(
        data,
        server_json(
            "io.github.acme/vault", "1.0.0", **remote("http://127.0.0.1:9/mcp", headers=[header])
        ),
    )
    env = {
        **clean_env(os.environ),
        "HERMES_HOME": str(home),
        "HERMES_CATALOG_PATH": "",
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }
    child = pexpect.spawn(
        sys.executable,
        ["-m", "hermes_core", "mcp", "install", "io.github.acme/vault"],
        env=env,
        encoding="utf-8",
        timeout=90,
        dimensions=(40, 140),
    )
    transcript = io.StringIO()
    child.logfile_read = transcript
    child.expect(r"Install 'vault' \(unvetted\)\?")
    child.send("y\r")  # a yes/no needs its Enter
    child.expect(r"Key \(VAULT_X_API_KEY\):")
    secret = "hunter2-registry-secret"
    child.send(secret + "\r")
    child.expect("saved 'vault' disabled: the probe failed")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert secret not in transcript.getvalue()
    assert f"VAULT_X_API_KEY={secret}" in (home / ".env").read_text()
    assert config(home)["mcp_servers"]["vault"]["headers"] == {"X-Api-Key": "${VAULT_X_API_KEY}"}


def test_an_oversized_or_broken_registry_answer_is_one_clear_line(
    data: Path, home: Path, tmp_path: Path
) -> None:
    publish(data, server_json("io.github.acme/alpha", "1.0.0", **remote("https://a.example/mcp")))
    argv = [sys.executable, str(SERVERS / "registry_server.py"), PORT, str(data)]
    env = {**os.environ, "PAD_BYTES": str(9 * 1024 * 1024)}
    base = {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": ""}
    with http_server(argv, env=env, path="") as url:
        done = run_hermes("mcp", "search", "--registry", url, env=base)
    assert done.returncode == 1
    assert f"warning: registry 127.0.0.1 ({url}): the answer is larger than 8388608 bytes" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr
    nothing = run_hermes("mcp", "search", "--registry", "http://127.0.0.1:9", env=base)
    assert nothing.returncode == 1
    assert "cannot connect: the connection was refused" in nothing.stderr
    assert "ConnectError" not in nothing.stderr
