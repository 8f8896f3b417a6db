"""``hermes dashboard`` as a user runs it (a subprocess on a throwaway home), and a real
browser on it: Debian's chromium driven by playwright (never downloaded, never skipped)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support import cli_launch
from support.home import clean_env

#: Where the browser tests leave a screenshot of each page (a test artifact).
SCREENSHOTS = Path(__file__).resolve().parents[2] / ".cache" / "dashboard-screenshots"
#: Where they go for the docs, when ``HERMES_DOCS_SCREENSHOTS=1`` asks for them.
DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
CHROMIUM = os.environ.get("HERMES_TEST_CHROMIUM", "/usr/bin/chromium")


#: A running ``hermes dashboard``: forked from the launcher, or started anew.
Process = cli_launch.LaunchedProcess | subprocess.Popen[bytes]


@dataclass
class Dashboard:
    process: Process
    url: str
    """The login URL printed on the first line (its token works once)."""
    home: Path
    env: dict[str, str]

    @property
    def base(self) -> str:
        return self.url.split("/login", 1)[0]

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])


def _first_line(process: Process, timeout: float) -> str:
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout)
    if not got or not got[0].strip():
        process.kill()
        _out, err = process.communicate(timeout=10)
        raise AssertionError(f"hermes dashboard printed no URL; stderr:\n{(err or b'').decode()}")
    return got[0].decode().strip()


def start_dashboard(env: dict[str, str]) -> Process:
    """``hermes dashboard --port 0 --no-open`` (forked from the suite's launcher where it can
    be: ``support.cli_launch``), its stdout and stderr piped (bytes)."""
    argv = ["dashboard", "--port", "0", "--no-open"]
    launched = cli_launch.popen(argv, env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if launched is not None:
        return launched
    return subprocess.Popen(
        [sys.executable, "-m", "hermes_core", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


@contextlib.contextmanager
def running_dashboard(home: Path, extra: dict[str, str] | None = None) -> Iterator[Dashboard]:
    env = clean_env(os.environ, {"HERMES_HOME": str(home), **(extra or {})})
    process = start_dashboard(env)
    try:
        yield Dashboard(process, _first_line(process, 60), home, env)
    finally:
        process.terminate()
        try:
            process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless chromium; a clear failure (never a skip) when it is not installed."""
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.fail(
            f"no chromium at {CHROMIUM}: the dashboard's browser tests need Debian's chromium "
            "(`apt-get install chromium`; .ci/run installs it)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
            args=["--no-sandbox"],
        )
        try:
            yield browser
        finally:
            browser.close()


def screenshot(page: Any, name: str, *, docs: bool = False) -> None:
    """A screenshot of *page* (a test artifact); with *docs*, also the docs' image
    ``docs/images/dashboard-NAME.png`` when ``HERMES_DOCS_SCREENSHOTS=1``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    if docs and os.environ.get("HERMES_DOCS_SCREENSHOTS") == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS_IMAGES / f"dashboard-{name}.png"), full_page=False)


def no_sideways_scroll(page: Any) -> bool:
    """Whether *page* fits its window's width (nothing to scroll sideways)."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))
