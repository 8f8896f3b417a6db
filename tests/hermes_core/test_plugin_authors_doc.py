"""docs/plugin-authors.md is executed: its tagged blocks, in order, as one bash script.

A fenced block whose info string says ``run`` is a command; ``file=PATH`` writes the block to
PATH and ``append=PATH`` appends it (relative to the script's current folder at that point).
The script runs in an empty folder with an author's venv first on PATH (``support.author_env``:
hermes-core and its dependencies already there, the tutorial's ``pip install`` real).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from support.author_env import make_author_env

pytestmark = [pytest.mark.process, pytest.mark.slow]

DOC = Path(__file__).parents[2] / "docs" / "plugin-authors.md"
FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
END = "HERMES_TUTORIAL_EOF"


def blocks(text: str) -> list[tuple[str, list[str], str]]:
    return [(lang, info.split(), body) for lang, info, body in FENCE.findall(text)]


def tutorial_script(text: str) -> str:
    steps = []
    for _lang, words, body in blocks(text):
        for word in words:
            op, _, target = word.partition("=")
            if op in ("file", "append") and target:
                assert END not in body
                redirect = ">" if op == "file" else ">>"
                path = shlex.quote(target)
                steps.append(
                    f'mkdir -p "$(dirname {path})"\n'
                    f"cat {redirect} {path} <<'{END}'\n{body}{END}\n"
                )
        if "run" in words:
            steps.append(body)
    return "set -x\n" + "\n".join(steps)


def test_every_command_block_is_run_or_marked_as_an_illustration() -> None:
    for lang, words, body in blocks(DOC.read_text()):
        if lang in ("sh", "bash", "console"):
            assert "run" in words, f"a {lang} block that the test does not run:\n{body}"
        if "file=" in " ".join(words) or "append=" in " ".join(words):
            assert len(words) == 1, words


def test_the_tutorial_runs_as_written(tmp_path: Path) -> None:
    author = make_author_env(tmp_path / "venv")
    work = tmp_path / "work"
    work.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    script = tutorial_script(DOC.read_text())
    result = author.run(
        script,
        cwd=work,
        env={"HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    project = work / "acme-paint"
    stand_in = project / "stand-in" / "bin" / "acme-paint"
    # Section 1: the scaffold's own tests; section 9: the tests of every hook.
    assert re.search(r"^6 passed", result.stdout, re.MULTILINE), result.stdout
    assert re.search(r"^10 passed", result.stdout, re.MULTILINE), result.stdout
    # Section 10: the plugin is loaded with every hook, the app found with its version and GPU.
    assert "acme-paint  (acme-paint-hermes 0.1.0)  loaded" in result.stdout
    assert "    location_kind: acme_home" in result.stdout
    assert "    gpu_probe: acme-egpu-dock" in result.stdout
    assert "    transport: acme_app" in result.stdout
    assert "    auth_provider: acme_cloud" in result.stdout
    assert "host: linux, GPU class nvidia" in result.stdout
    assert "[ok] acme-paint: available   (src/acme_paint/plugin.yaml)" in result.stdout
    assert f"     path:        {stand_in}" in result.stdout
    assert "     version:     1.4.0" in result.stdout
    # The server configured, listed and called through Hermes.
    assert "mcp_acme_paint_new_canvas" in result.stdout
    first, second = (json.loads(c) for c in re.findall(r"^\{\n.*?^\}$", result.stdout, re.M | re.S))
    assert first["structuredContent"] == {
        "path": "~/Pictures/lobby.acme",
        "width": 1920,
        "height": 1080,
    }
    # Section 7: the same server through the plugin's transport, selected by `acme_app:`.
    assert re.search(r"^\[ok\] acme-paint  \[acme_app\]  connected", result.stdout, re.M)
    assert second["structuredContent"]["path"] == "~/Pictures/from-the-app.acme"
    # Section 8: an entry selecting the plugin's auth provider is accepted as configured.
    assert "acme-cloud  [streamable_http]  https://mcp.acme.example/mcp" in result.stdout
