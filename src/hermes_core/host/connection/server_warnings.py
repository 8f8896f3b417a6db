"""What a server sends that cannot be used: one warning line naming the server, rate-limited.

The stdio transport parses lines itself and reports through :class:`ServerWarnings`; so does
the filter of HTTP servers' SSE streams (``sse_events``).  What still reaches the ``mcp`` SDK's
own parsing (a JSON body that is not JSON-RPC, a notification the SDK's session refuses) is
logged there with a full pydantic traceback (``Error parsing SSE message``, ``Error parsing JSON
response``, ``Failed to validate notification``...): :func:`quiet_sdk_parse_errors` turns
exactly those records into the same one-line warning, naming the server when the record comes
from its connection's own tasks (:func:`serving`, set by the HTTP and SSE openers).  A record
logged in the context of a request's caller is dropped: that request fails with an error that
names the server.  Every other SDK record passes unchanged.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from contextvars import ContextVar

__all__ = ["WARN_EVERY_SECONDS", "ServerWarnings", "quiet_sdk_parse_errors", "serving"]

log = logging.getLogger(__name__)

WARN_EVERY_SECONDS = 5.0
"""After a warning of one kind, the next of that kind for that server waits this long."""

#: SDK logger -> (message templates of its parse failures, what our warning says).
_SDK_PARSE_FAILURES: dict[str, tuple[tuple[str, str], ...]] = {
    "mcp.client.streamable_http": (
        ("Error parsing SSE message", "ignoring a message that is not valid JSON-RPC"),
        ("Error parsing JSON response", "ignoring a response that is not valid JSON-RPC"),
    ),
    "mcp.client.sse": (
        ("Error parsing server message", "ignoring a message that is not valid JSON-RPC"),
    ),
    "client": (("Failed to validate notification", "ignoring an invalid {0!r} notification"),),
}

_server: ContextVar[str | None] = ContextVar("hermes_mcp_server", default=None)


class ServerWarnings:
    """One warning line per kind, then at most one every few seconds with a count."""

    def __init__(self, server: str) -> None:
        self.server = server
        self._last: dict[str, float] = {}
        self._unsaid: dict[str, int] = {}

    def warn(self, kind: str, text: str) -> None:
        now = time.monotonic()
        last = self._last.get(kind)
        if last is not None and now - last < WARN_EVERY_SECONDS:
            self._unsaid[kind] = self._unsaid.get(kind, 0) + 1
            return
        self._last[kind] = now
        unsaid = self._unsaid.pop(kind, 0)
        more = f" ({unsaid} more since the last warning)" if unsaid else ""
        log.warning("MCP server '%s': %s%s", self.server, text, more)


class _ParseFailures(logging.Filter):
    """Drop the SDK's parse-failure records of a known server, warning once instead."""

    def __init__(self, failures: tuple[tuple[str, str], ...]) -> None:
        super().__init__()
        self.failures = failures
        self.servers: dict[str, ServerWarnings] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        server = _server.get()
        template = record.msg if isinstance(record.msg, str) else ""
        for prefix, says in self.failures:
            if template.startswith(prefix):
                if server is None:
                    # Logged in the context of the caller of a request: the request itself
                    # fails with an error naming the server, so the traceback is all noise.
                    return False
                args = record.args if isinstance(record.args, tuple) else ()
                try:
                    text = says.format(*args)
                except IndexError:
                    text = says.replace(" {0!r}", "")
                warnings = self.servers.setdefault(server, ServerWarnings(server))
                warnings.warn(prefix, text)
                return False
        return True


_installed: list[_ParseFailures] = []


def quiet_sdk_parse_errors() -> None:
    """Install the filters on the SDK's loggers (once per process)."""
    if _installed:
        return
    for name, failures in _SDK_PARSE_FAILURES.items():
        quiet = _ParseFailures(failures)
        logging.getLogger(name).addFilter(quiet)
        _installed.append(quiet)


@contextlib.contextmanager
def serving(server: str) -> Iterator[None]:
    """Name *server* as the one this task (and every task it starts) talks to."""
    token = _server.set(server)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):  # reset from another context: leave it
            _server.reset(token)
