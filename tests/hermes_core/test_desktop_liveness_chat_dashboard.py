"""A desktop app's server in the two long-running doors a person watches (issue 47 items 2-3):
``hermes chat`` (the offline ``echo`` model on a pseudo-terminal) and ``hermes dashboard``
(its page read over plain HTTP) follow the app as it starts and quits, and say "not running"."""

from __future__ import annotations

import http.client
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support.dashboard import Dashboard, running_dashboard
from support.desktop import DesktopApp, plugin_home
from support.dists import site_env
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.network, pytest.mark.cli, pytest.mark.slow]

SENTENCE = "Desk App is not running; start Desk App"


def calls(name: str) -> str:
    return json.dumps({"tool_calls": [{"name": name, "arguments": {}}]})


def test_chat_follows_the_app(tmp_path: Path) -> None:
    import pexpect

    home, site, runtime = plugin_home(tmp_path)
    app = DesktopApp(runtime)
    env = site_env(site, HERMES_HOME=str(home), LLM_USER_PATH=str(tmp_path / "llm"))
    child = pexpect.spawn(
        sys.executable,
        ["-m", "hermes_core", "chat", "-m", "echo"],
        env={**clean_env(os.environ), **env, "TERM": "xterm"},
        encoding="utf-8",
        timeout=90,
    )
    tokens: list[str] = []
    seen: list[str] = []

    def turn(line: str) -> str:
        """What the chat printed for *line*, up to its next prompt."""
        child.sendline(line)
        child.expect_exact("you> ")
        seen.append(child.before)
        return str(child.before)

    def until_listed(want: bool) -> None:
        deadline = time.monotonic() + 60
        while ("mcp_desk_hello" in turn("/tools")) != want:
            assert time.monotonic() < deadline, f"mcp_desk_hello listed: not {want} after 60 s"

    try:
        child.expect_exact("you> ")
        assert "mcp_desk_hello" not in turn("/tools")
        assert SENTENCE in turn(calls("mcp_desk_hello"))  # not running: refused, in words
        tokens.append(app.start()["token"])
        until_listed(True)
        assert "hello world from the desktop app" in turn(calls("mcp_desk_hello"))
        app.quit()
        until_listed(False)
        said = turn(calls("mcp_desk_hello"))
        assert SENTENCE in said and "cannot connect" not in said, said
        child.sendline("/exit")
        child.expect(pexpect.EOF)
        seen.append(str(child.before))
    finally:
        child.close()
        if app.process is not None:
            app.quit()
    assert child.exitstatus == 0
    assert tokens and not any(token in "".join(seen) for token in tokens)


def get(dash: Dashboard, path: str, cookie: str = "") -> tuple[int, str, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", dash.port, timeout=60)
    try:
        headers = {"Host": f"127.0.0.1:{dash.port}", **({"Cookie": cookie} if cookie else {})}
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode(), dict(response.getheaders())
    finally:
        conn.close()


def test_the_dashboard_says_not_running(tmp_path: Path) -> None:
    home, site, runtime = plugin_home(tmp_path)
    app = DesktopApp(runtime)
    tokens: list[str] = []
    with running_dashboard(home, site_env(site)) as dash:
        status, _body, headers = get(dash, dash.url.split(str(dash.port), 1)[1])
        assert status in (200, 302, 303), status
        cookie = headers["set-cookie"].split(";", 1)[0]

        def state() -> Any:
            code, body, _ = get(dash, "/api/state", cookie)
            assert code == 200, code
            return {row["server"]: row for row in json.loads(body)["servers"]}["desk"]

        def until(connection: str) -> None:
            deadline = time.monotonic() + 60
            while state()["connection"] != connection:
                assert time.monotonic() < deadline, f"desk not {connection} after 60 s"

        def row() -> str:
            code, page, _ = get(dash, "/", cookie)
            assert code == 200, code
            found = re.search(r'<tr>(?:(?!</tr>).)*data-state-of="desk".*?</tr>', page, re.S)
            assert found, page
            return found.group(0)

        try:
            until("not running")
            shown = row()
            assert 'class="state-not-running">not running</span>' in shown, shown
            assert SENTENCE in shown
            _code, css, _ = get(dash, "/static/style.css", cookie)
            assert ".state-not-running{" in css  # the class is a valid one, and styled
            tokens.append(app.start()["token"])
            until("connected")
            assert 'class="state-connected">connected</span>' in row()
            app.quit()
            until("not running")
            assert 'class="state-not-running">not running</span>' in row()
        finally:
            if app.process is not None:
                app.quit()
        everything = json.dumps(state()) + row()
    assert tokens and not any(token in everything for token in tokens)
