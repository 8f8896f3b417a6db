"""The plugin authors' docs are executed: docs/plugin-authors.md (the tutorial) and every
reference page under docs/plugins/, each page's tagged blocks, in order, as one bash script.

A fenced block whose info string says ``run`` is a command; ``file=PATH`` writes the block to
PATH and ``append=PATH`` appends it (relative to the script's current folder at that point).
Each script runs in an empty folder with an author's venv first on PATH (``support.author_env``:
hermes-core and its dependencies already there, the tutorial's ``pip install`` real).  Every hook
of ``hookspecs.py`` has a section in a reference page, which has a runnable example.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from hermes_core.plugins.hookspecs import HermesSpecs
from support.author_env import AuthorEnv, make_author_env

pytestmark = [pytest.mark.process, pytest.mark.slow]

DOCS = Path(__file__).parents[2] / "docs"
DOC = DOCS / "plugin-authors.md"
REFERENCE = sorted((DOCS / "plugins").glob("*.md"))
PAGES = [p for p in REFERENCE if p.name != "README.md"]
HOOKS = sorted(name for name in vars(HermesSpecs) if not name.startswith("_"))
FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,3} .*$", re.MULTILINE)
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


def run_page(author: AuthorEnv, page: Path, tmp_path: Path) -> tuple[int, str, str]:
    work = tmp_path / "work"
    work.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    result = author.run(
        tutorial_script(page.read_text()),
        cwd=work,
        env={"HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        timeout=600,
    )
    return result.returncode, result.stdout, result.stderr


@pytest.fixture(scope="module")
def author(tmp_path_factory: pytest.TempPathFactory) -> AuthorEnv:
    return make_author_env(tmp_path_factory.mktemp("author") / "venv")


@pytest.mark.parametrize("page", [DOC, *REFERENCE], ids=lambda p: p.name)
def test_every_command_block_is_run_or_marked_as_an_illustration(page: Path) -> None:
    for lang, words, body in blocks(page.read_text()):
        if lang in ("sh", "bash", "console"):
            assert "run" in words, f"{page.name}: a {lang} block the test does not run:\n{body}"
        if "file=" in " ".join(words) or "append=" in " ".join(words):
            assert len(words) == 1, words


def test_every_hook_has_a_reference_section_with_a_runnable_example() -> None:
    assert len(HOOKS) >= 10, HOOKS
    undocumented = []
    for hook in HOOKS:
        pages = [p for p in PAGES if re.search(rf"^#.*`{hook}`", p.read_text(), re.M)]
        if not pages:
            undocumented.append(f"{hook}: no heading names it in docs/plugins/")
            continue
        if len(pages) > 1:
            undocumented.append(f"{hook}: a section in several pages: {[p.name for p in pages]}")
            continue
        (page,) = pages
        words = [w for _lang, info, _body in blocks(page.read_text()) for w in info]
        if "run" not in words or not any(w.startswith("file=") for w in words):
            undocumented.append(f"{hook}: {page.name} has no runnable example")
        if f"plugins/{page.name}" not in DOC.read_text():
            undocumented.append(f"{hook}: plugin-authors.md does not link {page.name}")
    assert not undocumented, "\n".join(undocumented)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_the_reference_page_runs_as_written(page: Path, author: AuthorEnv, tmp_path: Path) -> None:
    code, out, err = run_page(author, page, tmp_path)
    assert code == 0, (out + err)[-6000:]
    # Each page's example is a plugin module and its tests, run with pytest: all of them pass,
    # none skipped.
    summaries = re.findall(r"^(\d+) passed[^\n]*$", out, re.M)
    assert summaries, out[-3000:]
    assert not re.search(
        r"\b(skipped|xfailed|xpassed|deselected|failed|error)\b",
        " ".join(line for line in out.splitlines() if re.match(r"^\d+ passed", line)),
    ), out[-3000:]


def test_the_tutorial_runs_as_written(author: AuthorEnv, tmp_path: Path) -> None:
    code, out, err = run_page(author, DOC, tmp_path)
    assert code == 0, (out + err)[-6000:]
    project = tmp_path / "work" / "acme-paint"
    # Step 1: the scaffold's own tests; step 3: those and the interceptor's.
    assert re.search(r"^7 passed", out, re.MULTILINE), out
    assert re.search(r"^11 passed", out, re.MULTILINE), out
    # Step 4: the plugin is loaded with its hooks, the tool listed, the call refused by the
    # interceptor, a typo in its settings an error at its line.
    assert "acme-paint  (acme-paint-hermes 0.1.0)  loaded" in out
    assert "    call_interceptor: acme_guard" in out
    assert "mcp_acme_paint_hello" in out
    refusal = (
        "The call to 'hello' on MCP server 'acme-paint' was refused by the interceptor "
        "'acme_guard': hello is switched off for this team"
    )
    assert refusal in out + err, (out + err)[-3000:]
    typo = (
        f"error: {project / '.typo-home' / 'config.yaml'}:3: acme_guard.dney: unknown setting "
        "(did you mean 'deny'?)"
    )
    assert typo in err, err[-3000:]
    assert len(re.findall(r"^exit \d+$", out, re.M)) == 2, out
    assert re.search(r"^exit 2$", out, re.M)
    # Step 5: the wheel holds every data file the hooks read.
    for shipped in ("plugin.yaml", "catalog.yaml", "SKILL.md"):
        assert re.search(rf"^acme_paint/\S*{re.escape(shipped)}", out, re.M), shipped
