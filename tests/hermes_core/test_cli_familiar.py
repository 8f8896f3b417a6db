"""The CLI in the forms people know from Claude Code, Codex and fastmcp, run as a user runs it
(a subprocess): ``mcp add NAME -- CMD ARGS``, ``-e``/``-H``/``-t``, ``mcp add-json``,
``mcp get``, tool signatures, ``mcp call TOOL key=value``, export's client names, and a
quieter ``mcp status``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.cli.parser import build_parser
from servers.reference import EVERYTHING, FILESYSTEM, node
from support.cli import hermes_at as hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"


def saved(home: Path) -> dict[str, Any]:
    from ruamel.yaml import YAML

    data: dict[str, Any] = YAML(typ="safe").load((home / "config.yaml").read_text())
    return dict(data["mcp_servers"])


# --------------------------------------------------------------------------- mcp add


def test_add_name_dashes_command_args_with_e(tmp_path: Path) -> None:
    added = hermes(
        tmp_path,
        "mcp",
        "add",
        "hostile",
        "-e",
        "HERMES_X=1",
        "--",
        sys.executable,
        "-u",
        str(HOSTILE),
    )
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() == "added 'hostile' (6 tools); new sessions will use it"
    assert saved(tmp_path)["hostile"] == {
        "command": sys.executable,
        "args": ["-u", str(HOSTILE)],
        "env": {"HERMES_X": "1"},
    }


def test_add_name_url_with_t_and_h(tmp_path: Path) -> None:
    http = hermes(
        tmp_path,
        "mcp",
        "add",
        "-t",
        "http",
        "remote",
        "https://mcp.example/mcp",
        "-H",
        "Authorization: Bearer ${REMOTE_TOKEN}",
        "-H",
        "X-Team=core",
        "--no-probe",
    )
    assert http.returncode == 0, http.stderr
    sse = hermes(
        tmp_path, "mcp", "add", "-t", "sse", "old", "https://old.example/sse", "--no-probe"
    )
    assert sse.returncode == 0, sse.stderr
    stdio = hermes(tmp_path, "mcp", "add", "-t", "stdio", "local", "--no-probe", "--", "echo", "hi")
    assert stdio.returncode == 0, stdio.stderr
    servers = saved(tmp_path)
    assert servers["remote"] == {  # `-t http` is what a url selects: not written
        "url": "https://mcp.example/mcp",
        "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}", "X-Team": "core"},
    }
    assert servers["old"] == {"url": "https://old.example/sse", "transport": "sse"}
    assert servers["local"] == {"command": "echo", "args": ["hi"]}
    listed = hermes(tmp_path, "mcp", "list", "--json")
    assert {r["server"]: r["transport"] for r in json.loads(listed.stdout)} == {
        "remote": "streamable_http",
        "old": "sse",
        "local": "stdio",
    }


def test_a_positional_mistake_shows_mcp_adds_own_usage(tmp_path: Path) -> None:
    wrong = hermes(tmp_path, "mcp", "add", "s", "npx", "-y", "some-server")
    assert wrong.returncode == 2
    assert wrong.stderr.startswith("usage: hermes mcp add ")
    assert "usage: hermes [-h]" not in wrong.stderr
    assert "unrecognized arguments: -y some-server" in wrong.stderr
    assert "go after `--`: hermes mcp add NAME -- CMD ARGS…" in wrong.stderr
    empty = hermes(tmp_path, "mcp", "add", "s", "--")
    assert empty.returncode == 2 and "nothing after `--`" in empty.stderr
    twice = hermes(tmp_path, "mcp", "add", "s", "https://a.example/mcp", "--url", "https://b/")
    assert twice.returncode == 2 and "give the server once" in twice.stderr
    assert not (tmp_path / "config.yaml").exists()


def test_every_flag_has_help_and_remove_reads_right(tmp_path: Path) -> None:
    missing: list[str] = []

    def walk(parser: argparse.ArgumentParser, words: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{words} {name}")
            elif not action.help:
                missing.append(f"{words} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "hermes")
    assert missing == []
    helped = hermes(tmp_path, "mcp", "--help")
    assert "remove a server in config.yaml" in helped.stdout
    assert "a server a server" not in helped.stdout
    add_help = hermes(tmp_path, "mcp", "add", "--help")
    assert "-e K=V, --env K=V" in add_help.stdout and "-H K=V, --header K=V" in add_help.stdout
    assert "-t NAME, --transport NAME" in add_help.stdout


def test_an_optional_word_is_never_named_as_required() -> None:
    # `hermes mcp trust` without SERVER once said "required: SERVER, TOOL" (TOOL is optional).
    wrongly: list[str] = []

    def walk(parser: argparse.ArgumentParser, words: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{words} {name}")
            elif action.nargs in ("*", "?") and action.required:
                wrongly.append(f"{words} {action.metavar or action.dest}")

    walk(build_parser(), "hermes")
    assert wrongly == []


# --------------------------------------------------------------------------- add-json


def test_add_json_in_claude_codes_shape_is_probed_and_saved(tmp_path: Path) -> None:
    entry = {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-u", str(HOSTILE)],
        "env": {"HERMES_X": "${HOME}"},
        "alwaysAllow": ["echo"],
    }
    added = hermes(tmp_path, "mcp", "add-json", "hostile", json.dumps(entry))
    assert added.returncode == 0, added.stderr
    assert "added 'hostile' (6 tools)" in added.stdout
    assert "not translated: alwaysAllow: Hermes has no per-tool auto-approval" in added.stderr
    assert saved(tmp_path)["hostile"] == {
        "command": sys.executable,
        "args": ["-u", str(HOSTILE)],
        "env": {"HERMES_X": "${HOME}"},
    }


@pytest.mark.parametrize(
    ("entry", "client", "expected"),
    [
        (  # Gemini CLI: httpUrl is streamable HTTP, $VAR expands
            {"httpUrl": "https://g.example/mcp", "headers": {"X-Key": "$G_KEY"}},
            None,
            {"url": "https://g.example/mcp", "headers": {"X-Key": "${G_KEY}"}},
        ),
        (  # Windsurf: serverUrl, ${env:VAR}
            {"serverUrl": "https://w.example/mcp", "headers": {"X-Key": "${env:W_KEY}"}},
            None,
            {"url": "https://w.example/mcp", "headers": {"X-Key": "${W_KEY}"}},
        ),
        (  # Cursor: ${env:VAR} in a stdio entry
            {"command": "cursor-srv", "env": {"K": "${env:C_KEY}"}},
            None,
            {"command": "cursor-srv", "env": {"K": "${C_KEY}"}},
        ),
        (  # Claude Desktop expands nothing: `${X}` is literal text (escaped for Hermes)
            {"command": "desk", "args": ["${X}"]},
            "claude-desktop",
            {"command": "desk", "args": ["$${X}"]},
        ),
    ],
)
def test_add_json_reads_each_clients_shape(
    tmp_path: Path, entry: dict[str, Any], client: str | None, expected: dict[str, Any]
) -> None:
    flags = ["--client", client] if client else []
    added = hermes(tmp_path, "mcp", "add-json", "s", json.dumps(entry), "--no-probe", *flags)
    assert added.returncode == 0, added.stderr
    assert saved(tmp_path)["s"] == expected


def test_add_json_mistakes_are_one_clear_error(tmp_path: Path) -> None:
    bad = hermes(tmp_path, "mcp", "add-json", "s", "{not json")
    assert bad.returncode == 2 and "the JSON argument is not valid JSON" in bad.stderr
    whole = hermes(tmp_path, "mcp", "add-json", "s", '{"mcpServers": {"a": {"command": "x"}}}')
    assert whole.returncode == 2 and "a whole configuration ('mcpServers')" in whole.stderr
    dropped = hermes(tmp_path, "mcp", "add-json", "s", '{"type": "stdio"}')
    assert dropped.returncode == 2
    assert "not translated: command: a stdio server needs a command" in dropped.stderr
    assert "Traceback" not in bad.stderr + whole.stderr + dropped.stderr
    assert not (tmp_path / "config.yaml").exists()


# --------------------------------------------------------------------------- get


def test_get_shows_entry_state_tools_gate_and_error(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        "  hostile:\n"
        f"    command: {sys.executable}\n"
        f"    args: ['-u', {str(HOSTILE)!r}]\n"
        "    env: {API_TOKEN: sk-literal-value, MODE: plain}\n"
        "    tools: {exclude: [hang]}\n"
        "  broken:\n"
        "    command: hermes-no-such-command\n"
    )
    shown = hermes(tmp_path, "mcp", "get", "hostile")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "hostile (config.yaml line 2):"
    assert "  env: API_TOKEN=***, MODE=plain" in lines  # secrets masked
    assert "sk-literal-value" not in shown.stdout
    assert "  state: connected (stdio, protocol 2025-11-25)" in lines
    assert "  tools: 5 offered, 1 filtered out" in lines
    assert "  gate: none" in lines and "  last error: none" in lines
    as_json = json.loads(hermes(tmp_path, "mcp", "get", "broken", "--json").stdout)
    assert as_json["connection"] != "connected" and as_json["offered"] is False
    assert "command not found" in as_json["last_error"]
    failed = hermes(tmp_path, "mcp", "get", "broken")
    assert failed.returncode == 1 and "last error: command not found" in failed.stdout
    unknown = hermes(tmp_path, "mcp", "get", "hostle")
    assert unknown.returncode == 2
    assert (
        "no server named 'hostle'" in unknown.stderr and "did you mean 'hostile'?" in unknown.stderr
    )


# --------------------------------------------------------------------------- tools and call


@pytest.fixture
def reference_home(tmp_path: Path) -> Path:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        f"  fs: {{command: {node()}, args: [{str(FILESYSTEM)!r}, {str(tmp_path)!r}]}}\n"
        f"  everything: {{command: {node()}, args: [{str(EVERYTHING)!r}]}}\n"
        "  hostile:\n"
        f"    command: {sys.executable}\n"
        f"    args: ['-u', {str(HOSTILE)!r}]\n"
    )
    return tmp_path


def test_tools_show_signatures_wrapped_at_the_terminal_width(reference_home: Path) -> None:
    listed = hermes(reference_home, "mcp", "tools", "fs", COLUMNS="60")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert "mcp_fs_read_text_file(path: str, tail?: float, head?: float)" in lines
    # a signature wider than the terminal goes on at its parameters, indented
    at = lines.index("mcp_fs_list_directory_with_sizes(path: str,")
    assert lines[at + 1] == "    sortBy?: 'name' | 'size')"
    assert all(len(line) <= 60 for line in lines)
    described = [line for line in lines if line.startswith("    ")]
    words = set(" ".join(line.strip() for line in described).split())
    assert "directories" in words  # wrapped on word boundaries: no word cut in two
    wide = hermes(reference_home, "mcp", "tools", "fs", COLUMNS="200").stdout.splitlines()
    assert "mcp_fs_list_directory_with_sizes(path: str, sortBy?: 'name' | 'size')" in wide
    assert "mcp_fs_edit_file(path: str, edits: list[dict], dryRun?: bool)" in wide
    assert len([x for x in wide if x.startswith("    ")]) < len(described)


def test_call_with_key_value_prints_text_and_summaries(reference_home: Path) -> None:
    echoed = hermes(reference_home, "mcp", "call", "mcp_hostile_echo", "text=007")
    assert echoed.returncode == 0, echoed.stderr
    assert echoed.stdout == "007\n"  # a string parameter takes the text as written
    summed = hermes(reference_home, "mcp", "call", "mcp_everything_get_sum", "a=2", "b:=3")
    assert summed.returncode == 0, summed.stderr
    assert "5" in summed.stdout and "{" not in summed.stdout
    raw = hermes(reference_home, "mcp", "call", "mcp_everything_get_sum", "a=2", "--json", "b=3")
    assert json.loads(raw.stdout)["content"][0]["type"] == "text"
    image = hermes(reference_home, "mcp", "call", "mcp_everything_get_tiny_image")
    assert image.returncode == 0, image.stderr
    assert "[image: image/png, " in image.stdout and "iVBOR" not in image.stdout
    resource = hermes(
        reference_home, "mcp", "call", "mcp_everything_get_resource_reference", "resourceId=2"
    )
    assert resource.returncode == 0, resource.stderr
    assert "[resource: demo://resource/static/document/2" in resource.stdout or (
        "[resource: demo://" in resource.stdout
    )


def test_call_argument_mistakes(reference_home: Path) -> None:
    both = hermes(reference_home, "mcp", "call", "mcp_hostile_echo", "text=a", "--args", "{}")
    assert both.returncode == 2 and "give the arguments one way" in both.stderr
    forced = hermes(reference_home, "mcp", "call", "mcp_hostile_echo", "text:=nope")
    assert forced.returncode == 2 and "text:= needs a JSON value" in forced.stderr
    bare = hermes(reference_home, "mcp", "call", "mcp_hostile_echo", "text")
    assert bare.returncode == 2 and "write key=value" in bare.stderr
    unknown = hermes(reference_home, "mcp", "call", "mcp_hostile_ech", "text=a")
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert "error: unknown tool 'mcp_hostile_ech'; did you mean mcp_hostile_echo" in unknown.stderr


# --------------------------------------------------------------------------- export, status


def test_export_takes_imports_client_names(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        "  local: {command: srv, args: [--x], env: {API_TOKEN: '${API_TOKEN}'}}\n"
        "  remote: {url: 'https://r.example/mcp', headers: {X-Key: '${R_KEY}'}}\n"
    )
    gemini = json.loads(hermes(tmp_path, "mcp", "export", "--format", "gemini").stdout)
    assert gemini["mcpServers"]["remote"] == {
        "httpUrl": "https://r.example/mcp",
        "headers": {"X-Key": "${R_KEY}"},
    }
    windsurf = json.loads(hermes(tmp_path, "mcp", "export", "--format", "windsurf").stdout)
    assert windsurf["mcpServers"]["remote"]["serverUrl"] == "https://r.example/mcp"
    assert windsurf["mcpServers"]["local"]["env"] == {"API_TOKEN": "${env:API_TOKEN}"}
    desktop = hermes(tmp_path, "mcp", "export", "--format", "claude-desktop")
    servers = json.loads(desktop.stdout)["mcpServers"]
    assert set(servers) == {"local"} and "env" not in servers["local"]  # no variables there
    assert "left out: remote.url: Claude Desktop's file holds stdio servers only" in desktop.stderr
    for name in ("claude-code", "claude"):  # the old name still works
        claude = json.loads(hermes(tmp_path, "mcp", "export", "--format", name).stdout)
        assert claude["mcpServers"]["remote"]["type"] == "http"
    helped = " ".join(hermes(tmp_path, "mcp", "export", "--help").stdout.split())
    assert "claude-code, claude-desktop, codex, cursor, gemini, vscode, windsurf" in helped


def test_status_says_only_what_matters(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        "  hostile:\n"
        f"    command: {sys.executable}\n"
        f"    args: ['-u', {str(HOSTILE)!r}]\n"
        "  off: {command: hermes-no-such-command, enabled: false}\n"
    )
    status = hermes(tmp_path, "mcp", "status")
    assert "[ok] hostile  [stdio]  connected  tools: 6" in status.stdout
    assert "app:" not in status.stdout  # no declared app: nothing to say
    assert "sampling" not in status.stdout  # no model configured: nobody asked for it
    assert "connecting 1 server(s)…" in status.stderr  # the disabled one is not started
    configured = tmp_path / "config.yaml"
    configured.write_text("sampling:\n  model: no-such-model\n" + configured.read_text())
    asked = hermes(tmp_path, "--no-plugins", "mcp", "status")
    assert "sampling" in asked.stdout and "no sampling backend is installed" in asked.stdout


def test_configure_an_unknown_name_says_so_first(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("mcp_servers:\n  one: {command: x}\n")
    done = hermes(tmp_path, "mcp", "configure", "nope")
    assert done.returncode == 2
    assert "no server named 'nope' in config.yaml (configured: one)" in done.stderr
    assert "needs an interactive terminal" not in done.stderr
