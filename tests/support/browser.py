"""The user's browser in OAuth tests: opens the authorization URL and follows the redirects
back to Hermes's loopback callback, as a person approving access would (the test
authorization server approves at once)."""

from __future__ import annotations

import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


class Browser:
    """Replaces ``hermes_core.auth.callback.open_browser``.

    *follow=False* only records the URL (nobody approves); with *approve* the approval
    waits until that event is set (a user still reading the consent screen).
    """

    def __init__(self, *, follow: bool = True, approve: threading.Event | None = None) -> None:
        self.follow = follow
        self.approve = approve
        self.opened: list[str] = []
        self.landed: list[str] = []
        self._threads: list[threading.Thread] = []

    def __call__(self, url: str) -> str:
        self.opened.append(url)
        if self.follow:
            thread = threading.Thread(target=self._visit, args=(url,), daemon=True)
            thread.start()
            self._threads.append(thread)
        return "(test browser)"

    def _visit(self, url: str) -> None:
        if self.approve is not None:
            self.approve.wait(60)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(url, timeout=10) as response:
                self.landed.append(response.geturl())
        except urllib.error.URLError as exc:  # e.g. nobody listens any more: the login stopped
            self.landed.append(f"error: {exc}")

    def redirect_location(self, url: str) -> str:
        """Where the authorization server sends the browser (without going there)."""

        class Stop(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: Any) -> None:
                return None

        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), Stop())
        try:
            opener.open(url, timeout=10)
        except urllib.error.HTTPError as exc:
            return str(exc.headers["Location"])
        raise AssertionError("the authorization server did not redirect")


def browser_env(folder: Path) -> dict[str, str]:
    """The environment under which ``hermes`` (a subprocess) "opens a browser": Python's
    ``webbrowser`` runs ``$BROWSER URL``, here a script that fetches the URL in the background
    and follows its redirects to the loopback callback, as a person approving would (the test
    authorization server approves at once).  ``DISPLAY`` says there is a screen to open it on."""
    script = folder / "browser"
    script.write_text(
        "#!/bin/sh\n"
        f"'{sys.executable}' -c 'import sys, urllib.request; "
        "opener = urllib.request.build_opener(urllib.request.ProxyHandler({})); "
        "opener.open(sys.argv[1], timeout=30)'"
        ' "$1" >/dev/null 2>&1 &\n'
    )
    script.chmod(0o755)
    return {"BROWSER": str(script), "DISPLAY": ":0"}
