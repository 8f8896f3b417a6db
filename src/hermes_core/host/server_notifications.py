"""What a server says while it works: progress of a call, and its log messages.

**Progress.**  ``MCPHost.call_tool(name, args, on_progress=cb)`` asks the server for progress
(a ``progressToken`` on the request) and calls ``cb(progress, total, message)`` for each
``notifications/progress`` it sends about that call.  The message is cleaned for display
(:func:`shown_text`); a callback that raises is logged and never breaks the call.

**Logs.**  ``notifications/message`` from server ``acme`` goes to the Python logger
``hermes.mcp.acme`` (:func:`server_logger`).  Levels map as the MCP levels suggest: ``debug`` to
DEBUG, ``info`` and ``notice`` to INFO, ``warning`` to WARNING, ``error``, ``critical``,
``alert`` and ``emergency`` to ERROR (an unknown level: INFO).  A line reads
``MCP server log [acme/<logger>]: <data>``; data that is not text is JSON, and the line is
cleaned and cut at :data:`LOG_MAX_CHARS`.
"""

from __future__ import annotations

import json
import logging
import unicodedata
from typing import TYPE_CHECKING, Protocol

from hermes_core.sanitize import strip_tags

if TYPE_CHECKING:
    from mcp.client.session import LoggingFnT
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.types import LoggingMessageNotificationParams

__all__ = [
    "LOG_MAX_CHARS",
    "ProgressCallback",
    "log_callback",
    "progress_forwarder",
    "server_logger",
    "shown_text",
]

#: How much of one server log message reaches the log.
LOG_MAX_CHARS = 2000
#: How much of one progress message reaches the callback.
PROGRESS_MAX_CHARS = 200

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.ERROR,
    "alert": logging.ERROR,
    "emergency": logging.ERROR,
}

log = logging.getLogger(__name__)


class ProgressCallback(Protocol):
    """Called on the host's event loop for each progress notification of one call.

    *progress* grows with each call; *total* is ``None`` when the server does not know it;
    *message* is already cleaned for display (or ``None``).  Keep it quick: it runs on the loop.
    """

    def __call__(self, progress: float, total: float | None, message: str | None) -> None: ...


def shown_text(text: str, limit: int) -> str:
    """*text* safe to show a person: no control, format (invisible) or private-use characters,
    no TAG characters, whitespace runs folded to one space, at most *limit* characters."""
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in strip_tags(text)
        if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs")
    )
    folded = " ".join(kept.split())
    return folded if len(folded) <= limit else folded[: limit - 14] + "... [truncated]"


def server_logger(server: str) -> logging.Logger:
    """The logger a server's ``notifications/message`` go to: ``hermes.mcp.<server>``."""
    return logging.getLogger(f"hermes.mcp.{server}")


def log_callback(server: str) -> LoggingFnT:
    """The SDK ``logging_callback`` for *server*: each message to :func:`server_logger`."""
    target = server_logger(server)

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        try:
            level = _LEVELS.get(str(getattr(params, "level", "")), logging.INFO)
            if not target.isEnabledFor(level):
                return
            data = params.data
            text = data if isinstance(data, str) else json.dumps(data, default=str)
            source = f"{server}/{params.logger}" if getattr(params, "logger", None) else server
            line = shown_text(f"[{source}]: {text}", LOG_MAX_CHARS)
            target.log(level, "MCP server log %s", line)
        except Exception:  # a log message must never break the session
            log.debug("MCP server '%s': unusable log message dropped", server, exc_info=True)

    return on_log


def progress_forwarder(server: str, callback: ProgressCallback) -> ProgressFnT:
    """The SDK ``progress_callback`` for one call: cleaned values to *callback*."""

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        try:
            shown = shown_text(message, PROGRESS_MAX_CHARS) if isinstance(message, str) else None
            callback(float(progress), float(total) if total is not None else None, shown or None)
        except Exception:  # a failing display must never break the call
            log.warning("MCP server '%s': the progress callback failed", server, exc_info=True)

    return on_progress
