"""The working pages' handlers: calls without a page reload (``/api/calls``), MCP Apps
(``/api/apps``, ``/apps/frame/TOKEN``), Resources, Prompts, History and the Log pane.

Every call made here — a tool's, a read, a prompt, an app's ``tools/call`` — goes through
:meth:`MCPHost.call_tool`, the pipeline an agent's call takes (policy, gates, the untrusted
server's approval through the Pending page, deadlines, audit, sanitising)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from hermes_core.dashboard.apps import AppFrames, load_app
from hermes_core.dashboard.browse import app_entry, call_utility, listing, sibling_tool
from hermes_core.dashboard.browse_pages import (
    expand_template,
    prompt_html,
    prompts_body,
    read_html,
    resources_body,
)
from hermes_core.dashboard.calls import CallBoard, CallState, PageCall
from hermes_core.dashboard.history_page import history_body, matching
from hermes_core.dashboard.hosting import Hosting
from hermes_core.dashboard.html import esc
from hermes_core.dashboard.log_feed import LogFeed
from hermes_core.dashboard.schema_form import ArgumentError, arguments
from hermes_core.dashboard.tools_page import result_html
from hermes_core.home import hermes_home
from hermes_core.host.calls.audit import read_audit
from hermes_core.host.host import MCPHost
from hermes_core.host.server_notifications import ProgressCallback
from hermes_core.json_types import JsonObject
from hermes_core.nesting import json_text_depth

__all__ = ["Workbench"]

Render = Callable[[str, str, str], HTMLResponse]
#: The deepest JSON body ``/api/calls`` reads (the arguments' own bound is the pipeline's).
MAX_DEPTH = 64


def _problem(status: int, said: str) -> JSONResponse:
    return JSONResponse({"error": said}, status_code=status)


async def _json_body(request: Request) -> dict[str, object] | str:
    raw = (await request.body()).decode("utf-8", "replace")
    if json_text_depth(raw) > MAX_DEPTH:
        return f"the request nests more than {MAX_DEPTH} levels"
    try:
        body = json.loads(raw)
    except ValueError:
        return "the request is not JSON"
    return body if isinstance(body, dict) else "the request must be a JSON object"


class Workbench:
    """The handlers of the working pages over one :class:`Hosting`."""

    def __init__(self, hosting: Hosting, render: Render) -> None:
        self.hosting = hosting
        self.render = render
        self.calls = CallBoard()
        self.apps = AppFrames()
        self.log = LogFeed()

    def __repr__(self) -> str:
        return f"Workbench({self.calls!r})"

    def attach(self) -> None:
        if self.hosting.host is not None:
            self.log.attach(self.hosting.host.registry)

    async def close(self) -> None:
        self.log.detach()
        await self.calls.close()

    # -- calls -------------------------------------------------------------------------------
    def _start(
        self, host: MCPHost, name: str, args: dict[str, object], server: str | None
    ) -> PageCall:
        entry = host.registry.get(name)
        app_uri = entry.app_uri if entry is not None else None

        def run(note: ProgressCallback) -> Awaitable[JsonObject]:
            return host.call_tool(name, args, on_progress=note)

        return self.calls.start(name, server, app_uri, args, run)

    async def start_call(self, request: Request) -> Response:
        """``POST /api/calls``: ``{"tool": NAME, "fields": {…}}`` (the form's fields) or, from
        an app, ``{"app_call": ID, "tool": TOOL, "arguments": {…}}``; answers ``{"id": …}``."""
        body = await _json_body(request)
        if isinstance(body, str):
            return _problem(400, body)
        host = self.hosting.host
        if host is None:
            return _problem(503, "the host is not running")
        name = str(body.get("tool") or "")
        if "app_call" in body:  # an app's tools/call: a tool of the app's own server only
            parent = self.calls.get(str(body["app_call"]))
            if parent is None or parent.server is None:
                return _problem(404, "no such app call")
            entry = sibling_tool(host, parent.server, name)
            if entry is None:
                return _problem(404, f"MCP server '{parent.server}' offers no tool {name!r}")
            args = body.get("arguments") or {}
            if not isinstance(args, dict):
                return _problem(400, "arguments must be an object")
            call = self._start(host, entry.name, args, entry.server)
            return JSONResponse({"id": call.id})
        entry = host.registry.get(name)
        fields = body.get("fields") or {}
        if not isinstance(fields, dict):
            return _problem(400, "fields must be an object")
        form = {str(k): str(v) for k, v in fields.items()}
        try:  # a name the host does not offer gets its refusal, as at every door
            args = arguments(entry.input_schema, form) if entry is not None else {}
        except ArgumentError as exc:
            return _problem(400, str(exc))
        call = self._start(host, name, args, entry.server if entry else None)
        return JSONResponse({"id": call.id})

    async def call_state(self, request: Request) -> Response:
        """``GET /api/calls/ID``: its progress; once done its result (as HTML and as data)."""
        call = self.calls.get(request.path_params["id"])
        if call is None:
            return _problem(404, "no such call (the dashboard keeps the last 50)")
        said: dict[str, object] = {
            "state": call.state.value,
            "tool": call.tool,
            "progress": call.progress[-1] if call.progress else None,
        }
        if call.state is CallState.DONE and call.result is not None:
            said["result"] = call.result
            said["arguments"] = call.arguments
            said["html"] = result_html(
                call.tool,
                call.result,
                seconds=call.seconds,
                app_call=call.id if call.app_uri and "error" not in call.result else "",
            )
        return JSONResponse(said)

    # -- MCP Apps ----------------------------------------------------------------------------
    async def open_app(self, request: Request) -> Response:
        """``POST /api/apps`` ``{"call": ID}``: the app of that call's tool, read from its
        server, ready to be framed once (``{"frame": "/apps/frame/TOKEN"}``)."""
        body = await _json_body(request)
        if isinstance(body, str):
            return _problem(400, body)
        call = self.calls.get(str(body.get("call") or ""))
        host = self.hosting.host
        if call is None or host is None:
            return _problem(404, "no such call")
        entry = app_entry(host, call.tool)
        if entry is None:
            return _problem(404, f"{call.tool} has no MCP App (any more)")
        frame = await load_app(host, entry)
        if isinstance(frame, str):
            return _problem(502, frame)
        token = self.apps.put(frame)
        return JSONResponse(
            {"frame": f"/apps/frame/{token}", "uri": frame.uri, "server": frame.server}
        )

    async def app_frame(self, request: Request) -> Response:
        """The app's document, once, with its own Content-Security-Policy (see :mod:`.apps`)."""
        frame = self.apps.take(request.path_params["token"])
        if frame is None:
            return Response("this app link was used already", status_code=404)
        headers = {
            "content-security-policy": frame.csp,
            "x-frame-options": "SAMEORIGIN",
        }
        return HTMLResponse(frame.html, headers=headers)

    # -- resources and prompts ---------------------------------------------------------------
    def _servers(self) -> list[str]:
        return [r.server for r in self.hosting.rows() if r.enabled]

    async def resources(self, request: Request) -> Response:
        host = self.hosting.host
        if host is None:
            return self.render("Resources", "<p>The host is not running.</p>", "/resources")
        names = self._servers()
        found = await asyncio.gather(*(listing(host, s, "resources") for s in names))
        templates = await asyncio.gather(*(listing(host, s, "templates") for s in names))
        return self.render("Resources", resources_body(list(found), list(templates)), "/resources")

    async def read(self, request: Request) -> Response:
        host = self.hosting.host
        query = request.query_params
        server = query.get("server", "")
        uri = query.get("uri", "")
        if query.get("template"):
            values = {k[4:]: v for k, v in query.items() if k.startswith("var:")}
            uri = expand_template(query["template"], values)
        if host is None or not uri:
            return self.render("Resource", '<p class="error">give a URI</p>', "/resources")
        result = await call_utility(host, server, "read_resource", {"uri": uri})
        body = f"<p><a href=/resources>all resources</a></p>{read_html(server, uri, result)}"
        return self.render(f"Resource {uri}", body, "/resources")

    async def prompts(self, request: Request) -> Response:
        host = self.hosting.host
        if host is None:
            return self.render("Prompts", "<p>The host is not running.</p>", "/prompts")
        found = await asyncio.gather(*(listing(host, s, "prompts") for s in self._servers()))
        return self.render("Prompts", prompts_body(list(found)), "/prompts")

    async def prompt(self, request: Request) -> Response:
        host = self.hosting.host
        query = request.query_params
        server, name = query.get("server", ""), query.get("name", "")
        args = {k[4:]: v for k, v in query.items() if k.startswith("arg:") and v != ""}
        if host is None or not name:
            return self.render("Prompt", '<p class="error">give a prompt</p>', "/prompts")
        result = await call_utility(host, server, "get_prompt", {"name": name, "arguments": args})
        body = f"<p><a href=/prompts>all prompts</a></p>{prompt_html(name, result)}"
        return self.render(f"Prompt {name}", body, "/prompts")

    # -- history and log ---------------------------------------------------------------------
    async def history(self, request: Request) -> Response:
        filters = {k: request.query_params.get(k, "") for k in ("server", "tool", "outcome")}
        records = await asyncio.to_thread(lambda: list(read_audit(hermes_home())))
        shown = matching(records, filters)
        return self.render("History", history_body(shown, filters, len(records)), "/history")

    async def log_page(self, request: Request) -> Response:
        lines = self.log.after(0)
        items = "".join(
            f'<li class="level-{esc(x["level"])}"><span class=when>{esc(x["time"])}</span> '
            f"<strong>{esc(x['server'])}</strong> <span class=kind>{esc(x['kind'])}</span> "
            f"{esc(x['text'], 2000)}</li>"
            for x in lines
        )
        body = (
            "<p class=muted>The servers' log messages and the changes of their tool lists, "
            "as they come (the last 500).</p>"
            f'<ol id="log-lines" data-after="{self.log.last}">{items}</ol>'
        )
        return self.render("Log", body, "/log")

    async def log_lines(self, request: Request) -> Response:
        try:
            after = int(request.query_params.get("after", "0"))
        except ValueError:
            after = 0
        return JSONResponse({"lines": self.log.after(after), "last": self.log.last})
