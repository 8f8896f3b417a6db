"""The suite's ``hermes`` runs (``support.cli.run_hermes``) are processes forked from a launcher
that has already imported Hermes and the ``mcp`` SDK (``tests/support/cli_zygote.py``).  That
gives the process a fresh interpreter would be only while no module reads the environment (or
the working directory, or the arguments) while it is imported: checked here, on the source.
The runs themselves are checked against the interpreter started anew."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import cli_launch
from support.cli import run_hermes
from support.home import clean_env

SOURCES = [
    Path(__file__).resolve().parents[2] / "src",
    *Path(__file__).resolve().parents[2].glob("plugins/*/src"),
]
#: What a module may not touch while it is imported: it would be the launcher's, not the run's.
PROCESS_STATE = {"environ", "getenv", "getcwd", "argv", "getpid"}
#: Nor make a value that must be each process's own (a forked process would share it).
PER_PROCESS = ("secrets.", "uuid", "random", "urandom", "time.time", "monotonic")


def _outside_functions(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        yield child
        yield from _outside_functions(child)


def _process_specific(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in PROCESS_STATE
    if isinstance(node, ast.Call):
        return any(word in ast.unparse(node.func) for word in PER_PROCESS)
    return False


def test_no_module_reads_the_environment_or_makes_a_process_value_while_imported() -> None:
    found = []
    for root in SOURCES:
        for path in sorted(root.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in _outside_functions(tree):
                if _process_specific(node):
                    found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "read at import time (a forked run would see the launcher's):\n" + "\n".join(
        found
    )


def _started_anew(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_core", *args],
        capture_output=True,
        text=True,
        env=clean_env(os.environ, env),
        cwd=cwd,
        timeout=120,
    )


@pytest.mark.process
@pytest.mark.cli
def test_a_forked_run_answers_as_the_interpreter_started_anew(tmp_path: Path) -> None:
    """The same output, error output and exit status, byte for byte: the environment's home
    (its path is printed), a working directory whose relative path a command resolves,
    ``PYTHONPATH``, a usage error, an unknown command."""
    site = tmp_path / "site"
    site.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "mcp.json").write_text('{"mcpServers": {"w": {"command": "true"}}}')
    env = {
        "HERMES_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(site),
        "NO_COLOR": "1",
    }
    assert cli_launch.run(["--version"], clean_env(os.environ, env), work, 60) is not None
    for args in (
        ("mcp", "list"),
        ("mcp", "add", "x", "--url", "ftp://nowhere"),  # a usage error: exit 2, stderr
        ("mcp", "import", "claude-code", "--path", "mcp.json", "--dry-run"),  # read from cwd
        ("plugins", "list", "--json"),
        ("nonsense",),
    ):
        forked = run_hermes(*args, env=env, cwd=work)
        fresh = _started_anew(*args, env=env, cwd=work)
        assert (forked.returncode, forked.stdout, forked.stderr) == (
            fresh.returncode,
            fresh.stdout,
            fresh.stderr,
        ), args
