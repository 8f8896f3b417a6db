"""Upstream servers' log messages, forwarded to the proxy's downstream clients.

The host sends each server's ``notifications/message`` to the Python logger
``hermes.mcp.<server>``, already cleaned and cut (:mod:`hermes_core.host.server_notifications`).
:class:`LogForwarder` is a handler on ``hermes.mcp`` that sends each record on as a
``notifications/message`` to every downstream client the proxy knows (2025-11-25 sessions;
a 2026-07-28 client gets logs only for requests that opt in, which these are not), with the
logger ``mcp_<server>``, when the proxy's profile keeps that server (a client of one profile
never hears of another's servers).  A client that cannot take it is skipped; nothing blocks
the host.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from mcp_types import LoggingLevel

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

__all__ = ["LogForwarder"]

_LEVELS: dict[int, LoggingLevel] = {
    logging.DEBUG: "debug",
    logging.INFO: "info",
    logging.WARNING: "warning",
    logging.ERROR: "error",
    logging.CRITICAL: "critical",
}
#: Log records waiting to be sent, at most (the oldest are dropped beyond it).
MAX_PENDING = 1000


class LogForwarder(logging.Handler):
    """Sends ``hermes.mcp.<server>`` records of the servers *keeps* names to the sessions
    *sessions()* returns."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        sessions: Callable[[], Iterable[ServerSession]],
        keeps: Callable[[str], bool] = lambda _server: True,
    ) -> None:
        super().__init__(logging.DEBUG)
        self._loop = loop
        self._sessions = sessions
        self._keeps = keeps
        self._pending: asyncio.Queue[tuple[LoggingLevel, str, str]] = asyncio.Queue(MAX_PENDING)
        self._task = loop.create_task(self._send())

    def emit(self, record: logging.LogRecord) -> None:
        server = record.name.removeprefix("hermes.mcp.")
        if server == record.name or not server or not self._keeps(server):
            return
        level = _LEVELS.get(record.levelno, "info")
        item = (level, record.getMessage(), f"mcp_{server}")
        try:
            if asyncio.get_running_loop() is self._loop:
                self._offer(item)
                return
        except RuntimeError:
            pass
        self._loop.call_soon_threadsafe(self._offer, item)

    def _offer(self, item: tuple[LoggingLevel, str, str]) -> None:
        if self._pending.full():
            self._pending.get_nowait()
        self._pending.put_nowait(item)

    async def _send(self) -> None:
        while True:
            level, text, logger = await self._pending.get()
            for session in list(self._sessions()):
                try:
                    await session.send_log_message(level, text, logger)
                except Exception:  # a gone client: the list_changed path forgets it
                    logging.getLogger(__name__).debug("log not delivered", exc_info=True)

    def close(self) -> None:
        self._task.cancel()
        super().close()
