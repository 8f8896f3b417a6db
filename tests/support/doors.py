"""The doors a tool call comes in by, each as a caller sees it, for the door-by-door matrix
(``tests/hermes_core/test_every_door*.py``).

Each door runs a list of :class:`Case` in one go (started once: one host, one proxy, one
warm host, one chat turn, one dashboard) and answers each with an :class:`Answer`: the text
the caller sees, the structured content where the door has a channel for it, whether it is an
error, the refusal's state where the door says it, and the exit class where there is one."""

from __future__ import annotations

import asyncio
import html
import http.client
import importlib
import json
import os
import re
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servers.net import free_port, stop, wait_for_port
from servers.reference import EVERYTHING, node
from support.cli import run_hermes
from support.dashboard import running_dashboard
from support.dists import install, site_env
from support.proxy import http_session, proxy_argv, proxy_env

SERVERS = Path(__file__).resolve().parents[1] / "servers"
EVERY_DOOR = SERVERS / "every_door_server.py"
TASKS = SERVERS / "modern_task_server.py"
#: The budget of results in the matrix's home (``huge`` is over it).
BUDGET = 2000
WARM_NOTE = "using the warm host"
#: A plugin declaring the app of the server ``appgated``, nowhere to be found: its app gate
#: is closed.
APP_PLUGIN = """
from hermes_core.plugins import declarations_from_yaml, hookimpl

DECLARATION = \"\"\"
name: appgated
display_name: Door App
app:
  linux: {presence: executable, location: /nonexistent/door-app/bin/door-app}
  darwin: {presence: executable, location: /nonexistent/door-app/bin/door-app}
  win32: {presence: executable, location: C:/nonexistent/door-app.exe}
requires: {app: true}
\"\"\"


@hookimpl
def declare_app():
    return declarations_from_yaml(DECLARATION, "door_app/plugin.yaml")
"""


@dataclass(frozen=True)
class Case:
    """One call: *tool* with *args* (JSON), or at the CLI doors with *pairs* (``k=v`` words
    that must read as *args*); *must_say*: what every door's text must hold besides what the
    reference answer holds; *own_words*: the reference's error need not be repeated word for
    word (the door's own asker answered, e.g. the dashboard's Deny)."""

    name: str
    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    pairs: tuple[str, ...] = ()
    must_say: tuple[str, ...] = ()
    own_words: bool = False


class Exit:
    OK = "ok"
    FAILED = "failed"
    USAGE = "usage"


@dataclass
class Answer:
    """What a caller got, normalised."""

    text: str
    """Everything the caller sees as text (stdout and stderr, the page, the model's input)."""
    is_error: bool
    structured: Any = None
    """The structured content; ``None`` where the door has no channel for it."""
    has_structured: bool = False
    state: str | None = None
    """The refusal's ``state`` where the door says it (``policy``, ``blocked`` …)."""
    exit: str | None = None
    """The exit class where the door has exit codes."""
    raw: Any = None
    problems: list[str] = field(default_factory=list)
    """What went wrong on the way (a traceback, a call that missed the warm host)."""


def strings_in(value: Any) -> list[str]:
    """Every string leaf of a JSON value (keys too), in order."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                found.append(str(key))
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)
        elif item is not None:
            found.append(json.dumps(item))
    return found


def readable(text: str) -> str:
    """*text* and, where it is JSON (a chat tool output, a JSON error), its string leaves: what
    a reader of it can read, with quotes unescaped."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return text + "\n" + "\n".join(strings_in(value))


def answer_of_result(result: Mapping[str, Any]) -> Answer:
    """A host result (``MCPHost.call_tool``, or ``--json``) as an :class:`Answer`."""
    return Answer(
        text=readable(json.dumps(result, ensure_ascii=False)),
        is_error="error" in result or bool(result.get("isError")),
        structured=result.get("structuredContent"),
        has_structured=True,
        state=result.get("state") if "error" in result else None,
        exit=Exit.FAILED if "error" in result or result.get("isError") else Exit.OK,
        raw=result,
    )


# -- the home every door shares -------------------------------------------------------------


