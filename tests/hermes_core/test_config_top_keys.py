"""Top-level mistakes in ``config.yaml`` are errors, all of them at once (issue 27, item 4).

``mcpServers:`` (the key every Claude and Cursor user has) gave "no MCP servers configured" with
exit 0, and a misspelt ``sampilng:`` block was ignored; only the first error of a file was
printed.  Run through the real CLI.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import parse_config_text
from hermes_core.config.top_keys import CORE_KEYS, unknown_key_reason
from support.cli import run_hermes

PASTED = """\
mcpServers:
  github:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
"""


@pytest.mark.process
@pytest.mark.cli
def test_mcp_servers_in_another_clients_spelling_is_an_error_pointing_at_import(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.yaml").write_text(PASTED)
    for command in (("mcp", "list"), ("mcp", "status")):
        result = run_hermes(*command, env={"HERMES_HOME": str(tmp_path)})
        assert result.returncode == 2, (command, result.stdout)
        assert "no MCP servers configured" not in result.stdout
        assert f"error: {tmp_path / 'config.yaml'}:1: mcpServers: unknown top-level key" in (
            result.stderr
        )
        assert "did you mean 'mcp_servers'?" in result.stderr
        assert "hermes mcp import" in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.process
@pytest.mark.cli
def test_every_error_of_the_file_is_reported_not_only_the_first(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        "sampilng:\n  model: small\n"
        "mcp_servers:\n  a:\n    command: x\n    trsut: untrusted\n"
        "  b:\n    url: ftp://nope\n"
        "messagin: {}\n"
    )
    result = run_hermes("mcp", "list", env={"HERMES_HOME": str(tmp_path)})
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert lines == [
        f"error: {config}:1: sampilng: unknown top-level key (did you mean 'sampling'?)",
        f"error: {config}:6: mcp_servers.a.trsut: unknown key (did you mean 'trust'?)",
        f"error: {config}:8: mcp_servers.b.url: must start with http:// or https:// (got 'ftp')",
        f"error: {config}:9: messagin: unknown top-level key (did you mean 'messaging'?)",
    ], result.stderr


@pytest.mark.process
@pytest.mark.cli
def test_the_agents_own_sections_are_known_keys(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "model:\n  default: some/model\nterminal:\n  backend: local\ndisplay: {skin: default}\n"
        "timeouts: {mcp: {tool_call: 60}}\nmcp_servers:\n  a:\n    command: x\n"
    )
    result = run_hermes("mcp", "list", env={"HERMES_HOME": str(tmp_path)})
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "a  [stdio]  x\n"


def test_the_loader_lists_each_unknown_key_at_its_line() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config_text("mcp_servers: {}\nservers: {}\nmdoel: x\nzzz_unrelated: 1\n", "c.yaml")
    problems = [str(problem) for problem in caught.value.all]
    assert problems[0].startswith("c.yaml:2: servers: unknown top-level key: Hermes reads MCP")
    assert problems[1:] == [
        "c.yaml:3: mdoel: unknown top-level key (did you mean 'model'?)",
        f"c.yaml:4: zzz_unrelated: unknown top-level key (Hermes reads {', '.join(CORE_KEYS)})",
    ]
    # Not strict: the file's servers are read, the problems are listed.
    loaded = parse_config_text("mcp_servers: {a: {command: x}}\nsampilng: {}\n", strict=False)
    assert list(loaded.config.mcp_servers) == ["a"]
    assert [e.key for e in loaded.errors] == ["sampilng"]


@pytest.mark.parametrize("key", ["mcpServers", "MCP_SERVERS", "mcp_Servers", "context_servers"])
def test_other_spellings_of_the_servers_block_point_at_mcp_servers(key: str) -> None:
    reason = unknown_key_reason(key)
    assert reason is not None and "'mcp_servers'" in reason
