"""Every use of the ``mcp`` SDK's private API, in one place.

The SDK offers no public way to do a few things the host needs: read a tool listing raw
(one malformed tool must not hide the rest), tell the session which tools a lenient listing
found, see the process a stdio transport starts (for its exit code), trim the handler table
of an ``MCPServer`` (``hermes mcp serve`` offers tools only), and keep OAuth tokens across
processes (:class:`OAuthProviderBase` routes the OAuth provider's private hooks
``_initialize``/``_auth_flow`` and its ``context`` to names of ours, which
``HermesOAuthProvider`` uses).  Each such touch goes through this module, and :func:`missing`
lists what the installed SDK no longer has: ``tests/hermes_core/test_sdk_compat.py`` fails
loudly on an SDK upgrade that breaks one, instead of a silent degradation in the field.

``pyproject.toml`` pins ``mcp`` to the minor version these were checked against.
Importing this package imports nothing of the SDK (each function imports what it touches), so
the host imports it at the top of its modules; the OAuth provider's base class, which subclasses
the SDK's ``OAuthClientProvider``, is in :mod:`hermes_core._sdk_compat.oauth`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from mcp import ClientSession
    from mcp.shared.dispatcher import CallOptions
    from mcp_types import (
        ErrorData,
        InputRequest,
        InputRequiredResult,
        InputResponse,
        InputResponses,
        ListToolsResult,
        PaginatedRequestParams,
        Tool,
    )

_R = TypeVar("_R")

__all__ = [
    "OAUTH_PROVIDER_CONTEXT",
    "OAUTH_PROVIDER_INTERNALS",
    "TASKS_EXTENSION",
    "TESTED_SDK",
    "InputRoundsExceeded",
    "absorb_tool_listing",
    "envelope_handshake",
    "is_output_schema_violation",
    "is_sse_event_too_large",
    "is_sse_stream_failure",
    "list_tools_page",
    "missing",
    "modern_answer_to_initialize",
    "quiet_sdk_spans",
    "request_handlers",
    "run_input_required",
    "send_raw_request",
    "tracing_on",
    "wrap_stdio_spawn",
]

TESTED_SDK = "2.3"

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The tasks extension's identifier (SEP-2663; :mod:`hermes_core._sdk_compat.tasks`)."""
"""The ``mcp`` minor version whose private API this module was checked against."""

#: What ``HermesOAuthProvider`` overrides or calls on ``mcp.client.auth.OAuthClientProvider``.
OAUTH_PROVIDER_INTERNALS = (
    "_initialize",
    "_auth_flow",
    "_refresh_token",
    "_handle_refresh_response",
    "_add_auth_header",
)
#: The attributes of the provider's ``context`` it reads or sets.
OAUTH_PROVIDER_CONTEXT = (
    "can_refresh_token",
    "client_info",
    "client_metadata",
    "client_metadata_url",
    "current_tokens",
    "oauth_metadata",
    "token_expiry_time",
)
_SPAWN = "_create_platform_compatible_process"
#: How the SDK words what it raises as bare exceptions, with nothing else to tell them apart:
#: ``ClientSession.call_tool`` refusing a result against the tool's ``outputSchema``
#: (``RuntimeError``), and httpx2's SSE reader refusing an event over ``max_event_size``
#: (``SSEError``, also raised for a wrong content type), which Streamable HTTP hands to the
#: waiting request as a ``CONNECTION_CLOSED`` error worded ``SSE stream failed: …``.
#: :func:`missing` checks the SDK still says them.
OUTPUT_SCHEMA_VIOLATIONS = (
    "Invalid structured content returned by tool",
    "has an output schema but did not return structured content",
    "Invalid schema for tool",
)
SSE_EVENT_TOO_LARGE = "byte limit"
SSE_STREAM_FAILED = "SSE stream failed: "


async def send_raw_request(
    session: ClientSession,
    method: str,
    params: Mapping[str, object] | None,
    *,
    name: str | None = None,
) -> dict[str, object]:
    """Send *method* on a ``ClientSession`` and return the raw JSON result (unvalidated).

    The request carries what ``send_request`` adds to every request (the 2026-07-28
    envelope's per-request stamp, the session's read timeout); only the result's validation
    into models is skipped, so the caller reads plain JSON.  *name* is the request's
    ``Mcp-Name`` header on Streamable HTTP (the tasks extension routes ``tasks/*`` by the
    task's id), for methods the SDK's own table does not name.
    """
    data: dict[str, object] = {"method": method}
    if params is not None:
        data["params"] = dict(params)
    opts: CallOptions = {}
    stamp = getattr(session, "_stamp", None)  # i.e. session._stamp
    if stamp is not None:
        stamp(data, opts)
    if name is not None:
        opts.setdefault("headers", {})["mcp-name"] = name
    timeout = getattr(session, "_session_read_timeout_seconds", None)
    if timeout is not None:
        opts["timeout"] = timeout
    sent = data.get("params")  # what we set, or what the stamp made of it: a dict
    return await session._dispatcher.send_raw_request(
        method, sent if isinstance(sent, dict) else None, opts
    )