def write_home(home: Path) -> dict[str, str]:
    """A home with the fixture server (``door``, and ``guarded``: the same, untrusted),
    server-everything and the tasks server; a policy denying ``door/forbidden``; the decision
    ``never`` for ``door/blocked``. Returns the environment of its doors."""
    home.mkdir(parents=True, exist_ok=True)
    site = home.parent / "site"
    site.mkdir(exist_ok=True)
    install(site, "door-app", "door_app", "door-app", APP_PLUGIN)
    policy = home / "policy.yaml"
    policy.write_text('deny:\n  tools: ["door/forbidden"]\n')
    door = f"    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(EVERY_DOOR))}]\n"
    (home / "config.yaml").write_text(
        f"max_result_tokens: {BUDGET}\n"
        "mcp_servers:\n"
        f"  door:\n{door}"
        f"  guarded:\n{door}    trust: untrusted\n"
        f"  appgated:\n{door}"
        f"  everything:\n    command: {json.dumps(node())}\n"
        f"    args: [{json.dumps(str(EVERYTHING))}, stdio]\n"
        f"  tasks:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(str(TASKS))}]\n"
    )
    env = {
        **site_env(site),
        "HERMES_HOME": str(home),
        "HERMES_POLICY": str(policy),
        "LLM_USER_PATH": str(home / "llm"),
    }
    decided = run_hermes("mcp", "approvals", "set", "door", "blocked", "never", env=env)
    assert decided.returncode == 0, decided.stderr
    return env


# -- the doors --------------------------------------------------------------------------------


def embedding(env: Mapping[str, str], cases: Sequence[Case]) -> dict[str, Answer]:
    """``SyncMCPHost`` from ``HostFactory`` (the servers of the home's config.yaml), in this
    process; the reference every other door is compared with."""
    from hermes_core import HostFactory

    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    sites = env["PYTHONPATH"].split(os.pathsep)[:1]  # the plugin's site, as PYTHONPATH gives it
    sys.path[:0] = sites
    importlib.invalidate_caches()
    try:
        with HostFactory.from_plugins().sync_host() as host:
            return {c.name: answer_of_result(host.call_tool(c.tool, dict(c.args))) for c in cases}
    finally:
        del sys.path[: len(sites)]
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _cli_words(case: Case) -> list[str]:
    if case.pairs:
        return [case.tool, *case.pairs]
    return [case.tool, "--args", json.dumps(case.args)]


def _exit_class(code: int) -> str:
    return {0: Exit.OK, 1: Exit.FAILED, 2: Exit.USAGE}.get(code, f"exit {code}")


def cli_answer(done: subprocess.CompletedProcess[str], as_json: bool) -> Answer:
    """``hermes mcp call``'s output as an :class:`Answer`: ``--json`` read as the result."""
    err = "\n".join(line for line in done.stderr.splitlines() if WARM_NOTE not in line)
    if as_json and done.stdout.strip():
        try:
            result = json.loads(done.stdout)
        except ValueError:
            return Answer(done.stdout, True, problems=[f"--json printed no JSON: {done.stdout!r}"])
        answer = answer_of_result(result)
        answer.text += "\n" + err
        answer.exit = _exit_class(done.returncode)
        return answer
    return Answer(
        text=done.stdout + "\n" + err,
        is_error=done.returncode != 0,
        exit=_exit_class(done.returncode),
        raw=(done.stdout, done.stderr),
    )


def cli(
    env: Mapping[str, str], cases: Sequence[Case], *, warm: bool, as_json: bool
) -> dict[str, Answer]:
    """``hermes mcp call`` as a subprocess per case (three at a time), cold (``HERMES_WARM=0``)
    or on the warm host ``hermes mcp up`` started; text, or ``--json``."""
    extra = {**env, "HERMES_WARM": "1" if warm else "0"}
    flags = ["--json"] if as_json else []

    def one(case: Case) -> Answer:
        done = run_hermes("mcp", "call", *flags, *_cli_words(case), env=extra)
        if "Traceback" in done.stderr:
            return Answer(done.stderr, True, problems=[f"a traceback:\n{done.stderr[-3000:]}"])
        answer = cli_answer(done, as_json)
        if warm and not case.pairs and WARM_NOTE not in done.stderr:
            answer.problems.append("the call did not go through the warm host")
        return answer

    with ThreadPoolExecutor(3) as pool:
        return dict(zip([c.name for c in cases], pool.map(one, cases), strict=True))


