"""Opening a transport to one MCP server on the official ``mcp`` SDK.

Each opener takes a server's resolved config and yields the SDK's
``(read, write)`` streams: stdio for ``command``, Streamable HTTP for ``url``
(SSE when ``transport: sse``).  They are the ``connect`` of the built-in
``transport`` registrations, so a plugin's transport plugs in the same way.
Imported only when a server is contacted: ``import mcp`` costs about a second.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import IO, Any

from hermes_core.plugins.types import Connect, ServerSpec, TransportSpec

__all__ = [
    "BUILTIN_TRANSPORTS",
    "SAFE_ENV_NAMES",
    "Opener",
    "ServerSpec",
    "capture_spawned",
    "child_environment",
    "open_sse",
    "open_stdio",
    "open_streamable_http",
]

# What every stdio child may inherit from us; the server's own `env` comes on top.
SAFE_ENV_NAMES = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)
_SAFE_PREFIXES = ("LC_", "XDG_")
_WINDOWS_ENV_NAMES = frozenset(
    name.upper()
    for name in (
        "ALLUSERSPROFILE",
        "APPDATA",
        "COMMONPROGRAMFILES",
        "COMMONPROGRAMFILES(X86)",
        "COMMONPROGRAMW6432",
        "COMPUTERNAME",
        "COMSPEC",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "NUMBER_OF_PROCESSORS",
        "OS",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "PROGRAMDATA",
        "PROGRAMFILES",
        "PROGRAMFILES(X86)",
        "PROGRAMW6432",
        "PUBLIC",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "TMP",
        "USERDOMAIN",
        "USERNAME",
        "USERPROFILE",
        "WINDIR",
    )
)


def child_environment(
    explicit: Mapping[str, str], parent: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a stdio child: a safe minimum of ours, then its explicit ``env``."""
    source = os.environ if parent is None else parent
    env: dict[str, str] = {}
    for name, value in source.items():
        if value.startswith("()"):
            continue  # exported shell functions
        if (
            name in SAFE_ENV_NAMES
            or name.startswith(_SAFE_PREFIXES)
            or (sys.platform == "win32" and name.upper() in _WINDOWS_ENV_NAMES)
        ):
            env[name] = value
    env.update(explicit)
    return env


Opener = Connect
"""A transport's ``connect`` (see :class:`hermes_core.plugins.types.Connect`)."""

_spawned: ContextVar[list[Any] | None] = ContextVar("hermes_mcp_spawned", default=None)


@contextmanager
def capture_spawned() -> Iterator[list[Any]]:
    """Collect the processes stdio transports start in this task (to read their exit code)."""
    sink: list[Any] = []
    token = _spawned.set(sink)
    try:
        yield sink
    finally:
        _spawned.reset(token)


