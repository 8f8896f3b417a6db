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
from typing import IO, Any, TextIO, cast

from hermes_core.plugins.types import Connect, ServerSpec

__all__ = [
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


def _install_spawn_capture() -> None:
    """Let :func:`capture_spawned` see the process the SDK starts.

    The SDK keeps its server process to itself (and reaps it), so an error could never say
    "exited with code 3".  We wrap its spawn function once (through :mod:`hermes_core._sdk_compat`,
    whose canary test says when the SDK changes); without it errors leave the code out.
    """
    from hermes_core._sdk_compat import wrap_stdio_spawn

    def wrap(original: Any) -> Any:
        async def spawn(*args: Any, **kwargs: Any) -> Any:
            process = await original(*args, **kwargs)
            sink = _spawned.get()
            if sink is not None:
                sink.append(process)
            return process

        return spawn

    wrap_stdio_spawn(wrap)


@asynccontextmanager
async def open_stdio(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[tuple[Any, Any]]:
    """A subprocess speaking MCP on stdin/stdout (the ``stdio`` transport's ``connect``)."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    _install_spawn_capture()
    if not spec.command:
        raise ValueError("a stdio server needs a command")
    cwd = getattr(spec, "cwd", None)
    if cwd is not None and not os.path.isdir(cwd):
        raise ValueError(f"cwd {cwd!r} is not an existing folder")
    params = StdioServerParameters(
        command=spec.command,
        args=list(spec.args),
        env=child_environment(spec.env),
        cwd=cwd,
        encoding_error_handler="replace",
    )
    async with stdio_client(params, errlog=cast(TextIO, errlog)) as streams:
        yield streams[0], streams[1]


def _http_client(spec: ServerSpec, errlog: IO[str] | None = None) -> Any:
    """The HTTP client for *spec*; HTTP errors are noted in *errlog* (one line each, no
    secrets: the URL as :func:`display_url` shows it, the status, an auth challenge)."""
    import httpx2

    hooks: dict[str, list[Any]] = {}
    if errlog is not None:
        hooks["response"] = [_note_http_errors(errlog)]

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


HTTP_NOTE = "HTTP "


def _note_http_errors(errlog: IO[str]) -> Callable[[Any], Coroutine[Any, Any, None]]:
    from hermes_core.config.models import display_url

    async def note(response: Any) -> None:
        if response.status_code < 400:
            return
        request = response.request
        line = (
            f"{HTTP_NOTE}{response.status_code} {response.reason_phrase} for {request.method} "
            f"{display_url(str(request.url))}"
        )
        challenge = response.headers.get("www-authenticate")
        if challenge:
            line += f" (WWW-Authenticate: {' '.join(challenge.split())[:300]})"
        try:
            errlog.write(line + "\n")
            errlog.flush()
        except (OSError, ValueError):
            pass

    return note


@asynccontextmanager
async def open_streamable_http(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[tuple[Any, Any]]:
    """Streamable HTTP (the ``streamable_http`` transport's ``connect``)."""
    from mcp.client.streamable_http import streamable_http_client

    if not spec.url:
        raise ValueError("an HTTP server needs a url")
    async with (
        _http_client(spec, errlog) as client,
        streamable_http_client(spec.url, http_client=client) as streams,
    ):
        yield streams[0], streams[1]


@asynccontextmanager
async def open_sse(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[tuple[Any, Any]]:
    """Legacy HTTP+SSE (the ``sse`` transport's ``connect``), on the same HTTP client as
    Streamable HTTP: headers, auth, ``client_cert`` (mTLS), ``connect_timeout``/``timeout``,
    no cross-origin redirects, and HTTP errors noted in *errlog*."""
    from mcp.client.sse import sse_client

    if not spec.url:
        raise ValueError("an SSE server needs a url")

    def client_factory(
        headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> Any:
        # The SDK passes its own headers/auth/timeouts; ours come from the config instead.
        return _http_client(spec, errlog)

    async with sse_client(
        spec.url,
        timeout=spec.connect_timeout,
        sse_read_timeout=max(spec.timeout, 300.0),
        httpx_client_factory=client_factory,
    ) as streams:
        yield streams[0], streams[1]