class _ListedTool:
    """What ``ClientSession._absorb_tool_listing`` reads of a tool, without building one."""

    __slots__ = ("input_schema", "name", "output_schema")

    def __init__(self, tool: Mapping[str, object]) -> None:
        self.name = tool["name"]
        self.input_schema = tool["inputSchema"]
        self.output_schema = tool.get("outputSchema")


def absorb_tool_listing(
    session: ClientSession,
    tools: Sequence[Mapping[str, object]],
    next_cursor: str | None,
    *,
    complete: bool,
) -> tuple[list[Mapping[str, object]], list[str]]:
    """Tell *session* which tools a raw listing (plain JSON) found: it checks results against
    their output schemas, and reads them from light stand-ins, not models.

    Returns the tools the session keeps and one ``'name': reason`` line per tool it dropped:
    on 2026-07-28 the SDK drops a tool whose ``x-mcp-header`` designations are invalid
    (SEP-2243), which a client MUST NOT call."""
    from mcp import types

    light = [_ListedTool(tool) for tool in tools]
    dropped = _invalid_header_tools(session, light)
    absorb = getattr(session, "_absorb_tool_listing", None)
    if absorb is None:
        return list(tools), dropped
    result = types.ListToolsResult.model_construct(tools=light, next_cursor=next_cursor)
    kept = absorb(result, complete=complete).tools
    if len(kept) == len(light):
        return list(tools), dropped
    names = {t.name for t in kept}
    return [tool for tool in tools if tool["name"] in names], dropped


async def list_tools_page(
    session: ClientSession, params: PaginatedRequestParams | None
) -> tuple[ListToolsResult, list[str]]:
    """``session.list_tools(params=params)``, and the tools the SDK dropped from it.

    The SDK's ``list_tools`` drops (2026-07-28, SEP-2243) every tool whose ``x-mcp-header``
    designations are invalid, with only a log line; this keeps its behaviour (the same request,
    the same ``_absorb_tool_listing``) and also returns one ``'name': reason`` line per dropped
    tool, for ``hermes mcp status``."""
    from mcp import types

    request = types.ListToolsRequest(params=params)
    result = await session.send_request(request, types.ListToolsResult)
    dropped = _invalid_header_tools(session, result.tools)
    complete = (params is None or params.cursor is None) and result.next_cursor is None
    return session._absorb_tool_listing(result, complete=complete), dropped


