"""What happened to a connection, as records: never text parsed back out of a log.

A connection's transport notes what it sees while it works: each HTTP error answer
(:class:`HttpError`: status, reason, method, URL without secrets, auth challenge) and each
decision of our own transports about the server (:class:`TransportNote`, e.g. a message
over ``max_message_bytes``).  They go to the connection's :class:`Diagnostics`, reached
through the *errlog* a transport's ``connect`` is given (:func:`note`): the connection reads
them back as objects to explain a failure, to fall back to SSE on 404/405, or to renew an
HTTP session the server no longer knows.

The server's own stderr stays text (:class:`~hermes_core.host.connection.server_log.ServerLog`)
and is only ever shown, never interpreted: a server printing ``[hermes] …`` or ``HTTP 404 …`` on its
stderr cannot pose as a note of ours.

A failed connection attempt is described by a :class:`ConnectFailure`: the sentence shown to
the user plus what kind of failure it was (:class:`Cause`) and, for a stdio child that died,
its :class:`ProcessExit`.
"""

from __future__ import annotations

import enum
import signal
from collections import deque
from dataclasses import dataclass
from typing import TypeVar

from hermes_core.json_types import JsonObject

__all__ = [
    "MAX_RECORDS",
    "Cause",
    "ConnectFailure",
    "Diagnostics",
    "HttpError",
    "ProcessExit",
    "TransportNote",
    "note",
]

#: How many records a connection keeps (the oldest are forgotten).
MAX_RECORDS = 100
#: How much of a ``WWW-Authenticate`` challenge a record keeps.
CHALLENGE_MAX_CHARS = 300

R = TypeVar("R")


@dataclass(frozen=True)
class HttpError:
    """An HTTP answer with status >= 400, as the transport's client saw it."""

    status: int
    reason: str
    method: str
    url: str
    """As :func:`~hermes_core.config.models.display_url` shows it (no credentials, no query)."""
    challenge: str | None = None
    """The ``WWW-Authenticate`` header, whitespace folded, cut at 300 characters."""

    def sentence(self) -> str:
        """``HTTP 404 Not Found for POST https://host/mcp`` (and the challenge, if any)."""
        line = f"HTTP {self.status} {self.reason} for {self.method} {self.url}"
        return f"{line} (WWW-Authenticate: {self.challenge})" if self.challenge else line


@dataclass(frozen=True)
class TransportNote:
    """A decision of our own transport about the server (never the server's own words)."""

    text: str


@dataclass(frozen=True)
class ProcessExit:
    """How a stdio server's process ended."""

    code: int | None
    """Its exit code (``None`` when a signal ended it)."""
    signal: int | None = None

    @classmethod
    def from_returncode(cls, returncode: int) -> ProcessExit:
        """From ``Popen.returncode`` (negative: killed by that signal)."""
        return cls(None, -returncode) if returncode < 0 else cls(returncode)

    def sentence(self) -> str:
        """``exited with code 3`` / ``was killed by signal 9 (SIGKILL)``."""
        if self.signal is None:
            return f"exited with code {self.code}"
        try:
            name = f" ({signal.Signals(self.signal).name})"
        except ValueError:
            name = ""
        return f"was killed by signal {self.signal}{name}"


class Cause(enum.Enum):
    """What kind of failure ended a connection attempt."""

    AUTH = "auth"
    """Our OAuth provider or the SDK's refused or failed (``needs_login``)."""
    COMMAND_MISSING = "command_missing"
    COMMAND_DENIED = "command_denied"
    HTTP_STATUS = "http_status"
    """An HTTP error answer raised by the client (its status is in the failure)."""
    TLS = "tls"
    NETWORK = "network"
    """The connection could not be made, or it broke (refused, reset, timed out)."""
    CLOSED = "closed"
    """The server closed the connection (a stdio child exited or crashed)."""
    MESSAGE_TOO_LARGE = "message_too_large"
    PROTOCOL = "protocol"
    """The server answered with a JSON-RPC error (``MCPError``)."""
    OTHER = "other"


@dataclass(frozen=True)
class ConnectFailure:
    """Why a connection attempt failed: the sentence shown, and what it is made of."""

    message: str
    cause: Cause
    http_status: int | None = None
    exit: ProcessExit | None = None
    """How the server's process ended, when it did (stdio)."""
    stderr_tail: tuple[str, ...] = ()
    """The last lines of the server's stderr (stdio; cleaned for display)."""

    def as_dict(self) -> JsonObject:
        """What ``hermes mcp status --json`` shows as a server's ``failure``."""
        return {
            "cause": self.cause.value,
            "http_status": self.http_status,
            "exit_code": self.exit.code if self.exit is not None else None,
            "signal": self.exit.signal if self.exit is not None else None,
            "stderr_tail": [*self.stderr_tail],
        }


class Diagnostics:
    """A connection's records, in order, bounded by :data:`MAX_RECORDS`.

    Positions are counts of records ever added: :meth:`mark` now, :meth:`since` a mark."""

    def __init__(self) -> None:
        self._records: deque[tuple[int, object]] = deque(maxlen=MAX_RECORDS)
        self._count = 0

    def add(self, record: HttpError | TransportNote) -> None:
        self._records.append((self._count, record))
        self._count += 1

    def mark(self) -> int:
        return self._count

    def since(self, mark: int, kind: type[R]) -> list[R]:
        """The records of *kind* added at or after *mark* (as far as they are still kept)."""
        return [r for position, r in self._records if position >= mark and isinstance(r, kind)]


def note(errlog: object, record: HttpError | TransportNote) -> None:
    """Give *record* to the :class:`Diagnostics` behind *errlog*, when it has one (a plugin
    transport may wrap ours with an errlog of its own: then the record is simply dropped)."""
    target = getattr(errlog, "diagnostics", None)
    if isinstance(target, Diagnostics):
        target.add(record)
