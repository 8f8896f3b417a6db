"""The embedding snippets of docs/embedding.md (and the README's, the first of them) run as
written, against the example vendor's MCP server; CI runs the README's test command."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from support.home import clean_env

README = Path(__file__).parents[2] / "README.md"
EMBEDDING = README.parent / "docs" / "embedding.md"


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.DOTALL)


def test_the_readme_embedding_example_is_the_first_snippet_tested_here() -> None:
    (readme_example,) = python_blocks(README)
    assert readme_example == python_blocks(EMBEDDING)[0]


def test_the_readme_stays_short() -> None:
    assert len(README.read_text().splitlines()) <= 250, "move the detail to docs/"


@pytest.mark.process
def test_embedding_snippets_run(tmp_path: Path) -> None:
    # `acme-studio-mcp` comes with examples/vendor-plugin, which the test session installs.
    assert shutil.which("acme-studio-mcp"), "install examples/vendor-plugin (nox -s tests does)"
    first, second = python_blocks(EMBEDDING)[:2]
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


def dev_script() -> ModuleType:
    """``dev.py``, loaded as a module (it runs nothing on import)."""
    spec = importlib.util.spec_from_file_location("dev", README.parent / "dev.py")
    assert spec is not None and spec.loader is not None
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    return dev


def test_the_test_prerequisites_and_dev_pys_first_run_are_said() -> None:
    text = " ".join(README.read_text().split())
    prerequisites = text[text.index("Test prerequisites") :][:400]
    for program in ("Node 20+", "npm", "chromium", "postgresql", "redis-server", "haproxy"):
        assert program in prerequisites, program
    dev = dev_script()
    said = dev._first_run(["demo"])
    assert "first run of demo" in said and "pip installs Hermes" in said


def test_dev_py_knows_a_session_it_made(tmp_path: Path) -> None:
    dev = dev_script()
    assert not dev._session_made("demo", tmp_path)
    (tmp_path / ".nox" / "demo-3-12").mkdir(parents=True)
    assert dev._session_made("demo", tmp_path) and not dev._session_made("tests", tmp_path)


def test_ci_runs_exactly_the_quick_start_test_command() -> None:
    text = README.read_text()
    block = text[text.index("## Quick start") :]
    block = block[block.index("```sh\n") + 6 : block.index("```", block.index("```sh\n") + 6)]
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert len(commands) == 2, commands
    ci = (README.parent / ".ci" / "run").read_text().splitlines()
    assert commands[1] in [line.strip() for line in ci], "CI must run the README's test command"
    # Neither command installs into the interpreter that runs it (PEP 668 system Pythons).
    assert not any("pip install" in command for command in commands)


@pytest.mark.process
def test_factory_snippet_runs_the_config_with_the_installed_plugins(tmp_path: Path) -> None:
    assert shutil.which("acme-studio-mcp"), "install examples/vendor-plugin (nox -s tests does)"
    snippet = python_blocks(EMBEDDING)[2]
    assert "HostFactory.from_plugins()" in snippet
    (tmp_path / "config.yaml").write_text("mcp_servers:\n  studio:\n    command: acme-studio-mcp\n")
    script = tmp_path / "snippet.py"
    script.write_text(snippet)
    env = clean_env(os.environ)
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "HERMES_HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    assert "mcp_studio_render" in result.stdout
    assert "['studio']" in result.stdout
