"""``hermes dashboard`` in a real browser (chromium through playwright): the pages against
``hermes mcp status --json`` / ``catalog --json``, a tool called through its form, a local
catalog entry installed, a pending question answered, and the door (token, Origin, Host,
CSRF).  A screenshot of each page goes to ``.cache/dashboard-screenshots/``."""

from __future__ import annotations

import http.client
import json
import os
import socket
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from hermes_core.host.server_status import tool_count
from support.cli import run_hermes
from support.dashboard import Dashboard, chromium, running_dashboard, screenshot
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.network, pytest.mark.cli, pytest.mark.slow]

SERVERS = Path(__file__).parents[1] / "servers"
DASH = str(SERVERS / "dashboard_server.py")
ASKING = str(SERVERS / "asking_server.py")
HERMES = [sys.executable, "-m", "hermes_core"]
SECRET = "s3cret-value-never-shown"


def _home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        textwrap.dedent(
            f"""\
            # my servers (this comment stays)
            mcp_servers:
              dash:  # the test server
                command: {json.dumps(sys.executable)}
                args: [{json.dumps(DASH)}]
              asking:
                command: {json.dumps(sys.executable)}
                args: [{json.dumps(ASKING)}]
              broken:
                command: /nonexistent/hermes-test-server
              crashy:  # dies at once, saying why on stderr (with a terminal escape)
                command: {json.dumps(sys.executable)}
                args: ["-c", "import sys; sys.stderr.write('boom \\x1b[31mred\\n'); sys.exit(3)"]
              acme-studio:  # gated by the example plugin's app declaration (not installed)
                command: {json.dumps(sys.executable)}
                args: [{json.dumps(DASH)}]
            """
        )
    )
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "localdash.yaml").write_text(
        textwrap.dedent(
            f"""\
            manifest_version: 1
            name: localdash
            description: The dashboard test server, from a local catalog folder
            homepage: https://example.com/localdash
            transport:
              command: {json.dumps(sys.executable)}
              args: [{json.dumps(DASH)}]
              env:
                DASH_KEY: "${{DASH_KEY}}"
            auth:
              keys:
                - name: DASH_KEY
                  prompt: The test key
            notes: Runs tests/servers/dashboard_server.py.
            """
        )
    )
    (catalog / "gitdash.yaml").write_text(
        textwrap.dedent(
            """\
            manifest_version: 1
            name: gitdash
            description: A server built from a git repository (never installed here)
            source:
              git: https://git.example.com/acme/gitdash.git
              ref: v1.2.0
            install:
              bootstrap: ["python -m venv .venv", ".venv/bin/pip install ."]
            transport:
              url: https://gitdash.example.com/mcp
              headers:
                X-Team: "${GITDASH_TEAM}"
            auth: oauth
            """
        )
    )
    (catalog / "futuredash.yaml").write_text(
        "manifest_version: 2\nname: futuredash\ndescription: Written for a newer Hermes\n"
    )
    # Without the venv's bin on PATH, the example plugin's `acme-studio` app is not found here.
    return home, {"HERMES_CATALOG_PATH": str(catalog), "PATH": "/usr/bin:/bin"}


def _login(browser: object, dash: Dashboard) -> object:
    context = browser.new_context()  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(dash.url)
    assert page.url == dash.base + "/"
    return page


def _hermes_json(dash: Dashboard, *args: str) -> object:
    done = run_hermes(*args, "--json", env={"HERMES_HOME": str(dash.home), **_extra(dash)})
    return json.loads(done.stdout)


def _extra(dash: Dashboard) -> dict[str, str]:
    return {k: dash.env[k] for k in ("HERMES_CATALOG_PATH", "PATH")}


