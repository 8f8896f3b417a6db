"""Failures are reported as failures: a server that cannot list its tools, a disabled server
under test, and a ``HERMES_HOME`` that cannot be written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import run_hermes
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]

HOSTILE = str(Path(__file__).parents[1] / "servers" / "hostile_server.py")
MUTE = str(Path(__file__).parents[1] / "servers" / "mute_lister.py")
# Long enough for a loaded machine to start an SDK server (initialize has this bound).
STARTUP_TIMEOUT = 25
# ``connect_timeout`` bounds initialize and then, again, tools/list.  The servers whose listing
# hangs are standard-library peers (no SDK to import; Hermes imports its SDK before the clock
# starts), so their initialize takes milliseconds and a few seconds is still a wide margin.
LIST_TIMEOUT = 5


def home_with(tmp_path: Path, body: str) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("mcp_servers:\n" + body)
    return home


def hostile_entry(name: str, listing: str, *extra: str) -> str:
    lines = [
        f"  {name}:",
        f"    command: {sys.executable}",
        f"    args: [{HOSTILE!r}]",
        f"    connect_timeout: {STARTUP_TIMEOUT}",
        "    env:",
        f"      HOSTILE_LIST: {listing}",
        *extra,
    ]
    return "\n".join(lines) + "\n"


def mute_entry(name: str) -> str:
    """A stdio server that answers initialize but never tools/list."""
    return (
        f"  {name}:\n    command: {sys.executable}\n    args: [{MUTE!r}]\n"
        f"    connect_timeout: {LIST_TIMEOUT}\n"
    )


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (mute_entry("shy"), f"listing tools failed: tools/list timed out after {LIST_TIMEOUT} s"),
        (
            hostile_entry("shy", "error"),
            "listing tools failed: the server answered with an error: "
            "the tool catalogue is unavailable",
        ),
    ],
    ids=["hang", "error"],
)
def test_a_server_that_cannot_list_its_tools_is_a_failure(
    tmp_path: Path, entry: str, reason: str
) -> None:
    home = home_with(tmp_path, entry)
    env = {"HERMES_HOME": str(home)}

    status = run_hermes("mcp", "status", "--json", env=env)
    assert status.returncode == 1, status.stderr
    (row,) = json.loads(status.stdout)
    assert row["connection"] == "failed"
    assert row["offered"] is False
    assert reason in row["last_error"]

    test = run_hermes("mcp", "test", "shy", env=env)
    assert test.returncode == 1, test.stdout + test.stderr
    assert reason in test.stdout
    assert "connected and listed" not in test.stdout


def test_status_text_marks_a_listing_failure(tmp_path: Path) -> None:
    home = home_with(tmp_path, hostile_entry("shy", "error"))
    status = run_hermes("mcp", "status", env={"HERMES_HOME": str(home)})
    assert status.returncode == 1
    first, *rest = status.stdout.splitlines()
    assert first.startswith("[--] shy  [stdio]  failed")
    assert "[ok]" not in status.stdout
    answered = "last error: listing tools failed: the server answered with an error"
    assert any(answered in line for line in rest)


def test_mcp_test_of_a_disabled_server_claims_nothing(tmp_path: Path) -> None:
    home = home_with(tmp_path, hostile_entry("off", "normal", "    enabled: false"))
    env = {"HERMES_HOME": str(home)}
    result = run_hermes("mcp", "test", "off", env=env)
    assert result.returncode == 1
    assert result.stdout.strip() == (
        "off: disabled in config.yaml, so it was not tested (`hermes mcp enable off` turns it on)"
    )
    report = json.loads(run_hermes("mcp", "test", "off", "--json", env=env).stdout)
    assert report["connection"] == "disabled" and report["tools"] == []
    assert report["error"].startswith("disabled in config.yaml")


# -- a read-only HERMES_HOME -------------------------------------------------------------------
NOBODY = 65534
CONFIG = "# my servers\nmcp_servers:\n  keep:\n    command: keep-me\n  other:\n    command: other\n"


def unprivileged() -> tuple[list[str], dict[str, object]]:
    """How to run the CLI so that file modes bind it: as it is when not root.  Root ignores
    modes, so then it runs without the capabilities that let it (``setpriv`` drops
    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set: root then obeys a
    root-owned 0555 folder), or, without ``setpriv``, as the unprivileged user 65534."""
    if os.geteuid() != 0:
        return [], {}
    setpriv = shutil.which("setpriv")
    if setpriv is not None:
        return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"], {}
    return [], {"user": NOBODY, "group": NOBODY, "extra_groups": []}


@pytest.fixture
def read_only_home() -> Iterator[Path]:
    """A HERMES_HOME (owned by us, mode 0555) whose folder the CLI cannot write."""
    top = Path(tempfile.mkdtemp(prefix="hermes-ro-"))
    home = top / "home"
    home.mkdir()
    (home / "config.yaml").write_text(CONFIG)
    (home / "config.yaml").chmod(0o644)
    home.chmod(0o555)
    top.chmod(0o755)  # reachable for the unprivileged user
    try:
        yield home
    finally:
        home.chmod(0o755)
        shutil.rmtree(top)


def run_unprivileged(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    prefix, options = unprivileged()
    base = clean_env(os.environ)
    probe = subprocess.run(  # the test must really meet the error: check the premise
        [*prefix, sys.executable, "-c", "import os, sys; print(os.access(sys.argv[1], 2))", home],
        capture_output=True,
        text=True,
        timeout=60,
        **options,  # type: ignore[arg-type]
    )
    assert probe.stdout.strip() == "False", probe.stderr
    return subprocess.run(
        [*prefix, sys.executable, "-m", "hermes_core", *args],
        capture_output=True,
        text=True,
        env={**base, "HERMES_HOME": str(home), "HOME": str(home)},
        cwd=home,
        timeout=120,
        **options,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "args",
    [
        ("remove", "keep"),
        ("disable", "keep"),
        ("add", "new", "--command", "new-server", "--no-probe"),
    ],
)
def test_a_read_only_home_is_a_clear_error(read_only_home: Path, args: tuple[str, ...]) -> None:
    home = read_only_home
    result = run_unprivileged(home, "mcp", *args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    config = home / "config.yaml"
    assert result.stderr.startswith(f"error: {config}: cannot write the file: "), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert config.read_text() == CONFIG  # nothing lost, nothing half-written


def test_enabling_in_a_read_only_home_is_a_clear_error(read_only_home: Path) -> None:
    home = read_only_home
    home.chmod(0o755)
    (home / "config.yaml").write_text(CONFIG.replace("keep-me\n", "keep-me\n    enabled: false\n"))
    before = (home / "config.yaml").read_text()
    home.chmod(0o555)
    result = run_unprivileged(home, "mcp", "enable", "keep")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "cannot write the file" in result.stderr
    assert (home / "config.yaml").read_text() == before


def test_an_http_server_whose_listing_hangs_is_a_failure(tmp_path: Path) -> None:
    from servers.net import free_port, wait_for_port

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(Path(HOSTILE).parent / "hostile_http.py"), str(port), "bogus-nolist"]
    )
    try:
        wait_for_port(port)
        home = home_with(
            tmp_path,
            f"  shy:\n    url: http://127.0.0.1:{port}/mcp\n    connect_timeout: {LIST_TIMEOUT}\n",
        )
        status = run_hermes("mcp", "status", "--json", env={"HERMES_HOME": str(home)})
    finally:
        server.kill()
        server.wait()
    assert status.returncode == 1, status.stderr
    (row,) = json.loads(status.stdout)
    assert row["connection"] == "failed" and row["offered"] is False
    reason = f"listing tools failed: tools/list timed out after {LIST_TIMEOUT} s"
    assert reason in row["last_error"]
