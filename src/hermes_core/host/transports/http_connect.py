"""The ``streamable_http`` and ``sse`` transports' ``connect``, on one HTTP client of ours.

Imported when an HTTP server is contacted (``httpx2`` and the body filters come with it).
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import IO

import httpx2

from hermes_core.host.connection.diagnostics import CHALLENGE_MAX_CHARS, HttpError, note
from hermes_core.host.connection.server_warnings import (
    ServerWarnings,
    quiet_sdk_parse_errors,
    serving,
)
from hermes_core.host.transports.http_bodies import response_hook
from hermes_core.host.transports.http_sessions import session_hook
from hermes_core.host.transports.message_limit import message_limit
from hermes_core.host.transports.tls import ssl_context
from hermes_core.plugins.types import ServerSpec, TransportStreams
from hermes_core.sanitize.urls import display_url

__all__ = ["open_sse", "open_streamable_http"]

ResponseHook = Callable[[httpx2.Response], Coroutine[object, object, None]]
"""An ``httpx2`` response event hook."""


def _http_client(spec: ServerSpec, errlog: IO[str] | None = None) -> httpx2.AsyncClient:
    """The HTTP client for *spec*; each HTTP error is recorded for *errlog*'s connection
    (:class:`~hermes_core.host.connection.diagnostics.HttpError`: the status, the URL as
    :func:`display_url` shows it, an auth challenge; no secrets) and written to it as a line."""
    warnings = ServerWarnings(_server_name(spec))
    cap = response_hook(message_limit(spec), errlog, warnings)
    hooks: dict[str, list[ResponseHook]] = {"response": [cap, session_hook(_server_name(spec))]}
    if errlog is not None:
        hooks["response"].insert(0, _note_http_errors(errlog))

    certificate = spec.client_certificate
    verify: ssl.SSLContext | bool = True
    if certificate is not None:
        verify = ssl_context(certificate)
    return httpx2.AsyncClient(
        headers=dict(spec.headers),
        auth=spec.auth,
        verify=verify,
        timeout=httpx2.Timeout(spec.connect_timeout, read=max(spec.timeout, 300.0)),
        # Redirects: the SDK follows only same-origin ones for MCP requests; never let the
        # client follow others, which would carry the configured headers to another host.
        follow_redirects=False,
        event_hooks=hooks,
    )


def _server_name(spec: ServerSpec) -> str:
    """The server's name as its warnings say it (its url for a spec without one)."""
    return spec.name or spec.url or ""


def _note_http_errors(errlog: IO[str]) -> ResponseHook:
    async def noted(response: httpx2.Response) -> None:
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
async def open_streamable_http(
    spec: ServerSpec, errlog: IO[str]
) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP (the ``streamable_http`` transport's ``connect``)."""
    from mcp.client.streamable_http import streamable_http_client

    if not spec.url:
        raise ValueError("an HTTP server needs a url")
    quiet_sdk_parse_errors()  # garbage and bogus notifications: one line, not a traceback
    async with (
        _serving(spec),
        _http_client(spec, errlog) as client,
        streamable_http_client(
            spec.url, http_client=client, max_sse_event_size=message_limit(spec)
        ) as streams,
    ):
        yield streams[0], streams[1]


@asynccontextmanager
async def open_sse(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[TransportStreams]:
    """Legacy HTTP+SSE (the ``sse`` transport's ``connect``), on the same HTTP client as
    Streamable HTTP: headers, auth, ``client_cert`` (mTLS), ``connect_timeout``/``timeout``,
    no cross-origin redirects, and HTTP errors noted in *errlog*."""
    from mcp.client.sse import sse_client

    if not spec.url:
        raise ValueError("an SSE server needs a url")
    quiet_sdk_parse_errors()  # garbage and bogus notifications: one line, not a traceback

    def client_factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
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
    with serving(_server_name(spec)):
        yield
