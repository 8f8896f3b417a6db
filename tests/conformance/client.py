"""Conformance adapter: the official MCP client conformance suite drives *our host* through this.

``@modelcontextprotocol/conformance`` (``conformance client --command "python
tests/conformance/client.py"``) starts a mock server per scenario and spawns this script with the
server's URL as the last argument; the scenario name is in ``MCP_CONFORMANCE_SCENARIO`` and, for
scenarios with pre-registered credentials, a JSON object is in ``MCP_CONFORMANCE_CONTEXT``.  The
script exits 0 once it did what the scenario expects, 1 otherwise.

Everything goes through :class:`~hermes_core.host.host.MCPHost` exactly as an agent uses it: one
``HostServer`` (Streamable HTTP), ``host.start()`` (initialize, list tools), ``host.call_tool``.
For ``auth/*`` scenarios the server gets ``auth=`` from
``hermes_core.auth.oauth.build_oauth_provider`` when that module exists (see :func:`oauth_auth`).

Run one scenario by hand (Node 22 first on PATH)::

    conformance client --command "python tests/conformance/client.py" --scenario tools_call
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
import os
import socket
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest

SERVER = "conformance"
# auth/basic-cimd requires exactly this client_id (anything else is a WARNING, i.e. a failure).
CIMD_URL = "https://conformance-test.local/client-metadata.json"

# scenario → (the server's tool name, arguments); other scenarios only connect and list tools.
TOOL_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
}

log = logging.getLogger("conformance-client")


class HeadlessBrowser:
    """Stands in for the user's browser: the mock authorization endpoint answers at once with a
    302 to the redirect URI carrying ``code``, ``state`` (and ``iss``), so a GET that does not
    follow redirects yields the callback's query string."""

    def __init__(self) -> None:
        self.query: dict[str, str] = {}

    async def redirect(self, authorization_url: str) -> None:
        self.query = await asyncio.to_thread(_redirect_query, authorization_url)

    async def callback(self) -> Any:
        from mcp.shared.auth import AuthorizationCodeResult

        return AuthorizationCodeResult(
            code=self.query["code"], state=self.query.get("state"), iss=self.query.get("iss")
        )


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _redirect_query(url: str) -> dict[str, str]:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(url, timeout=10)
    except urllib.error.HTTPError as exc:
        location = exc.headers.get("Location", "")
    else:
        raise RuntimeError(f"the authorization endpoint did not redirect: {url}")
    query = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)
    return {key: values[0] for key, values in query.items()}


def headless_open(authorization_url: str) -> str:
    """A "browser" for providers that wait on their own loopback listener: follow the
    authorization endpoint's redirect to it, in the background (the caller may be the loop)."""

    def visit() -> None:
        try:
            urllib.request.urlopen(authorization_url, timeout=10).close()
        except OSError as exc:
            log.warning("headless browser: %s", exc)

    threading.Thread(target=visit, daemon=True).start()
    return "Opened headlessly (conformance adapter)."


