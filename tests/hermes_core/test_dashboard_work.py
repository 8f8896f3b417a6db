"""The dashboard as a place to work, in a real browser (chromium through playwright, one per
module): the Tools page's search and its call without a page reload (progress, the Text/JSON
views, the inputs kept), Resources, Prompts, History and the Log pane, an MCP App rendered in
its sandbox and calling back through the host, *Add a server* and a missing ``${VAR}`` set
from the MCP page — every page at 1280x800 and at 390 px with nothing to scroll sideways.

``HERMES_DOCS_SCREENSHOTS=1`` writes the docs' screenshots (``docs/images/dashboard-*.png``)."""

from __future__ import annotations

import http.client
import json
import re
import stat
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from support.cli import run_hermes
from support.dashboard import chromium, no_sideways_scroll, running_dashboard, screenshot
from support.desktop import wait_for

pytestmark = [pytest.mark.process, pytest.mark.network, pytest.mark.cli, pytest.mark.slow]

SERVERS = Path(__file__).parents[1] / "servers"
APPS = str(SERVERS / "apps_server.py")
DASH = str(SERVERS / "dashboard_server.py")
SECRET = "sk-live-0123456789abcdefghijklmnop"
PAGES = (
    "/",
    "/servers/add",
    "/tools",
    "/tools?tool=mcp_apps_read_resource",
    "/resources",
    "/resources/read?server=apps&uri=note://readme",
    "/prompts",
    "/prompts/get?server=apps&name=greet&arg:name=Ada",
    "/history",
    "/log",
    "/catalog",
    "/pending",
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _home(tmp_path: Path, *, needy: bool = False, untrusted: bool = False) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    config = textwrap.dedent(
        f"""\
        # the working pages' servers (this comment stays)
        mcp_servers:
          apps:
            command: {json.dumps(sys.executable)}
            args: [{json.dumps(APPS)}]
        """
    )
    if untrusted:  # its calls that change something wait for an approval
        config += "    trust: untrusted\n"
    if needy:  # its key is set from the page
        config += (
            f"  needy:\n    command: {json.dumps(sys.executable)}\n"
            f'    args: [{json.dumps(DASH)}]\n    env:\n      DASH_KEY: "${{NEEDY_KEY}}"\n'
        )
    (home / "config.yaml").write_text(config)
    return home


def _login(browser: Any, url: str, width: int = 1280, height: int = 800) -> Any:
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.goto(url)
    return page


def _audit(home: Path) -> list[dict[str, Any]]:
    path = home / "logs" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_tools_resources_prompts_history_and_log_without_a_reload(
    browser: Any, tmp_path: Path
) -> None:
    home = _home(tmp_path)
    with running_dashboard(home) as dash:
        page = _login(browser, dash.url)
        # The servers' table counts the server's own tools apart from the host's utility
        # tools (its resources and prompts as tools), as the CLI does.
        expect(page.locator('[data-tools-of="apps"]')).to_have_text(
            re.compile(r"^\d+ tools? \+ \d+ host tools?$")
        )
        page.click("header >> text=Tools")
        # The index is searched in place: one tool's form at a time.
        page.fill("#tool-search", "increm")
        visible = page.locator("#tool-list li[data-search]:visible")
        expect(visible).to_have_count(1)
        assert "mcp_apps_increment" in visible.inner_text()
        page.fill("#tool-search", "")
        page.click("#tool-list >> text=mcp_apps_slow")
        expect(page.locator("form.call")).to_have_count(1)  # (the click navigates: wait)
        gate = tmp_path / "gate"
        page.evaluate("window.notReloaded = true")
        page.fill('input[name="a:gate"]', str(gate))
        page.click("form.call button[type=submit]")
        # Live progress while the server waits; then its result, the page never reloaded.
        expect(page.locator("#call-progress")).to_contain_text(
            "waiting for the gate", timeout=60_000
        )
        gate.touch()
        expect(page.locator(".result-text")).to_have_text("opened", timeout=60_000)
        assert page.evaluate("window.notReloaded") is True
        assert page.input_value('input[name="a:gate"]') == str(gate)  # the input is kept
        page.click(".view-tab[data-view=json]")
        whole = page.locator(".whole-json")
        expect(whole).to_be_visible()
        assert json.loads(whole.inner_text())["content"][0]["text"] == "opened"

        # A log message and a list change arrive in the Log pane live.
        page.goto(dash.base + "/log")
        page.evaluate("window.notReloaded = true")
        log_page = page
        other = page.context.new_page()
        other.goto(dash.base + "/tools?tool=mcp_apps_shout")
        other.fill('input[name="a:text"]', "the disk is full")
        other.click("form.call button[type=submit]")
        expect(other.locator(".result-text")).to_have_text("shouted", timeout=60_000)
        lines = log_page.locator("#log-lines")
        expect(lines).to_contain_text("[apps/shouter]: the disk is full", timeout=60_000)
        expect(lines).to_contain_text("tools changed: added grown", timeout=60_000)
        assert log_page.evaluate("window.notReloaded") is True
        screenshot(log_page, "log", docs=True)
        other.close()

        page.click("header >> text=Resources")
        row = page.locator("tr", has_text="note://readme")
        row.locator("a.read").click()
        expect(page.locator(".resource-text")).to_have_text("Read me: the apps test server.")
        page.go_back()
        template = page.locator("form.template", has_text="note://items/{item}")
        template.locator('input[name="var:item"]').fill("a b/c")
        template.locator("button").click()
        expect(page.locator(".resource-text")).to_have_text("item a b/c")
        assert "note://items/a%20b%2Fc" in page.inner_text("h1")
        page.goto(dash.base + "/resources")
        screenshot(page, "resources", docs=True)

        page.click("header >> text=Prompts")
        greet = page.locator("form.prompt", has_text="greet")
        greet.locator('input[name="arg:name"]').fill("Ada")
        greet.locator("button").click()
        message = page.locator(".message")
        expect(message).to_contain_text("user")
        expect(message).to_contain_text("Say hello to Ada, in a cheerful way.")
        screenshot(page, "prompts", docs=True)

        # History: the audit log, filtered; a row opens its call (names and types only).
        page.click("header >> text=History")
        page.fill('input[name="tool"]', "slow")
        page.click("form.filters button")
        records = page.locator("details.call-record")
        expect(records).to_have_count(1)
        records.first.locator("summary").click()
        opened = records.first.inner_text()
        assert "gate: string" in opened and str(gate) not in opened
        assert "apps/slow" in opened.replace("\n", "")
        audited = [r for r in _audit(home) if r["tool"] == "slow"]
        assert audited and audited[0]["arguments"] == {"gate": "string"}
        screenshot(page, "history", docs=True)

        # Every page at a laptop's and a phone's width: nothing to scroll sideways.
        for width, height in ((1280, 800), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            for path in PAGES:
                page.goto(dash.base + path)
                assert no_sideways_scroll(page), f"{path} scrolls sideways at {width} px"
        page.goto(dash.base + "/tools?tool=mcp_apps_counter")
        screenshot(page, "tools-phone", docs=True)
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(dash.base + "/catalog")
        screenshot(page, "catalog", docs=True)
        page.goto(dash.base + "/tools?tool=mcp_apps_increment")
        page.fill('input[name="a:count"]', "1")
        page.click("form.call button[type=submit]")
        expect(page.locator(".result-text")).to_contain_text("2", timeout=60_000)
        screenshot(page, "tools", docs=True)


def test_an_mcp_app_renders_sandboxed_and_calls_back_through_the_host(
    browser: Any, tmp_path: Path
) -> None:
    home = _home(tmp_path, untrusted=True)
    with running_dashboard(home) as dash:
        page = _login(browser, dash.url)
        page.goto(dash.base + "/tools?tool=mcp_apps_counter")
        assert "ui://counter/view.html" in page.inner_text(".tool")
        page.fill('input[name="a:start"]', "41")
        page.click("form.call button[type=submit]")
        expect(page.locator(".open-app")).to_be_visible(timeout=60_000)
        with page.expect_response(lambda r: "/apps/frame/" in r.url) as framed:
            page.click(".open-app")
        response = framed.value
        policy = response.headers["content-security-policy"]
        assert "sandbox allow-scripts" in policy and "connect-src 'none'" in policy
        assert "frame-ancestors 'self'" in policy
        frame_el = page.locator(".app-view iframe")
        assert frame_el.get_attribute("sandbox") == "allow-scripts"
        app = page.frame_locator(".app-view iframe")
        expect(app.locator("#count")).to_have_text("41", timeout=60_000)
        expect(app.locator("#host")).to_have_text("host: hermes-dashboard")
        # No network, no reach into the page around it.
        expect(app.locator("#network")).to_have_text("network: blocked", timeout=30_000)
        expect(app.locator("#parent")).to_have_text("parent: closed")
        screenshot(page, "app", docs=True)
        # The app's tools/call goes through the host's pipeline: the untrusted server's
        # write waits for its approval on the Pending page, then is made (and audited).
        app.locator("#add").click()
        pending = page.context.new_page()
        pending.goto(dash.base + "/pending")
        card = pending.locator(".approval")
        card.wait_for(timeout=60_000)
        assert "increment" in card.inner_text()
        assert app.locator("#count").inner_text() == "41"  # nothing was sent yet
        card.locator("button", has_text="Allow once").click()
        expect(app.locator("#count")).to_have_text("42", timeout=60_000)
        # (audit lines are written in batches, a moment after their call)
        wait_for(
            lambda: (
                {("increment", "ok"), ("read_resource", "ok")}
                <= {(r["tool"], r["outcome"]) for r in _audit(home)}
            ),
            30,
            "the app's calls in the audit log",
        )
        # It calls its own server's tools by their server-side names only; what the page
        # does not support is refused in JSON-RPC.
        inside = next(f for f in page.frames if f != page.main_frame)
        ask = """([id, method, params]) => new Promise(done => {
            window.addEventListener('message', e => {
                if (e.data && e.data.id === id) done(e.data);
            });
            window.parent.postMessage({jsonrpc: '2.0', id, method, params}, '*');
        })"""
        other = inside.evaluate(
            ask, [901, "tools/call", {"name": "mcp_apps_increment", "arguments": {"count": 1}}]
        )
        assert "offers no tool 'mcp_apps_increment'" in other["error"]["message"]
        link = inside.evaluate(ask, [902, "ui/open-link", {"url": "https://example.com/"}])
        assert link["error"]["code"] == -32601
        # Nor can it navigate its own frame to another site (the page's frame-src).
        page.evaluate(
            "window.violations = []; document.addEventListener('securitypolicyviolation',"
            " e => window.violations.push(e.effectiveDirective))"
        )
        elsewhere = f"http://127.0.0.1:{dash.port + 1 if dash.port < 65535 else 1}/x"
        inside.evaluate(f"location.href = {json.dumps(elsewhere)}")
        page.wait_for_function("() => window.violations.includes('frame-src')", timeout=30_000)
        # The document was served once: its link is spent, and needs the session anyway.
        again = page.context.request.get(response.url)
        assert again.status == 404
        conn = http.client.HTTPConnection("127.0.0.1", dash.port, timeout=30)
        conn.request("GET", response.url.split(str(dash.port), 1)[1])
        assert conn.getresponse().status == 401
        conn.close()
        # A call posted without the page's CSRF token is refused by the door.
        forged = page.context.request.post(
            dash.base + "/api/calls", data={"tool": "mcp_apps_increment", "fields": {}}
        )
        assert forged.status == 403


def test_a_server_is_added_and_a_missing_variable_set_from_the_page(
    browser: Any, tmp_path: Path
) -> None:
    home = _home(tmp_path, needy=True)
    with running_dashboard(home) as dash:
        page = _login(browser, dash.url)
        needy = page.locator("tr", has=page.locator('[data-state-of="needy"]'))
        field = needy.locator('form.set-var input[name="value"]')
        assert field.get_attribute("type") == "password"
        field.fill(SECRET)
        needy.locator("form.set-var button").click()
        assert "NEEDY_KEY is set in .env (mode 0600)" in page.inner_text(".notice")
        dotenv = home / ".env"
        assert SECRET in dotenv.read_text()
        assert stat.S_IMODE(dotenv.stat().st_mode) == 0o600
        assert SECRET not in page.content()
        expect(page.locator('[data-state-of="needy"]')).to_have_text("connected", timeout=60_000)

        page.click("text=Add a server")
        page.fill('input[name="name"]', "added")
        screenshot(page, "add", docs=True)
        page.fill('input[name="target"]', f"{sys.executable} {APPS}")
        page.fill('textarea[name="env"]', f"APPS_API_TOKEN={SECRET}")
        page.click("form.add-server button[type=submit]")
        notice = page.inner_text(".notice")
        assert "added 'added'" in notice and "tools" in notice, notice
        assert SECRET not in (home / "config.yaml").read_text()
        assert "${" in (home / "config.yaml").read_text()
        assert (
            "# the working pages' servers (this comment stays)"
            in (home / "config.yaml").read_text()
        )
        assert SECRET not in page.content()
        expect(page.locator('[data-state-of="added"]')).to_have_text("connected", timeout=60_000)
        listed = run_hermes("mcp", "list", "--json", env={"HERMES_HOME": str(home)})
        assert listed.returncode == 0, listed.stderr
        assert "added" in {row["server"] for row in json.loads(listed.stdout)}
        # The same name again is refused as the CLI refuses it, and nothing changes.
        before = (home / "config.yaml").read_text()
        page.click("text=Add a server")
        page.fill('input[name="name"]', "added")
        page.fill('input[name="target"]', "https://example.invalid/mcp")
        page.click("form.add-server button[type=submit]")
        assert "nothing was added" in page.inner_text(".error")
        assert "already" in page.inner_text(".add-output")
        assert (home / "config.yaml").read_text() == before
        page.goto(dash.base + "/")
        screenshot(page, "mcp", docs=True)
