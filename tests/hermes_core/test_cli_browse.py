"""``hermes mcp resources``, ``templates``, ``prompts``, ``read`` and ``prompt`` as a user runs
them (subprocesses) against real servers: server-everything (resources, templates, prompts,
a binary resource) and our fidelity server (paged listings, a server that echoes what it is
given, one that pages forever); cold, and on the warm host."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from servers.reference import EVERYTHING, node
from support.cli import run_hermes
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow, pytest.mark.node]

FIDELITY = Path(__file__).parents[1] / "servers" / "fidelity_server.py"
BLOB = "demo://resource/dynamic/blob/1"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browse")
    (folder / "config.yaml").write_text(
        "mcp_servers:\n"
        f"  everything: {{command: {node()}, args: [{str(EVERYTHING)!r}]}}\n"
        f"  fidelity: {{command: {sys.executable}, args: [{str(FIDELITY)!r}]}}\n"
        f"  twin:\n    command: {sys.executable}\n    args: [{str(FIDELITY)!r}]\n"
        "    env: {PROMPTS: '2', RESOURCES: '1', TEMPLATES: '0'}\n"
    )
    return folder


def hermes(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_hermes(*args, env={"HERMES_HOME": str(home), "HERMES_WARM": "0", **env})


def test_listings_follow_every_page_and_say_what_each_server_offers(home: Path) -> None:
    paged = hermes(home, "mcp", "resources", "fidelity")
    assert paged.returncode == 0, paged.stderr
    lines = paged.stdout.splitlines()
    assert lines[0] == "fidelity: 23 resources:"  # 5 pages of 5 (and 3), all followed
    assert [x.split()[0] for x in lines[1:]] == [f"fidelity://item/{i}" for i in range(23)]
    templates = hermes(home, "mcp", "templates", "everything", "--json")
    assert templates.returncode == 0, templates.stderr
    (listing,) = json.loads(templates.stdout)
    assert listing["server"] == "everything"
    assert "demo://resource/dynamic/text/{resourceId}" in [
        item["uriTemplate"] for item in listing["items"]
    ]
    prompts = hermes(home, "mcp", "prompts")
    assert prompts.returncode == 0, prompts.stderr
    assert "  args-prompt(city, state?): A prompt with two arguments" in prompts.stdout
    assert "twin: 2 prompts:" in prompts.stdout and "fidelity: 12 prompts:" in prompts.stdout
    # twin has no templates: said on stderr, the others listed
    none = hermes(home, "mcp", "templates")
    assert none.returncode == 0
    assert "twin: 0 resource templates" in none.stdout
    unknown = hermes(home, "mcp", "resources", "evrything")
    assert unknown.returncode == 2 and "no server named 'evrything'" in unknown.stderr


def test_a_listing_that_never_ends_is_cut_at_its_bound(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        f"  endless:\n    command: {sys.executable}\n    args: [{str(FIDELITY)!r}]\n"
        "    env: {ENDLESS: '1'}\n"
    )
    done = hermes(tmp_path, "mcp", "resources")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("endless: 50 resources:")
    assert "# endless: listing stopped early: more than 50 pages" in done.stderr


def test_read_prints_text_pipes_binary_saves_with_o_and_cleans_what_a_server_sent(
    home: Path, tmp_path: Path
) -> None:
    doc = "demo://resource/static/document/startup.md"
    text = hermes(home, "mcp", "read", doc, "--server", "everything")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("# Everything Server - Startup Process")
    # a URI no server lists, but one of everything's templates fits: read from everything
    templated = hermes(home, "mcp", "read", "demo://resource/dynamic/text/3")
    assert templated.returncode == 0, templated.stderr
    assert templated.stdout.startswith("Resource 3: This is a plaintext resource")
    # binary: its bytes to a pipe, or to a file with -o
    raw = subprocess.run(
        [sys.executable, "-m", "hermes_core", "mcp", "read", BLOB, "--server", "everything"],
        capture_output=True,
        env=clean_env(os.environ, {"HERMES_HOME": str(home), "HERMES_WARM": "0"}),
        timeout=120,
    )
    assert raw.returncode == 0, raw.stderr
    assert raw.stdout.startswith(b"Resource 1: This is a base64 blob")
    saved = tmp_path / "blob.bin"
    wrote = hermes(home, "mcp", "read", BLOB, "-o", str(saved), "--server", "everything")
    assert wrote.returncode == 0, wrote.stderr
    assert saved.read_bytes().startswith(b"Resource 1: This is a base64 blob")
    assert f"saved {saved.stat().st_size} bytes to {saved}" in wrote.stderr
    as_json = hermes(home, "mcp", "read", BLOB, "--json", "--server", "everything")
    (content,) = json.loads(as_json.stdout)["contents"]
    assert base64.b64decode(content["blob"]).startswith(b"Resource 1: This is a base64 blob")
    # what the server sends back is cleaned: no escape sequence, no TAG character
    hostile = "fidelity://x/\x1b[31mred\U000e0041"
    echoed = hermes(home, "mcp", "read", hostile, "--server", "fidelity")
    assert echoed.returncode == 0, echoed.stderr
    assert echoed.stdout.startswith("content of fidelity://x/")
    assert "\x1b" not in echoed.stdout and "\U000e0041" not in echoed.stdout
    # three servers read resources and none lists it: the server must be named
    orphan = hermes(home, "mcp", "read", "nowhere://x")
    assert orphan.returncode == 1
    assert "name the server with --server" in orphan.stderr


def test_a_binary_resource_is_refused_to_a_terminal_without_o(home: Path) -> None:
    env = {**clean_env(os.environ), "HERMES_HOME": str(home), "HERMES_WARM": "0"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "hermes_core", "mcp", "read", BLOB, "--server", "everything"],
        env=env,
        encoding="utf-8",
        timeout=90,
    )
    transcript = io.StringIO()
    child.logfile_read = transcript
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    shown = transcript.getvalue()
    assert "is binary (text/plain, " in shown and "save it with -o FILE" in shown
    assert "Resource 1" not in shown


def test_prompt_renders_with_arguments_and_says_whose_when_two_offer_it(home: Path) -> None:
    rendered = hermes(home, "mcp", "prompt", "args-prompt", "city=Paris", "state=TX")
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stdout.splitlines()[:2] == ["user:", "What's weather in Paris, TX?"]
    missing = hermes(home, "mcp", "prompt", "args-prompt", "--server", "everything")
    assert missing.returncode == 1
    assert (
        "everything/args-prompt: missing required argument(s) 'city' (it takes: city, state?)"
        in missing.stderr
    )
    bad = hermes(home, "mcp", "prompt", "args-prompt", "city")
    assert bad.returncode == 2 and "write key=value" in bad.stderr
    both = hermes(home, "mcp", "prompt", "prompt-1")
    assert both.returncode == 1
    assert "2 servers offer a prompt 'prompt-1': write fidelity/prompt-1 or twin/prompt-1" in (
        both.stderr
    )
    qualified = hermes(home, "mcp", "prompt", "twin/prompt-1", "--json")
    assert qualified.returncode == 0, qualified.stderr
    data = json.loads(qualified.stdout)
    assert (data["server"], data["name"]) == ("twin", "prompt-1")
    assert data["messages"][0]["content"]["text"] == "prompt-1 with []"
    flag = hermes(home, "mcp", "prompt", "prompt-1", "--server", "fidelity")
    assert flag.returncode == 0 and flag.stdout.startswith("user:\nprompt-1 with []")
    unknown = hermes(home, "mcp", "prompt", "no-such", "--server", "twin")
    assert unknown.returncode == 1
    assert "no prompt named 'no-such' (prompts of twin: prompt-0, prompt-1)" in unknown.stderr


def test_the_warm_host_answers_the_same(home: Path) -> None:
    env = {"HERMES_HOME": str(home)}
    assert run_hermes("mcp", "up", env=env).returncode == 0
    try:
        warm = run_hermes("mcp", "prompts", "twin", env=env)
        cold = hermes(home, "mcp", "prompts", "twin")
        read = run_hermes("mcp", "read", "fidelity://item/2", "--server", "fidelity", env=env)
    finally:
        run_hermes("mcp", "down", env=env)
    assert warm.returncode == 0, warm.stderr
    assert "using the warm host" in warm.stderr
    assert warm.stdout == cold.stdout == "twin: 2 prompts:\n  prompt-0()\n  prompt-1()\n"
    assert read.returncode == 0 and read.stdout == "content of fidelity://item/2\n"


def test_counts_separate_the_servers_tools_from_the_hosts(home: Path) -> None:
    got = hermes(home, "mcp", "get", "everything")
    assert got.returncode == 0, got.stderr
    assert "  tools: 13 + 5 host tools offered" in got.stdout.splitlines()
    listed = hermes(home, "mcp", "tools", "everything")
    assert "# everything: 13 tools + 5 host tools" in listed.stderr
    marked = listed.stdout.split("mcp_everything_list_prompts(cursor?: str)\n", 1)[1]
    assert marked.startswith("    [host tool] List the prompts")
