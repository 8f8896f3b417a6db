"""What a connection says when something fails: the sentence, its cause, the server's words.

:func:`describe` turns what an attempt raised into a :class:`ConnectFailure` (URLs shown
without secrets); :class:`FailureReports` adds what this connection's records hold: the HTTP
answers and transport notes of the current attempt (:mod:`hermes_core.host.connection.diagnostics`)
and the tail of a stdio server's stderr
(:class:`~hermes_core.host.connection.server_log.ServerLog`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
from collections.abc import Iterator, Sequence
from typing import IO, cast
from urllib.parse import urlsplit

from hermes_core._sdk_compat import is_sse_event_too_large, is_sse_stream_failure
from hermes_core.host.connection.diagnostics import (
    Cause,
    ConnectFailure,
    Diagnostics,
    HttpError,
    ProcessExit,
    TransportNote,
)
from hermes_core.host.connection.errors import ServerError
from hermes_core.host.connection.network_words import (
    in_chain,
    lookup_failure,
    network_words,
    tls_failure,
)
from hermes_core.host.connection.server_log import ServerLog
from hermes_core.host.connection.state import ConnectionStatus
from hermes_core.host.connection.stderr_tail import tail_lines
from hermes_core.host.transports.message_limit import MessageTooLargeError
from hermes_core.host.transports.spawned import Spawned
from hermes_core.plugins.types import ServerSpec
from hermes_core.sanitize import clean_text
from hermes_core.sanitize.urls import display_url

__all__ = [
    "HTTP_NOTED",
    "FailureReports",
    "connection_closed",
    "describe",
    "process_exit",
]

_STDERR_TAIL_LINES = 8
HTTP_NOTED = frozenset({"streamable_http", "sse"})
"""Transports whose opener notes HTTP errors in the log instead of a child's stderr."""