@dataclass
class WarmHost:
    env: dict[str, str]

    def __enter__(self) -> WarmHost:
        started = run_hermes("mcp", "up", env=self.env)
        assert started.returncode == 0, started.stderr
        return self

    def __exit__(self, *exc: object) -> None:
        run_hermes("mcp", "down", env=self.env)


def _sdk_answer(result: Any) -> Answer:
    pieces = []
    for item in result.content:
        dumped = item.model_dump(mode="json", by_alias=True, exclude_none=True)
        pieces.append(dumped.get("text") if dumped.get("type") == "text" else json.dumps(dumped))
    structured = result.structured_content
    return Answer(
        text="\n".join(readable(str(piece)) for piece in pieces),
        is_error=bool(result.is_error),
        structured=structured,
        has_structured=True,
        state=structured.get("state") if result.is_error and isinstance(structured, dict) else None,
        raw=result,
    )


async def _through(session: Any, cases: Sequence[Case]) -> dict[str, Answer]:
    from mcp.shared.exceptions import MCPError

    found = {}
    for case in cases:
        try:
            result = await session.call_tool(case.tool, dict(case.args))
        except MCPError as exc:  # a JSON-RPC error: the caller sees its message
            found[case.name] = Answer(text=str(exc), is_error=True, raw=exc)
            continue
        found[case.name] = _sdk_answer(result)
    return found


def _proxy_env(env: Mapping[str, str]) -> dict[str, str]:
    return {**proxy_env(Path(env["HERMES_HOME"])), **env}


def proxy_stdio(env: Mapping[str, str], cases: Sequence[Case]) -> dict[str, Answer]:
    """``hermes mcp proxy`` on stdio, called by the raw ``mcp`` SDK client."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    argv = proxy_argv()
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=_proxy_env(env))

    async def run() -> dict[str, Answer]:
        with open(Path(env["HERMES_HOME"]) / "proxy-stdio.err", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await _through(session, cases)

    return asyncio.run(run())


def proxy_http(env: Mapping[str, str], cases: Sequence[Case]) -> dict[str, Answer]:
    """``hermes mcp proxy --http``, called by the raw ``mcp`` SDK client over HTTP."""
    home = Path(env["HERMES_HOME"])
    port = free_port()
    with open(home / "proxy-http.err", "wb") as errlog:
        proc = subprocess.Popen(
            proxy_argv("--http", str(port)),
            env=_proxy_env(env),
            stderr=errlog,
            stdout=subprocess.DEVNULL,
        )
    try:
        wait_for_port(port, 60)
        token = (home / "proxy-token").read_text().strip()

        async def run() -> dict[str, Answer]:
            async with http_session(f"http://127.0.0.1:{port}/mcp", token) as session:
                return await _through(session, cases)

        return asyncio.run(run())
    finally:
        stop(proc)


def _turn(cases: Sequence[Case]) -> str:
    calls = [{"name": c.tool, "arguments": dict(c.args)} for c in cases]
    return json.dumps({"tool_calls": calls})


def _json_values(text: str) -> list[Any]:
    found, at, decoder = [], 0, json.JSONDecoder()
    while (start := text.find("{", at)) != -1:
        value, at = decoder.raw_decode(text, start)
        found.append(value)
    return found


def chat(env: Mapping[str, str], cases: Sequence[Case]) -> dict[str, Answer]:
    """``hermes chat -q`` with ``llm``'s offline ``echo`` model: one turn that calls every
    case's tool; each answer is the tool output the model reads (and whether the session
    said the tool failed)."""
    Path(env["LLM_USER_PATH"]).mkdir(parents=True, exist_ok=True)
    done = run_hermes("chat", "-m", "echo", "-q", _turn(cases), env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    _first, second = _json_values(done.stdout)
    results = second["tool_results"]
    assert [r["name"] for r in results] == [c.tool for c in cases], results
    outcomes = re.findall(r"^\[tool\] (\S+) (done|failed)\b", done.stderr, re.MULTILINE)
    assert [name for name, _ in outcomes] == [c.tool for c in cases], done.stderr
    return {
        case.name: Answer(text=readable(result["output"]), is_error=said == "failed", raw=result)
        for case, result, (_name, said) in zip(cases, results, outcomes, strict=True)
    }


# -- the dashboard ---------------------------------------------------------------------------


class _Browserless:
    """The dashboard driven by plain HTTP requests, as its forms post them."""

    def __init__(self, port: int, login_url: str) -> None:
        self.port = port
        token = login_url.split("token=", 1)[1]
        got = self._request("GET", f"/login?token={token}", {})
        self.cookie = got[0].getheader("set-cookie", "").split(";", 1)[0]
        page = self.get("/tools")
        self.csrf = html.unescape(re.search(r'name="csrf" value="([^"]+)"', page)[1])  # type: ignore[index]

    def _request(
        self, method: str, path: str, headers: dict[str, str], body: str | None = None
    ) -> tuple[http.client.HTTPResponse, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        try:
            conn.request(
                method, path, body=body, headers={"Host": f"127.0.0.1:{self.port}", **headers}
            )
            response = conn.getresponse()
            return response, response.read().decode()
        finally:
            conn.close()

    def get(self, path: str) -> str:
        response, text = self._request("GET", path, {"Cookie": self.cookie})
        assert response.status == 200, (path, response.status, text[:500])
        return text

    def post(self, path: str, form: Mapping[str, str]) -> tuple[int, str]:
        body = urllib.parse.urlencode({"csrf": self.csrf, **form})
        headers = {"Cookie": self.cookie, "Content-Type": "application/x-www-form-urlencoded"}
        response, text = self._request("POST", path, headers, body)
        return response.status, text

    def wait_connected(self) -> None:
        """Until every enabled server is connected (the dashboard starts them in the
        background); each look waits on the server's answer, a short pause between."""
        done = threading.Event()
        while not done.is_set():
            rows = json.loads(self.get("/api/state"))["servers"]
            if rows and all(r["connection"] == "connected" for r in rows if r["enabled"]):
                done.set()
            else:
                done.wait(0.2)

    def decline_pending(self, stop: threading.Event) -> None:
        """Decline each question the page shows until *stop* (the call waiting on it
        ends when it is answered)."""
        while not stop.is_set():
            pending = json.loads(self.get("/api/state"))["pending"]
            for item in pending:
                self.post(f"/pending/{item}", {"decision": "deny"})
            stop.wait(0.2)