@asynccontextmanager
async def open_stdio(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[tuple[Any, Any]]:
    """A subprocess speaking MCP on stdin/stdout (the ``stdio`` transport's ``connect``).

    Our own reader (:mod:`hermes_core.host.stdio_transport`): linear, bounded by the server's
    ``max_message_bytes``, and the server's whole process group ends with the connection.
    """
    from hermes_core.host.stdio_transport import child_cwd, open_stdio_process

    if not spec.command:
        raise ValueError("a stdio server needs a command")
    cwd = child_cwd(getattr(spec, "cwd", None))

    def spawned(process: Any) -> None:
        sink = _spawned.get()
        if sink is not None:
            sink.append(process)

    async with open_stdio_process(
        [spec.command, *spec.args],
        server=str(getattr(spec, "name", "") or spec.command),
        env=_sdk_default_environment() | child_environment({**spec.env, **_auth_env(spec)}),
        cwd=cwd,
        errlog=errlog,
        max_message_bytes=_max_message_bytes(spec),
        on_spawn=spawned,
    ) as streams:
        yield streams


def _auth_env(spec: ServerSpec) -> dict[str, str]:
    """The environment an auth provider serving local servers made for this one (its
    ``create`` returned a mapping: see ``AuthProviderSpec.stdio``)."""
    auth = getattr(spec, "auth", None)
    if not isinstance(auth, Mapping):
        return {}
    return {str(k): str(v) for k, v in auth.items()}


def _sdk_default_environment() -> dict[str, str]:
    from mcp.client.stdio import get_default_environment

    return get_default_environment()


def _http_client(spec: ServerSpec, errlog: IO[str] | None = None) -> Any:
    """The HTTP client for *spec*; each HTTP error is recorded for *errlog*'s connection
    (:class:`~hermes_core.host.diagnostics.HttpError`: the status, the URL as
    :func:`display_url` shows it, an auth challenge; no secrets) and written to it as a line."""
    import httpx2

    from hermes_core.host.http_bodies import response_hook
    from hermes_core.host.server_warnings import ServerWarnings

    warnings = ServerWarnings(str(getattr(spec, "name", "") or spec.url))
    cap = response_hook(_max_message_bytes(spec), errlog, warnings)
    hooks: dict[str, list[Any]] = {"response": [cap]}
    if errlog is not None:
        hooks["response"].insert(0, _note_http_errors(errlog))

    certificate = getattr(spec, "client_certificate", None)
    verify: Any = True
    if certificate is not None:
        from hermes_core.host.tls import ssl_context

        verify = ssl_context(certificate)
    return httpx2.AsyncClient(
        headers=dict(spec.headers),
        auth=getattr(spec, "auth", None),
        verify=verify,
        timeout=httpx2.Timeout(spec.connect_timeout, read=max(spec.timeout, 300.0)),
        # Redirects: the SDK follows only same-origin ones for MCP requests; never let the
        # client follow others, which would carry the configured headers to another host.
        follow_redirects=False,
        event_hooks=hooks,
    )


def _note_http_errors(errlog: IO[str]) -> Callable[[Any], Coroutine[Any, Any, None]]:
    from hermes_core.config.models import display_url
    from hermes_core.host.diagnostics import CHALLENGE_MAX_CHARS, HttpError, note

    async def noted(response: Any) -> None:
        if response.status_code < 400:
            return
        request = response.request
        challenge = response.headers.get("www-authenticate")
        record = HttpError(
            status=response.status_code,
            reason=response.reason_phrase,
            method=request.method,
            url=display_url(str(request.url)),
            challenge=" ".join(challenge.split())[:CHALLENGE_MAX_CHARS] if challenge else None,
        )
        note(errlog, record)
        try:  # for a person reading a plugin transport's log; never read back
            errlog.write(record.sentence() + "\n")
            errlog.flush()
        except (OSError, ValueError):
            pass

    return noted


@asynccontextmanager
async def open_streamable_http(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[tuple[Any, Any]]:
    """Streamable HTTP (the ``streamable_http`` transport's ``connect``)."""
    from mcp.client.streamable_http import streamable_http_client

    from hermes_core.host.server_warnings import quiet_sdk_parse_errors

    if not spec.url:
        raise ValueError("an HTTP server needs a url")
    quiet_sdk_parse_errors()  # garbage and bogus notifications: one line, not a traceback
    async with (
        _serving(spec),
        _http_client(spec, errlog) as client,
        streamable_http_client(
            spec.url, http_client=client, max_sse_event_size=_max_message_bytes(spec)
        ) as streams,
    ):
        yield streams[0], streams[1]


@asynccontextmanager
async def open_sse(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[tuple[Any, Any]]:
    """Legacy HTTP+SSE (the ``sse`` transport's ``connect``), on the same HTTP client as
    Streamable HTTP: headers, auth, ``client_cert`` (mTLS), ``connect_timeout``/``timeout``,
    no cross-origin redirects, and HTTP errors noted in *errlog*."""
    from mcp.client.sse import sse_client

    from hermes_core.host.server_warnings import quiet_sdk_parse_errors

    if not spec.url:
        raise ValueError("an SSE server needs a url")
    quiet_sdk_parse_errors()  # garbage and bogus notifications: one line, not a traceback

    def client_factory(
        headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> Any:
        # The SDK passes its own headers/auth/timeouts; ours come from the config instead.
        return _http_client(spec, errlog)

    async with (
        _serving(spec),
        sse_client(
            spec.url,
            timeout=spec.connect_timeout,
            sse_read_timeout=max(spec.timeout, 300.0),
            httpx_client_factory=client_factory,
        ) as streams,
    ):
        yield streams[0], streams[1]


@asynccontextmanager
async def _serving(spec: ServerSpec) -> AsyncIterator[None]:
    """Name the server for the SDK tasks this connection starts (see ``server_warnings``)."""
    from hermes_core.host.server_warnings import serving

    with serving(str(getattr(spec, "name", "") or spec.url)):
        yield


class MessageTooLargeError(Exception):
    """A server sent a message larger than its ``max_message_bytes``."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the server sent a message larger than max_message_bytes ({limit} bytes)")


def _max_message_bytes(spec: ServerSpec) -> int:
    """The server's ``max_message_bytes`` (64 MiB unless configured)."""
    value = getattr(spec, "max_message_bytes", None)
    return value if isinstance(value, int) and value > 0 else 64 * 1024 * 1024


BUILTIN_TRANSPORTS = (
    TransportSpec(
        "stdio",
        "command",
        "a local server started as a subprocess (command, args, env)",
        connect=open_stdio,
    ),
    TransportSpec(
        "streamable_http",
        "url",
        "a remote server over Streamable HTTP (url, headers)",
        connect=open_streamable_http,
    ),
    TransportSpec(
        "sse",
        "url",
        "a legacy remote server over HTTP+SSE (url with transport: sse)",
        connect=open_sse,
    ),
)
"""The built-in transports: what the built-in plugin's ``transport`` hook registers, and what
an :class:`~hermes_core.host.host.MCPHost` built without ``transports=`` connects with (taken
from here, so an embedding host builds no plugin manager just to find them)."""