class FailureReports:
    """One connection's records and its server's stderr, read when something failed."""

    def __init__(self, name: str, spec: ServerSpec) -> None:
        self.name = name
        self.spec = spec
        self.records = Diagnostics()  # what our transports noted (HTTP errors, limits)
        self.stderr = ServerLog(self.records)  # the server's own words, bounded, shown only
        self._attempt_mark = 0  # the records of the current attempt start here

    @property
    def errlog(self) -> IO[str]:
        """The text stream a transport writes to (the server's stderr, our notes)."""
        return cast(IO[str], self.stderr)

    def attempt_starts(self) -> None:
        self._attempt_mark = self.records.mark()

    def http_answers(self) -> list[HttpError]:
        """The HTTP errors noted during the current attempt."""
        return self.records.since(self._attempt_mark, HttpError)

    def transport_note(self) -> str | None:
        """The last thing our transport noted about the server during this attempt, if any
        (a record: never a line of the server's own stderr)."""
        notes = self.records.since(self._attempt_mark, TransportNote)
        return notes[-1].text if notes else None

    def attempt_failed(self, failure: ConnectFailure) -> tuple[str, ConnectFailure]:
        """The sentence for a failed attempt (with our transport's note and the stderr tail)
        and the failure record carrying it."""
        detail = failure.message
        note = self.transport_note()
        if note and failure.cause is not Cause.MESSAGE_TOO_LARGE:  # (that one says it already)
            detail = f"{detail} ({note})"
        tail = self.stderr_tail() if self.spec.transport not in HTTP_NOTED else ""
        if tail:
            detail += f"; its stderr ended with:\n{tail}"
        lines = tuple(clean_text(line.strip()) for line in tail.splitlines())
        return detail, dataclasses.replace(failure, message=clean_text(detail), stderr_tail=lines)

    def with_http_note(self, failure: ConnectFailure) -> ConnectFailure:
        """For HTTP: the SDK's generic "Server returned an error response" (a JSON-RPC error)
        or a bare status replaced by what the server really answered during this attempt
        (status, auth challenge), with a hint."""
        if self.spec.transport not in HTTP_NOTED or failure.cause not in (
            Cause.PROTOCOL,
            Cause.HTTP_STATUS,
        ):
            return failure
        answers = self.http_answers()
        if not answers:
            return failure
        answer = answers[-1]
        message = answer.sentence()
        if answer.status == 401 and self.spec.auth is None:
            message += (
                "; the server asks for authorization: set `auth: oauth` for this server and "
                f"run `hermes mcp login {self.name}`, or give its token in `headers`"
            )
        elif answer.status == 403:
            message += "; the server refused these credentials"
        elif answer.status == 404:
            message += "; check the url (the path of the MCP endpoint, often /mcp)"
        return ConnectFailure(message, Cause.HTTP_STATUS, http_status=answer.status)

    def stderr_lines(self) -> list[str]:
        """Every line of the server's stderr still kept (the log is bounded), oldest first."""
        try:
            self.stderr.flush()
            self.stderr.seek(0)
            lines = self.stderr.read().splitlines()
            self.stderr.seek(0, 2)
        except (OSError, ValueError):
            return []
        return lines

    def stderr_tail(self) -> str:
        try:
            self.stderr.flush()
            self.stderr.seek(0)
            lines = tail_lines(self.stderr.read().splitlines(), _STDERR_TAIL_LINES)
            self.stderr.seek(0, 2)
        except (OSError, ValueError):
            return ""
        return "\n".join("    " + line for line in lines)

    def session_refused_since(self, mark: int) -> bool:
        """Whether, since *mark*, an HTTP request was refused as not belonging to a live
        session (404, the spec's answer; 400, what several SDK servers answer)."""
        endpoint = display_url(self.spec.url or "")
        return any(
            answer.status in (404, 400) and answer.method == "POST" and answer.url == endpoint
            for answer in self.records.since(mark, HttpError)
        )

    def went_away(self, what: str, status: ConnectionStatus, closed: bool) -> ServerError:
        """The error of a request whose server went away (*closed*: its side of the transport
        closed), with what the session's task recorded."""
        reason = status.last_error
        if reason and status.needs_login:
            # The server refused the request itself (401/403): the call never ran.
            core = reason.removeprefix(f"MCP server '{self.name}' ")
            return ServerError(self.name, f"{what} was not run: the server {core}")
        if not reason or closed:
            reason = self.transport_note()  # e.g. a message over max_message_bytes
        why = f" ({reason})" if reason else ""
        return ServerError(
            self.name,
            f"the server went away during {what}{why}; "
            "the call was not retried (its outcome is unknown)",
        )

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.stderr.close()


async def process_exit(spawned: Sequence[Spawned]) -> ProcessExit | None:
    """How the one process the transport started ended, once it has exited."""
    if len(spawned) != 1:
        return None
    process = spawned[0]
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), 0.5)
    except Exception:  # noqa: BLE001 - a diagnostic must never mask the real error
        return None
    code = getattr(process, "returncode", None)  # (a plugin's process may have none)
    return ProcessExit.from_returncode(code) if isinstance(code, int) else None


def connection_closed(exc: BaseException) -> bool:
    """The SDK's "the connection closed under this request" (JSON-RPC ``CONNECTION_CLOSED``,
    but not a request's broken SSE stream, which the SDK reports with that code too), or the
    streams' own end."""
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    if isinstance(exc, MCPError):
        return exc.code == CONNECTION_CLOSED and not is_sse_stream_failure(exc)
    return isinstance(exc, anyio.ClosedResourceError | anyio.EndOfStream)


def _first_leaf(exc: BaseException) -> BaseException:
    if isinstance(exc, BaseExceptionGroup):
        leaves = list(_leaves(exc))
        return leaves[0] if leaves else exc
    return exc


def _leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from _leaves(exc)
        else:
            yield exc


def _is_hermes_oauth_error(exc: BaseException) -> bool:
    """Whether *exc* is an :class:`~hermes_core.auth.errors.OAuthError`.  Only a server with
    ``auth: oauth`` loads the auth package, so when it is not loaded no such error can exist:
    an embedding host's plain servers never import it (test_embedding_host_imports.py)."""
    errors = sys.modules.get("hermes_core.auth.errors")
    return errors is not None and isinstance(exc, errors.OAuthError)