def _invalid_header_tools(session: ClientSession, tools: Sequence[_ListedTool | Tool]) -> list[str]:
    from mcp.shared.inbound import find_invalid_x_mcp_header
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if getattr(session, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
        return []
    dropped = []
    for tool in tools:
        reason = find_invalid_x_mcp_header(tool.input_schema)
        if reason is not None:
            dropped.append(f"{tool.name!r}: invalid x-mcp-header ({reason})")
    return dropped


def envelope_handshake(session: ClientSession) -> None:
    """Make *session*'s ``initialize`` carry the per-request envelope: the
    ``MCP-Protocol-Version`` and ``Mcp-Method`` headers and ``_meta`` with ``protocolVersion``,
    ``clientInfo`` and ``clientCapabilities``, all at the handshake version offered.

    The 2026-07-28 revision requires both on every request (SEP-2575, SEP-2243); a
    handshake-era server ignores them (``_meta`` is allowed on every request; the SDK's own
    servers route an ``initialize`` to the handshake era whatever it carries).  The SDK stamps
    only requests after ``adopt()``: before it, its stamp only forbids cancelling
    ``initialize``, which this keeps.  ``adopt()`` replaces this stamp."""
    from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_PROTOCOL_VERSION_HEADER
    from mcp_types import (
        CLIENT_CAPABILITIES_META_KEY,
        CLIENT_INFO_META_KEY,
        PROTOCOL_VERSION_META_KEY,
    )
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    before = session._stamp
    version = LATEST_HANDSHAKE_VERSION

    def stamp(data: dict[str, object], opts: CallOptions) -> None:
        before(data, opts)
        if data.get("method") != "initialize":
            return
        params = data.get("params")
        if not isinstance(params, dict):  # the SDK's initialize always has them
            params = data["params"] = {}
        meta = params.setdefault("_meta", {})
        meta[PROTOCOL_VERSION_META_KEY] = version
        meta[CLIENT_INFO_META_KEY] = params.get("clientInfo", {})
        meta[CLIENT_CAPABILITIES_META_KEY] = params.get("capabilities", {})
        headers = opts.setdefault("headers", {})
        headers[MCP_PROTOCOL_VERSION_HEADER] = version
        headers[MCP_METHOD_HEADER] = "initialize"

    session._stamp = stamp


#: ``ClientSession.initialize`` raises ``RuntimeError`` with this text, then the version.
_UNSUPPORTED_ANSWER = "Unsupported protocol version from the server: "


def modern_answer_to_initialize(exc: BaseException) -> str | None:
    """The 2026-07-28-era version a server answered ``initialize`` with, from the SDK's
    refusal, or None (another error, or an older unknown version)."""
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    if not isinstance(exc, RuntimeError) or not str(exc).startswith(_UNSUPPORTED_ANSWER):
        return None
    version = str(exc).removeprefix(_UNSUPPORTED_ANSWER).strip()
    # Revisions are dates: one later than the newest handshake revision is a modern one.
    return version if version > LATEST_HANDSHAKE_VERSION else None


def is_output_schema_violation(exc: BaseException) -> bool:
    """The SDK's refusal of a ``tools/call`` result that breaks the tool's ``outputSchema``
    (a bare ``RuntimeError``: its words are all that sets it apart)."""
    text = str(exc)
    return type(exc) is RuntimeError and any(words in text for words in OUTPUT_SCHEMA_VIOLATIONS)


def is_sse_stream_failure(exc: BaseException) -> bool:
    """Streamable HTTP's error for a request whose SSE answer stream broke (the server's
    connection may well be alive): ``CONNECTION_CLOSED``, but not the connection closing."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    return (
        isinstance(exc, MCPError)
        and exc.code == CONNECTION_CLOSED
        and exc.message.startswith(SSE_STREAM_FAILED)
    )


def is_sse_event_too_large(exc: BaseException) -> bool:
    """httpx2's refusal of a server-sent event over the size limit: the ``SSEError`` itself
    (also raised for a wrong content type), or Streamable HTTP's error passing it on."""
    import httpx2

    if isinstance(exc, httpx2.SSEError) or is_sse_stream_failure(exc):
        return SSE_EVENT_TOO_LARGE in str(exc)
    return False


def wrap_stdio_spawn(wrap: Callable[[Callable[..., object]], Callable[..., object]]) -> None:
    """Replace the stdio transport's process spawner with ``wrap(original)`` (once: a
    wrapper marked ``_hermes_capture`` is left alone).  Does nothing when the SDK has none."""
    import mcp.client.stdio as sdk_stdio

    original = getattr(sdk_stdio, _SPAWN, None)
    if original is None or getattr(original, "_hermes_capture", False):
        return
    wrapped = wrap(original)
    setattr(wrapped, "_hermes_capture", True)  # noqa: B010 - a mark on a function
    setattr(sdk_stdio, _SPAWN, wrapped)


def tracing_on() -> bool:
    """Whether a tracer provider is set (telemetry on): only then does the SDK's request put
    trace context into what it sends (a call that takes another way must not skip that)."""
    from opentelemetry import trace

    return type(trace.get_tracer_provider()) is not trace.ProxyTracerProvider


def quiet_sdk_spans() -> None:
    """Make the SDK's span around each request it sends cost nothing while no tracer provider
    is set (telemetry off): its dispatcher's ``otel_span`` is replaced (once) by one that hands
    back a reusable no-op span then, and defers to the SDK's own once a provider is set.  With
    no provider the SDK's span is a non-recording one holding its parent's context, so what is
    injected into a request's ``_meta`` is the same either way."""
    import contextlib

    import mcp.shared.jsonrpc_dispatcher as dispatcher
    from opentelemetry import trace

    original = getattr(dispatcher, "otel_span", None)
    if original is None or getattr(original, "_hermes_quiet", False):
        return
    nothing = contextlib.nullcontext(trace.INVALID_SPAN)
    get_provider = trace.get_tracer_provider
    no_provider = trace.ProxyTracerProvider

    def otel_span(name: str, **options: object) -> AbstractContextManager[object]:
        if type(get_provider()) is no_provider:
            return nothing
        span: AbstractContextManager[object] = original(name, **options)
        return span

    otel_span._hermes_quiet = True  # type: ignore[attr-defined]
    setattr(dispatcher, "otel_span", otel_span)  # noqa: B010 - a name the SDK does not export


async def run_input_required(
    first: object,
    *,
    dispatch: Callable[[str, InputRequest], Awaitable[InputResponse | ErrorData]],
    retry: Callable[[InputResponses | None, str | None], Awaitable[_R | InputRequiredResult]],
    max_rounds: int,
) -> _R:
    """The SDK's SEP-2322 driver (2026-07-28): answer an ``InputRequiredResult``'s requests
    through *dispatch* and send the request again through *retry*, at most *max_rounds* times.
    ``mcp.Client`` runs it; a ``ClientSession`` has no public way to.  *first* is the
    ``InputRequiredResult`` the request was answered with (anything else is a ``TypeError``)."""
    from mcp.client._input_required import (
        InputRequiredRoundsExceededError,
        run_input_required_driver,
    )
    from mcp_types import InputRequiredResult

    if not isinstance(first, InputRequiredResult):
        raise TypeError(f"not an InputRequiredResult: {type(first).__name__}")

    try:
        return await run_input_required_driver(
            first, dispatch=dispatch, retry=retry, max_rounds=max_rounds
        )
    except InputRequiredRoundsExceededError:
        # The SDK's message tells a programmer to raise a Client setting we do not use.
        raise InputRoundsExceeded(
            f"the server asked for input more than {max_rounds} rounds in a row without "
            "finishing; the call was given up"
        ) from None


class InputRoundsExceeded(RuntimeError):
    """A server kept answering ``InputRequiredResult`` past the rounds a call may take."""


def request_handlers(server: object) -> dict[str, object] | None:
    """The request handler table of an ``MCPServer`` (method name → handler), or None."""
    handlers = getattr(getattr(server, "_lowlevel_server", None), "_request_handlers", None)
    return handlers if isinstance(handlers, dict) else None


def missing() -> list[str]:
    """The private names this module relies on that the installed SDK lacks (empty: fine)."""
    import inspect

    import mcp.client.stdio as sdk_stdio
    from mcp import ClientSession
    from mcp.client.auth import OAuthClientProvider
    from mcp.server.mcpserver import MCPServer

    gone: list[str] = []
    if not callable(getattr(sdk_stdio, _SPAWN, None)):
        gone.append(f"mcp.client.stdio.{_SPAWN}")
    session_source = inspect.getsource(ClientSession)
    for name in ("_dispatcher", "_absorb_tool_listing", "_stamp", "_session_read_timeout_seconds"):
        if name not in session_source and not hasattr(ClientSession, name):
            gone.append(f"mcp.ClientSession.{name}")
    for name in OAUTH_PROVIDER_INTERNALS:
        if not callable(getattr(OAuthClientProvider, name, None)):
            gone.append(f"mcp.client.auth.OAuthClientProvider.{name}")
    provider_source = inspect.getsource(OAuthClientProvider)
    if "self.context" not in provider_source:
        gone.append("mcp.client.auth.OAuthClientProvider.context")
    try:
        from mcp.client._input_required import run_input_required_driver
    except ImportError:
        run_input_required_driver = None  # type: ignore[assignment]
    if not callable(run_input_required_driver):
        gone.append("mcp.client._input_required.run_input_required_driver")
    try:
        from mcp.client._input_required import InputRequiredRoundsExceededError  # noqa: F401
    except ImportError:
        gone.append("mcp.client._input_required.InputRequiredRoundsExceededError")
    if "_stamp" not in session_source:
        gone.append("mcp.ClientSession._stamp")
    if _UNSUPPORTED_ANSWER not in inspect.getsource(ClientSession.initialize):
        gone.append("mcp.ClientSession.initialize's unsupported-version RuntimeError")
    import httpx2._sse as sse_reader
    from mcp.client import session as client_session

    session_module = inspect.getsource(client_session)
    for words in OUTPUT_SCHEMA_VIOLATIONS:
        if words not in session_module:
            gone.append(f"mcp.client.session: the outputSchema refusal {words!r}")
    if SSE_EVENT_TOO_LARGE not in inspect.getsource(sse_reader):
        gone.append(f"httpx2._sse: the event size refusal {SSE_EVENT_TOO_LARGE!r}")
    from mcp.client import streamable_http

    if f'f"{SSE_STREAM_FAILED}{{exc}}"' not in inspect.getsource(streamable_http):
        gone.append(f"mcp.client.streamable_http: the abandoned request {SSE_STREAM_FAILED!r}")
    if "allow_claimed" not in inspect.signature(ClientSession.call_tool).parameters:
        gone.append("mcp.ClientSession.call_tool(allow_claimed=...)")
    try:
        from mcp.client.extension import ResultClaim  # noqa: F401  (the tasks extension's claim)
    except ImportError:
        gone.append("mcp.client.extension.ResultClaim")
    import mcp.shared.jsonrpc_dispatcher as dispatcher

    if not callable(getattr(dispatcher, "otel_span", None)):
        gone.append("mcp.shared.jsonrpc_dispatcher.otel_span")
    server = MCPServer("canary")
    if request_handlers(server) is None:
        gone.append("mcp.server.mcpserver.MCPServer._lowlevel_server._request_handlers")
    return gone
