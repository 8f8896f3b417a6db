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
    stand_in = project / "stand-in"
    out = result.stdout
    # Section 1: the scaffold's own tests; section 12: the tests of every hook.
    assert re.search(r"^7 passed", out, re.MULTILINE), out
    assert re.search(r"^14 passed", out, re.MULTILINE), out
    # Section 13: the plugin is loaded with every hook, the app found with its version and GPU.
    assert "acme-paint  (acme-paint-hermes 0.1.0)  loaded" in out
    for line in (
        "    location_kind: acme_home",
        "    gpu_probe: acme-egpu-dock",
        "    transport: acme_app, acme_socket",
        "    auth_provider: acme_cloud",
        "    catalog_entry: acme-cloud, acme-paint",
        "    sampling_provider: acme_caption",
        "    messaging_platform: acme_chat",
    ):
        assert line in out, line
    assert "host: linux, GPU class nvidia" in out
    assert "[ok] acme-paint: available   (src/acme_paint/plugin.yaml)" in out
    assert f"     path:        {stand_in / 'bin' / 'acme-paint'}" in out
    assert "     version:     1.4.0" in out
    # From the catalog: both entries listed with their distribution; acme-paint installed, its
    # count the tools offered (its own and the utility tools).
    catalog = [line for line in out.splitlines() if "[from acme-paint-hermes 0.1.0]" in line]
    assert sorted(line.split()[0] for line in catalog) == ["acme-cloud", "acme-paint"], out
    assert "added mcp_servers.acme-paint" in out
    assert re.search(
        r"^tools: all \d+ enabled \(new_canvas; utility tools: .*read_resource", out, re.M
    )
    assert "mcp_acme_paint_new_canvas" in out
    called = [json.loads(c) for c in re.findall(r"^\{\n.*?^\}$", out, re.M | re.S)]
    assert [c["structuredContent"]["path"] for c in called] == [
        "~/Pictures/lobby.acme",
        "~/Pictures/from-the-app.acme",
        "~/Pictures/over-the-socket.acme",
    ]
    assert called[0]["structuredContent"] == {
        "path": "~/Pictures/lobby.acme",
        "width": 1920,
        "height": 1080,
    }
    # Section 7's transports: the app itself (acme_app:), and its socket, whose path the
    # settings model lets mcp list show.
    assert re.search(r"^\[ok\] acme-paint  \[acme_app\]  connected", out, re.M)
    assert "acme-socket  [acme_socket]  acme_socket: ${ACME_PAINT_HOME}/mcp.sock" in out
    # Section 8: an entry selecting the plugin's auth provider is accepted; a typo in its
    # settings is an error at its line, with a did-you-mean.
    assert "acme-cloud  [streamable_http]  https://mcp.acme.example/mcp" in out
    typo = (
        f"error: {project / '.typo-home' / 'config.yaml'}:6: mcp_servers.acme-cloud.acme_cloud."
        "tokn_file: unknown setting (did you mean 'token_file'? valid: token_file) "
        "(settings of auth: acme_cloud)"
    )
    assert typo in result.stderr, result.stderr[-3000:]
    assert re.search(r"^exit 2$", out, re.M)
    # Sections 10 and 11: the backend's models; a message sent through hermes mcp serve and the
    # adapter, and one refused with the adapter's words, the platform named once.
    assert "acme_caption: acme-caption-1" in out
    assert re.search(r"^sent: ", out, re.M), out
    assert re.search(r"^refused: .*\bteam: no channel named 'kitchen'$", out, re.M), out
    assert "team: team:" not in out
    assert (project / "chat" / "lobby.txt").read_text() == "The lobby canvas is ready\n"
    # Section 15: the wheel holds every data file the hooks read.
    for shipped in ("plugin.yaml", "catalog.yaml", "catalog-cloud.yaml", "SKILL.md"):
        assert re.search(rf"^acme_paint/\S*{re.escape(shipped)}", out, re.M), shipped
