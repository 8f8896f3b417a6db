"""An imported client config nested a thousand deep is one clear error (issue 27, item 13).

A 2 KB file of 990 nested arrays made every parser (JSON, JSON with comments, TOML) raise
``RecursionError`` and the import printed a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

NESTED = "[" * 990 + "]" * 990
FILES = {
    "claude-code": (
        ".claude.json",
        f'{{"mcpServers": {{"a": {{"command": "x", "args": {NESTED}}}}}}}',
    ),
    "cursor": (
        ".cursor/mcp.json",
        f'{{"mcpServers": {{"a": {{"command": "x", "args": {NESTED}}}}}}}',
    ),
    "gemini": (
        ".gemini/settings.json",
        f'{{"mcpServers": {{"a": {{"command": "x", "args": {NESTED}}}}}}}',
    ),
    "codex": (".codex/config.toml", f'[mcp_servers.a]\ncommand = "x"\nargs = {NESTED}\n'),
}


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.parametrize("source", sorted(FILES))
def test_a_deeply_nested_client_config_is_one_clear_error(tmp_path: Path, source: str) -> None:
    home, hermes = tmp_path / "home", tmp_path / "hermes"
    name, text = FILES[source]
    (home / name).parent.mkdir(parents=True)
    (home / name).write_text(text)
    hermes.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "CODEX_"))}
    env.update(HOME=str(home), HERMES_HOME=str(hermes))
    done = subprocess.run(
        [sys.executable, "-m", "hermes_core", "mcp", "import", source, "--dry-run"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert done.returncode != 0
    assert f"{home / name}: nested more than 100 levels deep" in done.stderr