def authorization_server(url: str) -> str:
    """The first ``authorization_servers`` entry of *url*'s protected resource metadata
    (RFC 9728: the path-specific location first, then the root one)."""
    parts = urllib.parse.urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    for candidate in dict.fromkeys(
        (
            f"{origin}/.well-known/oauth-protected-resource{path}",
            f"{origin}/.well-known/oauth-protected-resource",
        )
    ):
        try:
            with urllib.request.urlopen(candidate, timeout=10) as response:
                servers = json.load(response).get("authorization_servers") or []
        except (OSError, ValueError):
            continue
        if servers:
            return str(servers[0])
    raise RuntimeError(f"no protected resource metadata names an authorization server for {url}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def oauth_auth(url: str, context: Mapping[str, Any]) -> dict[str, Any]:
    """``{"auth": provider}`` for the server entry, or ``{}`` while the host has no OAuth.

    The provider comes from ``hermes_core.auth.oauth.build_oauth_provider``; it is given, of
    the arguments below, the ones its signature names (so the adapter need not change as that
    API settles): the server's name and URL, its ``oauth:`` config (pre-registered
    ``client_id``/``client_secret`` from the scenario, a loopback ``redirect_uri`` on a free
    port, so parallel scenarios never collide), the CIMD URL, and a headless browser: either
    the SDK's ``redirect_handler``/``callback_handler`` pair or a ``browser`` that follows the
    redirect to the provider's own listener.  Tokens go to a fresh ``HERMES_HOME`` (set in
    :func:`main`), so parallel scenarios never share them.
    """
    try:
        from hermes_core.auth.oauth import build_oauth_provider
    except ImportError as exc:
        log.warning("no OAuth in the host yet (%s): connecting without auth", exc)
        return {}
    if "auth" not in {f.name for f in dataclasses.fields(HostServer)}:
        log.warning("HostServer has no 'auth' field yet: connecting without auth")
        return {}
    with contextlib.suppress(ImportError):
        from hermes_core.auth import callback

        callback.open_browser = headless_open  # looked up late by BrowserFlow, by design
    browser = HeadlessBrowser()
    port = free_port()
    redirect_uri = f"http://127.0.0.1:{port}/callback"
    oauth: dict[str, Any] = {
        "redirect_uri": redirect_uri,
        "redirect_port": port,
        "client_name": "hermes-conformance",
        "client_metadata_url": CIMD_URL,
        "timeout": 20,
    }
    for key in ("client_id", "client_secret", "signing_algorithm"):
        if context.get(key):
            oauth[key] = context[key]
    home = Path(os.environ["HERMES_HOME"])
    if context.get("private_key_pem"):
        key_file = home / "client-key.pem"
        key_file.write_text(str(context["private_key_pem"]))
        oauth["private_key"] = str(key_file)
    if "client-credentials" in os.environ.get("MCP_CONFORMANCE_SCENARIO", ""):
        oauth["grant"] = "client_credentials"
    if context.get("valid_jwt"):  # auth/wif-jwt-bearer: the workload's own JWT (RFC 7523)
        oauth["grant"] = "jwt_bearer"
        oauth["assertion"] = context["valid_jwt"]
        for key in ("redirect_uri", "redirect_port", "client_metadata_url"):
            oauth.pop(key, None)  # nothing to redirect: no browser in this grant
    if context.get("idp_id_token"):  # auth/cross-app-access-*: SEP-990 (ID-JAG)
        oauth["grant"] = "identity_assertion"
        # The MCP server's authorization server is configuration for this grant (never taken
        # from the server at login); an admin would look it up once, as this does.
        oauth["issuer"] = await asyncio.to_thread(authorization_server, url)
        oauth["id_token"] = context["idp_id_token"]
        for key in ("idp_issuer", "idp_token_endpoint", "idp_client_id", "idp_client_secret"):
            if context.get(key):
                oauth[key] = context[key]
    offered: dict[str, Any] = {
        "name": SERVER,
        "server": SERVER,
        "server_name": SERVER,
        "url": url,
        "server_url": url,
        "oauth": oauth,
        "oauth_cfg": oauth,
        "config": oauth,
        "client_id": context.get("client_id"),
        "client_secret": context.get("client_secret"),
        "redirect_uri": redirect_uri,
        "redirect_port": port,
        "client_metadata_url": CIMD_URL,
        "redirect_handler": browser.redirect,
        "callback_handler": browser.callback,
        "browser": headless_open,
        "interactive": True,  # a login may run: the headless browser answers it
        "paste": False,
        "home": home,
        "hermes_home": home,
    }
    parameters = inspect.signature(build_oauth_provider).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        kwargs = offered
    else:
        kwargs = {k: v for k, v in offered.items() if k in parameters}
    missing = [
        name
        for name, p in parameters.items()
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        and name not in kwargs
    ]
    if missing:
        raise TypeError(
            f"build_oauth_provider{inspect.signature(build_oauth_provider)} needs {missing}, "
            "which tests/conformance/client.py (oauth_auth) does not know how to give"
        )
    provider = build_oauth_provider(**kwargs)
    if inspect.isawaitable(provider):
        provider = await provider
    return {"auth": provider}


async def accept_defaults(request: ElicitationRequest) -> ElicitationAnswer:
    """The user accepts without typing anything: the host fills in the schema's defaults."""
    return ElicitationAnswer("accept", {})


async def call_each(host: MCPHost, tools: dict[str, str], calls: list[tuple[str, Any]]) -> int:
    """Call each (tool, arguments) in turn through the host; 1 if any is missing or fails."""
    failed = 0
    for tool, arguments in calls:
        if tool not in tools:
            print(f"the host offers no tool {tool!r}", file=sys.stderr)
            failed = 1
            continue
        result = await host.call_tool(tools[tool], arguments)
        print(json.dumps(result))
        failed |= 1 if "error" in result or result.get("isError") else 0
    return failed


def example_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A value of the declared type for each required property (enough for the mocks)."""
    samples = {"string": "us-west1", "integer": 1, "number": 1.5, "boolean": True}
    samples |= {"object": {}, "array": [], "null": None}
    properties = schema.get("properties") or {}
    return {
        name: samples.get(str((properties.get(name) or {}).get("type")), "x")
        for name in schema.get("required") or []
    }


async def call_every_offered_tool(
    host: MCPHost, tools: dict[str, str], context: Mapping[str, Any]
) -> int:
    """http-invalid-tool-headers: a tool with invalid x-mcp-header designations must not be
    offered at all, the valid one must work: call whatever the host offers."""
    entries = {e.tool: e for e in host.tools() if not e.utility}
    calls = [(tool, example_arguments(entries[tool].input_schema)) for tool in sorted(tools)]
    return await call_each(host, tools, calls)


async def echo_input_schema(
    host: MCPHost, tools: dict[str, str], context: Mapping[str, Any]
) -> int:
    """json-schema-2020-12-preservation: send back the input schema the host offers for the
    rich tool, as the scenario's echo tool asks, so the suite can compare it with its own."""
    entries = {e.tool: e for e in host.tools() if not e.utility}
    focal = entries.get("json_schema_2020_12_tool")
    if focal is None:
        print("the host offers no tool 'json_schema_2020_12_tool'", file=sys.stderr)
        return 1
    return await call_each(host, tools, [("json_schema_echo", {"schema": focal.input_schema})])


async def multi_round_trips(
    host: MCPHost, tools: dict[str, str], context: Mapping[str, Any]
) -> int:
    """sep-2322-client-request-state: tools that answer InputRequiredResult (an elicitation),
    with and without request state, one answered with no resultType, and an unrelated call
    made alongside the first."""
    first, unrelated = await asyncio.gather(
        call_each(host, tools, [("test_mrtr_echo_state", {})]),
        call_each(host, tools, [("test_mrtr_unrelated", {})]),
    )
    rest = await call_each(
        host, tools, [("test_mrtr_no_state", {}), ("test_mrtr_no_result_type", {})]
    )
    return first | unrelated | rest


Scenario = Callable[[MCPHost, dict[str, str], Mapping[str, Any]], Awaitable[int]]
SCENARIOS: dict[str, Scenario] = {
    "http-invalid-tool-headers": call_every_offered_tool,
    "json-schema-2020-12-preservation": echo_input_schema,
    "sep-2322-client-request-state": multi_round_trips,
}


async def run(scenario: str, url: str, context: Mapping[str, Any]) -> int:
    extra = await oauth_auth(url, context) if scenario.startswith("auth/") else {}
    server = HostServer(
        SERVER,
        url=url,
        transport="streamable_http",
        connect_timeout=25.0,
        timeout=25.0,
        **extra,
    )
    host = MCPHost([server], elicitor=accept_defaults)
    try:
        error = (await host.start())[SERVER]
        if error is not None:
            print(f"connect failed: {error}", file=sys.stderr)
            return 1
        tools = {entry.tool: entry.name for entry in host.tools() if not entry.utility}
        print(f"tools: {sorted(tools)}")
        if scenario in SCENARIOS:
            return await SCENARIOS[scenario](host, tools, context)
        if context.get("toolCalls"):  # the scenario names the calls to make (SEP-2243 headers)
            calls = [(c["name"], c.get("arguments") or {}) for c in context["toolCalls"]]
            return await call_each(host, tools, calls)
        if scenario in TOOL_CALLS:
            tool, arguments = TOOL_CALLS[scenario]
        elif scenario.startswith("auth/") and tools:
            # The auth mocks expose one tool; calling it exercises the token (and step-up).
            tool, arguments = sorted(tools)[0], {}
        else:
            return 0
        if tool not in tools:
            print(f"the server offers no tool {tool!r}", file=sys.stderr)
            return 1
        result = await host.call_tool(tools[tool], arguments)
        print(json.dumps(result))
        return 1 if "error" in result or result.get("isError") else 0
    finally:
        await host.close()


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if len(argv) < 2:
        print("usage: client.py <server-url>  (MCP_CONFORMANCE_SCENARIO set)", file=sys.stderr)
        return 2
    url = argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory(prefix="hermes-conformance-") as home:
        os.environ["HERMES_HOME"] = home  # token files and config never touch the real home
        return asyncio.run(run(scenario, url, context))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