def _stored_call(env: dict[str, str], tool: str) -> subprocess.Popen[str]:
    """``hermes mcp call --json TOOL --approvals store`` running: its question waits in
    state.db for the page to answer."""
    return subprocess.Popen(
        [*HERMES, "mcp", "call", "--json", tool, "--approvals", "store"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_pages_show_what_status_and_catalog_report(tmp_path: Path) -> None:
    home, extra = _home(tmp_path)
    with running_dashboard(home, extra) as dash, chromium() as browser:
        page = _login(browser, dash)
        status = _hermes_json(dash, "mcp", "status")
        assert isinstance(status, list)
        for row in status:
            cell = page.locator(f'[data-state-of="{row["server"]}"]')
            assert cell.inner_text() == row["connection"], row["server"]
            # The server's own tools apart from the host's utility tools, as the CLI counts.
            assert page.locator(f'[data-tools-of="{row["server"]}"]').inner_text() == (
                tool_count(row["tools"], row["host_tools"])
            )
        shown = page.locator("table.servers tbody tr").count()
        assert shown == len(status) == 5
        crashed = next(r for r in status if r["server"] == "crashy")
        assert any("boom" in line for line in crashed["failure"]["stderr_tail"])
        crashy = page.locator("tr", has=page.locator('[data-state-of="crashy"]'))
        crashy.locator("summary", has_text="stderr tail").click()
        tail = crashy.locator("details pre").inner_text()
        assert "boom" in tail and "red" in tail and "\x1b" not in tail
        # The app gate's reasoning is what `hermes apps check --explain` prints.
        (checked,) = _hermes_json(dash, "apps", "check", "--explain")["servers"]  # type: ignore[index]
        gated = page.locator("tr", has=page.locator('[data-state-of="acme-studio"]'))
        assert checked["sentence"] in gated.inner_text()
        gated.locator("summary", has_text="why").click()
        why = gated.locator("details pre").inner_text()
        assert f"state: {checked['state']} (offerable: no)" in why
        for location in checked["explain"]["locations"]:
            for candidate in location["candidates"]:
                mark = "found    " if candidate["present"] else "not found"
                assert f"{mark} {candidate['path']}" in why
        broken = page.locator("tr", has=page.locator('[data-state-of="broken"]'))
        assert "nonexistent" in broken.inner_text()
        screenshot(page, "mcp")

        page.click("text=Catalog")
        catalog = _hermes_json(dash, "mcp", "catalog")
        assert isinstance(catalog, dict)
        for entry in catalog["entries"]:
            state = page.locator(f'[data-entry-state="{entry["name"]}"]')
            assert state.inner_text() == entry["state"], entry["name"]
        local = page.locator("#entry-localdash")
        text = local.inner_text()
        assert "stdio" in text and "keys" in text and DASH in text
        assert "DASH_KEY" in text and "unset" in text
        link = local.locator('a[href="https://example.com/localdash"]')
        assert link.count() == 1
        built = page.locator("#entry-gitdash")
        text = built.inner_text()
        assert "https://gitdash.example.com/mcp" in text and "OAuth sign-in" in text
        assert "v1.2.0" in text and ".venv/bin/pip install ." in text
        assert "X-Team: (value hidden)" in text
        assert built.locator('a[href="https://git.example.com/acme/gitdash.git"]').count() == 1
        newer = page.locator("#entry-futuredash")
        assert "requires a newer Hermes (manifest_version 2)" in newer.inner_text()
        assert newer.locator("button", has_text="Install").count() == 0
        screenshot(page, "catalog")


def test_a_tool_is_called_through_its_form(tmp_path: Path) -> None:
    home, extra = _home(tmp_path)
    with running_dashboard(home, extra) as dash, chromium() as browser:
        page = _login(browser, dash)
        page.click("header >> text=Tools")
        page.click("#tool-list >> text=mcp_dash_echo")
        echo = page.locator(".tool", has=page.locator("#tool-mcp_dash_echo"))
        assert "Echo a text" in echo.inner_text()
        page.click("#tool-list >> text=mcp_dash_wipe")
        wipe = page.locator(".tool", has=page.locator("#tool-mcp_dash_wipe"))
        assert "destructiveHint=true" in wipe.inner_text()
        page.click("#tool-list >> text=mcp_acme_studio_echo")
        gated = page.locator(".gated", has=page.locator("#tool-mcp_acme_studio_echo"))
        assert "not offered: Acme Studio is not installed" in gated.inner_text()
        assert gated.locator("button").count() == 0
        page.click("#tool-list >> text=mcp_dash_echo")
        echo = page.locator(".tool", has=page.locator("#tool-mcp_dash_echo"))
        echo.locator('input[name="a:text"]').fill("hello")
        echo.locator('input[name="a:times"]').fill("2")
        echo.locator("button", has_text="Call").click()
        expect(page.locator(".result-text")).to_have_text("hello hello [times=2]")
        screenshot(page, "tools")

        echo.locator('input[name="a:text"]').fill("once")
        echo.locator('input[name="a:times"]').fill("")
        echo.locator('input[name="n:times"]').check()  # the nullable argument sent as null
        echo.locator("button", has_text="Call").click()
        expect(page.locator(".result-text")).to_have_text("once [times=None]")

        page.click("#tool-list >> text=mcp_dash_pixel")
        pixel = page.locator(".tool", has=page.locator("#tool-mcp_dash_pixel"))
        pixel.locator("button", has_text="Call").click()
        image = page.locator("img.result")
        expect(image).to_have_count(1)
        assert page.evaluate("document.querySelector('img.result').naturalWidth") == 1


def test_a_local_catalog_entry_is_installed_and_its_tools_chosen(tmp_path: Path) -> None:
    home, extra = _home(tmp_path)
    with running_dashboard(home, extra) as dash, chromium() as browser:
        page = _login(browser, dash)
        page.click("text=Catalog")
        entry = page.locator("#entry-localdash")
        before = (home / "config.yaml").read_text()
        entry.locator("button", has_text="Install").click()  # without its required key
        assert page.inner_text(".error") == "DASH_KEY is required; nothing was installed"
        assert (home / "config.yaml").read_text() == before and not (home / ".env").exists()
        entry = page.locator("#entry-localdash")
        entry.locator('input[name="key:DASH_KEY"]').fill(SECRET)
        assert entry.locator('input[name="key:DASH_KEY"]').get_attribute("type") == "password"
        entry.locator("button", has_text="Install").click()
        assert page.url.endswith("/catalog/localdash/configure")
        assert "added mcp_servers.localdash" in page.inner_text(".notice")
        dotenv = home / ".env"
        assert f"DASH_KEY={SECRET}" in dotenv.read_text() or SECRET in dotenv.read_text()
        assert stat.S_IMODE(dotenv.stat().st_mode) == 0o600
        config = (home / "config.yaml").read_text()
        assert "# my servers (this comment stays)" in config and "# the test server" in config
        assert SECRET not in config
        page.locator('input[name="pick"][value="wipe"]').uncheck()
        screenshot(page, "configure")
        page.locator("button", has_text="Save").click()
        assert "2 tools enabled (echo, pixel)" in page.inner_text(".notice")
        listed = run_hermes("mcp", "list", "--json", env={"HERMES_HOME": str(home), **extra})
        assert listed.returncode == 0, listed.stderr
        assert SECRET not in listed.stdout
        config = (home / "config.yaml").read_text()
        assert "localdash" in config and "include" in config
        state = page.locator('[data-entry-state="localdash"]')
        assert state.inner_text() == "installed (enabled)"
        for path in ("/", "/catalog", "/tools"):
            page.goto(dash.base + path)
            assert SECRET not in page.content()


def test_a_pending_question_is_answered_from_the_page(tmp_path: Path) -> None:
    home, extra = _home(tmp_path)
    with running_dashboard(home, extra) as dash, chromium() as browser:
        page = _login(browser, dash)
        page.click("text=Pending")
        assert "Nothing is waiting" in page.inner_text("#pending-list")
        call = _stored_call(dash.env, "mcp_asking_book")
        try:
            card = page.locator(".approval")  # arrives by polling: the page is not reloaded
            card.wait_for(timeout=60_000)
            assert "Which table should I book?" in card.inner_text()
            assert page.inner_text("#pending-count") == "1"
            card.locator('input[name="f:name"]').fill("Ada")
            screenshot(page, "pending", docs=True)
            card.locator("button", has_text="Accept").click()
            assert "allowed (allow-once)" in page.inner_text(".notice")
            out, err = call.communicate(timeout=120)
        finally:
            if call.poll() is None:
                call.kill()
                call.communicate()
        assert call.returncode == 0, err
        text = json.loads(out)["content"][0]["text"]
        assert json.loads(text.removeprefix("booked ")) == {
            "name": "Ada",
            "guests": 2,
            "terrace": False,
            "mood": "quiet",
        }


def test_a_broken_server_entry_is_said_on_the_page_with_its_file_and_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("mcp_servers:\n  bad:\n    comand: x\n")
    with running_dashboard(home) as dash:
        login = _request(dash, "GET", "/login?token=" + dash.url.split("token=", 1)[1], {})
        cookie = login.getheader("set-cookie", "").split(";", 1)[0]
        conn = http.client.HTTPConnection("127.0.0.1", dash.port, timeout=60)
        conn.request("GET", "/", headers={"Cookie": cookie})
        page = conn.getresponse().read().decode()
        conn.close()
    said = page.split('<p class="warn">', 1)[1].split("</p>", 1)[0]
    assert said.startswith(f"{home / 'config.yaml'}:2: mcp_servers.bad: ")
    assert "Traceback" not in page


def test_the_browser_opens_on_the_login_url_unless_no_open(tmp_path: Path) -> None:
    home, _extra = _home(tmp_path)
    (home / "config.yaml").write_text("mcp_servers: {}\n")
    fifo = tmp_path / "opened"
    os.mkfifo(fifo)
    fake = tmp_path / "browser.py"
    fake.write_text(f"import sys\nopen({str(fifo)!r}, 'w').write(sys.argv[1])\n")
    env = clean_env(
        os.environ, {"HERMES_HOME": str(home), "BROWSER": f"{sys.executable} {fake} %s"}
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_core", "dashboard", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        got: list[str] = []
        reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
        reader.start()
        reader.join(60)
        assert process.stdout is not None
        printed = process.stdout.readline().strip()
        assert got == [printed], "the browser was not opened on the printed URL"
        dash = Dashboard(process, printed, home, env)
        assert _request(dash, "GET", printed.split(str(dash.port), 1)[1], {}).status == 303
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_a_port_already_taken_is_one_error_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = run_hermes(
            "dashboard", "--port", str(port), "--no-open", env={"HERMES_HOME": str(tmp_path)}
        )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in done.stderr and done.stdout == ""
    done = run_hermes("dashboard", "--port", "70000", env={"HERMES_HOME": str(tmp_path)})
    assert (done.returncode, done.stderr) == (2, "error: --port 70000: a port is 0 to 65535\n")


def test_an_untrusted_server_s_write_call_is_denied_from_the_page(tmp_path: Path) -> None:
    home, extra = _home(tmp_path)
    with (home / "config.yaml").open("a") as config:
        config.write(
            f"  guarded:\n    command: {json.dumps(sys.executable)}\n"
            f"    args: [{json.dumps(DASH)}]\n    trust: untrusted\n"
        )
    with running_dashboard(home, extra) as dash, chromium() as browser:
        page = _login(browser, dash)
        row = page.locator("tr", has=page.locator('[data-state-of="guarded"]'))
        assert "untrusted" in row.inner_text()
        page.click("text=Pending")
        call = _stored_call(dash.env, "mcp_guarded_wipe")
        try:
            card = page.locator(".approval")
            card.wait_for(timeout=60_000)
            assert "tool_call from guarded" in card.inner_text()
            assert card.locator("button", has_text="Allow always").count() == 1
            card.locator("button", has_text="Deny").click()
            assert "denied (deny)" in page.inner_text(".notice")
            out, err = call.communicate(timeout=120)
        finally:
            if call.poll() is None:
                call.kill()
                call.communicate()
    assert "not_approved" in out, (out, err)  # nothing reached the server
    assert "key set" not in out and "key unset" not in out


def _request(
    dash: Dashboard,
    method: str,
    path: str,
    headers: dict[str, str],
    body: str | None = None,
) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", dash.port, timeout=60)
    conn.request(method, path, body=body, headers={"Host": f"127.0.0.1:{dash.port}", **headers})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def test_the_door_refuses_no_token_a_foreign_origin_or_host_and_a_form_without_csrf(
    tmp_path: Path,
) -> None:
    home, extra = _home(tmp_path)
    with running_dashboard(home, extra) as dash, chromium() as browser:
        stranger = browser.new_context().new_page()
        assert stranger.goto(dash.base + "/").status == 401
        page = _login(browser, dash)
        assert stranger.goto(dash.url).status == 401  # the token works once
        name = f"hermes_dashboard_{dash.port}"
        cookie = next(c for c in page.context.cookies() if c["name"] == name)
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        jar = {"Cookie": f"{name}={cookie['value']}"}
        assert _request(dash, "GET", "/", jar).status == 200
        assert _request(dash, "GET", "/", {}).status == 401
        assert _request(dash, "GET", "/", {**jar, "Origin": "http://evil.example"}).status == 403
        assert _request(dash, "GET", "/", {**jar, "Host": "evil.example"}).status == 403
        form = {**jar, "Content-Type": "application/x-www-form-urlencoded"}
        assert _request(dash, "POST", "/servers/dash/disable", form, "x=1").status == 403
        assert _request(dash, "POST", "/servers/dash/disable", form, "csrf=wrong").status == 403
        assert "enabled: false" not in (home / "config.yaml").read_text()
        # The page's own button carries its token: disabling works, comments are kept.
        row = page.locator("tr", has=page.locator('[data-state-of="dash"]'))
        row.locator("button", has_text="Disable").click()
        assert "'dash' disabled" in page.inner_text(".notice")
        config = (home / "config.yaml").read_text()
        assert "# the test server" in config and "enabled: false" in config
        listed = run_hermes("mcp", "list", "--json", env={"HERMES_HOME": str(home), **extra})
        assert listed.returncode == 0, listed.stderr
        rows = {r["server"]: r for r in json.loads(listed.stdout)}
        assert rows["dash"]["enabled"] is False
        assert page.locator('[data-state-of="dash"]').inner_text() != "connected"
        page.locator("tr", has=page.locator('[data-state-of="dash"]')).locator(
            "button", has_text="Enable"
        ).click()
        assert "'dash' enabled" in page.inner_text(".notice")
        assert "enabled: false" not in (home / "config.yaml").read_text()
        # The server starts again in the background: wait for the live update to say so.
        expect(page.locator('[data-state-of="dash"]')).to_have_text("connected", timeout=60_000)
        # An edit made elsewhere reaches the open page without a reload (polling).
        disabled = run_hermes("mcp", "disable", "dash", env={"HERMES_HOME": str(home), **extra})
        assert disabled.returncode == 0, disabled.stderr
        expect(page.locator('[data-state-of="dash"]')).not_to_have_text("connected", timeout=60_000)
