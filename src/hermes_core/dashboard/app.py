"""The dashboard's Starlette application: the pages, their POST actions and ``/api/state``
(what the pages poll for live updates), behind :class:`~.security.Door`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from hermes_core.catalog.catalog import load_catalog
from hermes_core.config.models import ConfigError
from hermes_core.dashboard.add_page import Adder, add_form, parse_add
from hermes_core.dashboard.catalog_actions import InstallRefused, apply_choice, checklist, install
from hermes_core.dashboard.catalog_page import catalog_body, checklist_body
from hermes_core.dashboard.hosting import EditError, Hosting
from hermes_core.dashboard.html import esc, frame, static_file
from hermes_core.dashboard.mcp_page import servers_body
from hermes_core.dashboard.missing_vars import VariableRefused, missing_variables, set_variable
from hermes_core.dashboard.pending_page import answer_of, pending_list
from hermes_core.dashboard.schema_form import ArgumentError, arguments
from hermes_core.dashboard.security import Door, Secrets
from hermes_core.dashboard.tools_page import result_html, tools_body
from hermes_core.dashboard.trust_page import changed_body
from hermes_core.dashboard.workbench import Workbench
from hermes_core.host.server_status import tool_count
from hermes_core.host.trust.store import Acceptance, TrustStoreError
from hermes_core.plugins.errors import PluginError
from hermes_core.sessions.models import Approval
from hermes_core.sessions.store import ApprovalError

__all__ = ["build_app"]


class Pages:
    """The handlers; each page is rendered whole on the server."""

    def __init__(self, hosting: Hosting, keys: Secrets, adder: Adder | None = None) -> None:
        self.hosting = hosting
        self.keys = keys
        self.adder = adder
        self.notices: list[str] = []
        self.errors: list[str] = []
        """What the next page shows after a redirect (one browser session)."""

    def render(self, title: str, body: str, active: str) -> HTMLResponse:
        return self._page(title, body, active)

    def _page(self, title: str, body: str, active: str, *, error: str = "") -> HTMLResponse:
        notice = " · ".join(self.notices)
        problems = [*self.errors, *([self.hosting.problem] if self.hosting.problem else [])]
        self.notices.clear()
        self.errors.clear()
        return HTMLResponse(
            frame(title, body, active=active, notice=notice, error=error or " ".join(problems))
        )

    def _back(self, where: str, said: str) -> Response:
        self.notices.append(said)
        return RedirectResponse(where, status_code=303)

    def _missing(self) -> dict[str, list[str]]:
        try:
            return missing_variables(self.hosting.configured())
        except (EditError, ConfigError):
            return {}

    async def servers(self, request: Request) -> Response:
        warnings = "".join(f'<p class="warn">{esc(w)}</p>' for w in self.hosting.warnings)
        missing = await asyncio.to_thread(self._missing)
        body = warnings + servers_body(self.hosting.rows(), self.keys.csrf, missing)
        return self._page("MCP servers", body, "/")

    async def set_env(self, request: Request) -> Response:
        """Set one of the server's missing ``${VAR}`` in ``.env`` (the value is never shown)."""
        name = request.path_params["name"]
        form = {k: v[-1] for k, v in parse_qs((await request.body()).decode()).items()}
        variable = form.get("variable", "")
        try:
            config = self.hosting.configured().get(name)
            if config is None:
                raise EditError(f"no server named {name!r} in config.yaml")
            await asyncio.to_thread(set_variable, config, variable, form.get("value", ""))
        except (EditError, VariableRefused, ConfigError) as exc:
            return self._back_error(str(exc), "/")
        await self.hosting.reload()
        return self._back("/", f"{variable} is set in .env (mode 0600)")

    def _entry_of(self, name: str) -> str | None:
        try:
            config = self.hosting.configured().get(name)
        except EditError:
            return None
        return None if config is None else repr(config)

    async def add_page(self, request: Request) -> Response:
        return self._page("Add a server", add_form(self.keys.csrf), "/")

    async def add(self, request: Request) -> Response:
        """``hermes mcp add`` from the page (the CLI's own add, probed, secrets lifted)."""
        form = {k: v[-1] for k, v in parse_qs((await request.body()).decode()).items()}
        kept = {k: form.get(k, "") for k in ("name", "target")}
        if self.adder is None:
            said = "this dashboard cannot add servers: use `hermes mcp add`"
            return self._page("Add a server", add_form(self.keys.csrf, kept=kept), "/", error=said)
        try:
            wanted = parse_add(form)
        except ValueError as exc:
            body = add_form(self.keys.csrf, kept=kept)
            return self._page("Add a server", body, "/", error=str(exc))
        before = await asyncio.to_thread(self._entry_of, wanted.name)
        code, said = await asyncio.to_thread(self.adder, wanted)
        after = await asyncio.to_thread(self._entry_of, wanted.name)
        if code != 0 and (after is None or after == before):  # nothing was written
            body = add_form(self.keys.csrf, said, kept)
            return self._page("Add a server", body, "/", error="nothing was added")
        await self.hosting.reload()
        return self._back("/", said.replace("\n", " · "))

    async def edit(self, request: Request) -> Response:
        name, action = request.path_params["name"], request.path_params["action"]
        try:
            said = await self.hosting.edit(name, action)
        except EditError as exc:
            return self._page(
                "MCP servers",
                servers_body(self.hosting.rows(), self.keys.csrf),
                "/",
                error=str(exc),
            )
        return self._back("/", said)

    def _tools(self, extra: str = "", error: str = "", selected: str = "") -> HTMLResponse:
        host = self.hosting.host
        entries = host.tools(include_gated=True) if host else []
        unoffered = host.unoffered_tools if host else {}
        held = changed_body(self.hosting.factory.trust_store(), self.keys.csrf)
        rows = self.hosting.rows()
        body = held + tools_body(entries, rows, unoffered, self.keys.csrf, selected, extra)
        return self._page("Tools", body, "/tools", error=error)

    async def trust(self, request: Request) -> Response:
        """Accept the changed definition of one tool (``hermes mcp trust SERVER TOOL``)."""
        server = request.path_params["server"]
        form = {k: v[-1] for k, v in parse_qs((await request.body()).decode()).items()}
        tool, digest = form.get("tool", ""), form.get("digest", "")
        try:
            done = self.hosting.factory.trust_store().accept(server, tool, digest)
        except (TrustStoreError, ValueError) as exc:
            return self._tools(error=str(exc))
        if done is Acceptance.CHANGED_AGAIN:  # the page shows the definition waiting now
            return self._tools(error=f"{server}/{tool} changed again, review it: not accepted")
        if done is Acceptance.NOT_WAITING:
            return self._tools(error=f"no change of {tool!r} waits for {server!r}")
        host = self.hosting.host
        where = "/tools"
        if host is not None and server in {row.server for row in self.hosting.rows()}:
            await host.refresh_tools(server)  # offered again at once, with the new definition
            entry = next((e for e in host.registry.snapshot(server) if e.tool == tool), None)
            where += f"?tool={quote(entry.name, safe='')}" if entry else ""
        return self._back(where, f"accepted {server}/{tool}: its new definition is pinned")

    async def tools(self, request: Request) -> Response:
        return self._tools(selected=request.query_params.get("tool", ""))

    async def call(self, request: Request) -> Response:
        form = {k: v[-1] for k, v in parse_qs((await request.body()).decode()).items()}
        host = self.hosting.host
        name = form.get("tool", "")
        if host is None:
            return self._tools(error="the host is not running", selected=name)
        entry = host.registry.get(name)
        try:  # a name the host does not offer gets its refusal, as at every door
            args = arguments(entry.input_schema, form) if entry is not None else {}
        except ArgumentError as exc:
            return self._tools(error=str(exc), selected=name)
        result = await host.call_tool(name, args)
        return self._tools(extra=result_html(name, result), selected=name)

    async def catalog(self, request: Request) -> Response:
        manager = self.hosting.manager
        try:
            found = await asyncio.to_thread(load_catalog, manager)
            servers = self.hosting.configured()
        except (EditError, PluginError) as exc:
            return self._page("Catalog", "", "/catalog", error=str(exc))
        body = catalog_body(found, servers, manager.display_names, self.keys.csrf)
        return self._page("Catalog", body, "/catalog")

    async def install(self, request: Request) -> Response:
        name = request.path_params["name"]
        form = parse_qs((await request.body()).decode())
        keys = {k.removeprefix("key:"): v[-1] for k, v in form.items() if k.startswith("key:")}
        try:
            done = await asyncio.to_thread(install, self.hosting.manager, name, keys)
        except (InstallRefused, ConfigError, PluginError) as exc:
            return self._back_error(str(exc))
        await self.hosting.reload()
        return self._back(f"/catalog/{quote(name, safe='')}/configure", "; ".join(done))

    def _back_error(self, said: str, where: str = "/catalog") -> Response:
        self.errors.append(said)
        return RedirectResponse(where, status_code=303)

    async def configure(self, request: Request) -> Response:
        name = request.path_params["name"]
        try:
            found = await asyncio.to_thread(checklist, self.hosting.manager, name)
        except (InstallRefused, ConfigError, PluginError) as exc:
            return self._page(f"Configure {name}", "", "/catalog", error=str(exc))
        return self._page(
            f"Configure {name}", checklist_body(name, found, self.keys.csrf), "/catalog"
        )

    async def choose(self, request: Request) -> Response:
        name = request.path_params["name"]
        form = parse_qs((await request.body()).decode())
        try:
            said = await asyncio.to_thread(
                apply_choice,
                self.hosting.manager,
                name,
                form.get("all", []),
                form.get("family", []),
                set(form.get("pick", [])),
            )
        except (InstallRefused, ConfigError, PluginError) as exc:
            return self._back_error(str(exc))
        await self.hosting.reload()
        return self._back("/catalog", said)

    def _open(self) -> list[Approval]:
        return self.hosting.sessions.open_approvals()

    async def pending(self, request: Request) -> Response:
        items = await asyncio.to_thread(self._open)
        return self._page("Pending questions", pending_list(items, self.keys.csrf), "/pending")

    async def pending_fragment(self, request: Request) -> Response:
        items = await asyncio.to_thread(self._open)
        return HTMLResponse(pending_list(items, self.keys.csrf))

    async def answer(self, request: Request) -> Response:
        approval_id = int(request.path_params["id"])
        form = parse_qs((await request.body()).decode())
        store = self.hosting.sessions
        item = await asyncio.to_thread(store.approval, approval_id)
        if item is None:
            return self._back_error(f"no question #{approval_id}", "/pending")
        decision = (form.get("decision") or [""])[-1]
        try:
            answer = answer_of(item, form) if decision != "deny" else None
            done = await asyncio.to_thread(
                lambda: store.resolve_approval(
                    approval_id, decision, answer=answer, by="hermes dashboard"
                )
            )
        except (ValueError, ApprovalError) as exc:
            return self._back_error(str(exc), "/pending")
        return self._back("/pending", f"#{done.id} {done.state} ({done.decision})")

    async def state(self, request: Request) -> Response:
        rows = [
            {
                "server": r.server,
                "connection": r.connection,
                "enabled": r.enabled,
                "offered": r.offered,
                "tools": r.tools,
                "tools_shown": tool_count(r.tools, r.host_tools),
            }
            for r in self.hosting.rows()
        ]
        items = await asyncio.to_thread(self._open)
        return JSONResponse({"servers": rows, "pending": [a.id for a in items]})

    async def static(self, request: Request) -> Response:
        found = static_file(request.path_params["name"])
        if found is None:
            return Response("not found", status_code=404)
        text, kind = found
        return Response(text, media_type=kind)