def page_answer(status: int, page: str) -> Answer:
    """The Tools page after a call: its result section (or the page's error) as text."""
    assert status == 200, (status, page[:2000])
    assert "Traceback" not in page
    section = re.search(r'<section class="result" id="result">(.*?)</section>', page, re.S)
    if section is None:
        error = re.search(r'<p class="(?:error|warn)">(.*?)</p>', page, re.S)
        said = html.unescape(error[1]) if error else ""
        return Answer(text=said, is_error=True, raw=page)
    body = section[1]
    # The pane's JSON view is the whole result; the Text view is what a person reads.
    whole = re.search(r'<pre class="whole-json">(.*?)</pre>', body, re.S)
    result = json.loads(html.unescape(whole[1])) if whole else {}
    text_view = re.sub(r'<div class="view" data-view="json".*?</pre>', "", body, flags=re.S)
    shown = html.unescape(re.sub(r"<[^>]+>", "\n", text_view))
    structured = result.get("structuredContent") if isinstance(result, dict) else None
    return Answer(
        text=readable(shown) + "\n" + "\n".join(strings_in(result)),
        is_error='class="error"' in body,
        structured=structured,
        has_structured=True,
        state=result.get("state") if isinstance(result, dict) and "error" in result else None,
        raw=result,
    )


def dashboard_form(case: Case) -> dict[str, str]:
    return {"tool": case.tool, "__json__": json.dumps(case.args) if case.args else ""}


@dataclass
class DashboardDoor:
    """``hermes dashboard`` (a subprocess), each call posted as the tool's form posts it."""

    env: dict[str, str]
    _stack: Any = None

    def __enter__(self) -> DashboardDoor:
        self._stack = running_dashboard(Path(self.env["HERMES_HOME"]), self.env)
        dash = self._stack.__enter__()
        self.client = _Browserless(dash.port, dash.url)
        self.client.wait_connected()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.__exit__(*exc)

    def call(self, form: Mapping[str, str]) -> Answer:
        stop = threading.Event()
        answering = threading.Thread(target=self.client.decline_pending, args=(stop,))
        answering.start()
        try:
            return page_answer(*self.client.post("/tools/call", form))
        finally:
            stop.set()
            answering.join()

    def run(self, cases: Sequence[Case]) -> dict[str, Answer]:
        return {case.name: self.call(dashboard_form(case)) for case in cases}
