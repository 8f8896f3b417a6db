"""The README's embedding snippets run as written (against the example vendor's MCP server)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

README = Path(__file__).parents[2] / "README.md"


def python_blocks(heading: str) -> list[str]:
    text = README.read_text()
    section = text[text.index(heading) :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


def test_embedding_snippets_run(tmp_path: Path) -> None:
    # `acme-studio-mcp` comes with examples/vendor-plugin, which the test session installs.
    assert shutil.which("acme-studio-mcp"), "install examples/vendor-plugin (nox -s tests does)"
    first, second = python_blocks("### Embedding the host")[:2]
    script = tmp_path / "snippet.py"
    script.write_text(
        first + "\nservers = [HostServer('acme-studio', command='acme-studio-mcp')]\n" + second
    )
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "mcp_acme_studio_render" in result.stdout
    assert "rendered 'lobby'" in result.stdout