def describe(exc: BaseException, spec: ServerSpec) -> ConnectFailure:
    """What went wrong while connecting: a sentence (URLs shown without secrets) and its kind."""
    import httpx2
    from mcp.client.auth import OAuthFlowError
    from mcp.shared.exceptions import MCPError

    url = display_url(spec.url) if spec.url else ""
    exc = _first_leaf(exc)
    name = type(exc).__name__
    text = str(exc).strip()
    if _is_hermes_oauth_error(exc):
        return ConnectFailure(str(exc), Cause.AUTH)  # says what happened and what to do
    if isinstance(exc, OAuthFlowError):
        return ConnectFailure(f"OAuth failed: {text or name}", Cause.AUTH)
    if isinstance(exc, FileNotFoundError) and spec.transport == "stdio":
        return ConnectFailure(
            f"command not found: {spec.command!r} (not on PATH, or the file does not exist)",
            Cause.COMMAND_MISSING,
        )
    if isinstance(exc, PermissionError) and spec.transport == "stdio":
        return ConnectFailure(
            f"command cannot be run: {spec.command!r} ({exc.strerror})", Cause.COMMAND_DENIED
        )
    if isinstance(exc, MessageTooLargeError):
        return ConnectFailure(f"{name}: {text}", Cause.MESSAGE_TOO_LARGE)
    if is_sse_event_too_large(exc):
        return ConnectFailure(
            f"{name}: {text} (max_message_bytes of this server)", Cause.MESSAGE_TOO_LARGE
        )
    if isinstance(exc, httpx2.HTTPStatusError):
        status = exc.response.status_code
        return ConnectFailure(f"HTTP {status} from {url}", Cause.HTTP_STATUS, http_status=status)
    if tls_failure(exc):
        reason = getattr(exc, "reason", None) or text or name  # (ssl.SSLError has one)
        return ConnectFailure(f"TLS error with {url}: {reason}", Cause.TLS)
    network = (
        httpx2.ConnectError,
        httpx2.ConnectTimeout,
        httpx2.ReadError,
        httpx2.WriteError,
        httpx2.RemoteProtocolError,
    )
    if isinstance(exc, network):
        return _network_failure(exc, spec, url)
    if connection_closed(exc):
        return ConnectFailure(
            "the server closed the connection during startup (it exited or crashed)",
            Cause.CLOSED,
        )
    if isinstance(exc, MCPError):
        return ConnectFailure(f"the server answered with an error: {text or name}", Cause.PROTOCOL)
    if isinstance(exc, TimeoutError):
        return ConnectFailure(f"timed out{f': {text}' if text else ''}", Cause.OTHER)
    return ConnectFailure(text or "the attempt failed without saying why", Cause.OTHER)


def _network_failure(exc: BaseException, spec: ServerSpec, url: str) -> ConnectFailure:
    """A connection that failed on the network, in words: a name that did not resolve, a
    refused port, or a dropped connection (with the client certificate's part in it)."""
    import httpx2

    detail = f"cannot connect to {url}: {network_words(exc)}"
    unresolved = lookup_failure(exc)
    if unresolved is not None:
        host = urlsplit(spec.url or "").hostname or "?"
        return ConnectFailure(
            f"cannot connect to {url}: the host name {host!r} did not resolve "
            f"({unresolved}; check the url, or the network's DNS)",
            Cause.NETWORK,
        )
    refused = in_chain(exc, ConnectionRefusedError) is not None
    if refused:
        return ConnectFailure(
            f"cannot connect to {url}: the connection was refused (nothing listens on "
            "that port: is the server running, and the url's port right?)",
            Cause.NETWORK,
        )
    if (
        not isinstance(exc, httpx2.ConnectTimeout)
        and not refused
        and (spec.url or "").startswith("https:")
    ):
        detail += (
            " (the server dropped the connection; if it requires a client certificate, "
            "set client_cert)"
            if spec.client_certificate is None
            else " (the server dropped the connection; it may not accept this client_cert)"
        )
    return ConnectFailure(detail, Cause.NETWORK)