def build_app(hosting: Hosting, keys: Secrets, port: int, adder: Adder | None = None) -> Door:
    """The application for *hosting*, behind the door for *port*; *adder* is the CLI's
    ``hermes mcp add`` (the page's *Add a server*)."""
    pages = Pages(hosting, keys, adder)
    work = Workbench(hosting, pages.render)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await hosting.start()
        work.attach()
        try:
            yield
        finally:
            await work.close()
            await hosting.close()

    routes = [
        Route("/", pages.servers),
        Route("/servers/add", pages.add_page),
        Route("/servers/add", pages.add, methods=["POST"]),
        Route("/servers/{name}/env", pages.set_env, methods=["POST"]),
        Route("/servers/{name}/{action}", pages.edit, methods=["POST"]),
        Route("/tools", pages.tools),
        Route("/api/calls", work.start_call, methods=["POST"]),
        Route("/api/calls/{id}", work.call_state),
        Route("/api/apps", work.open_app, methods=["POST"]),
        Route("/apps/frame/{token}", work.app_frame),
        Route("/resources", work.resources),
        Route("/resources/read", work.read),
        Route("/prompts", work.prompts),
        Route("/prompts/get", work.prompt),
        Route("/history", work.history),
        Route("/log", work.log_page),
        Route("/api/log", work.log_lines),
        Route("/tools/call", pages.call, methods=["POST"]),
        Route("/trust/{server}", pages.trust, methods=["POST"]),
        Route("/catalog", pages.catalog),
        Route("/catalog/{name}/install", pages.install, methods=["POST"]),
        Route("/catalog/{name}/configure", pages.configure),
        Route("/catalog/{name}/configure", pages.choose, methods=["POST"]),
        Route("/pending", pages.pending),
        Route("/pending/list", pages.pending_fragment),
        Route("/pending/{id:int}", pages.answer, methods=["POST"]),
        Route("/api/state", pages.state),
        Route("/static/{name}", pages.static),
    ]
    return Door(Starlette(routes=routes, lifespan=lifespan), keys, port)
