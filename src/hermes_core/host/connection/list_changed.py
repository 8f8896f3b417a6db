"""A server's ``tools/list_changed``: one re-list at a time, however many changes arrive."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from hermes_core.host.supervisor import TaskSupervisor

__all__ = ["ToolsChanged"]


class ToolsChanged:
    """Coalesces one server's tool-list changes into re-lists.

    Never refreshes inline: a notice comes on the session's receive loop.  A storm is
    coalesced: one re-list at a time, and one more only if a change came meanwhile.
    """

    def __init__(self, relist: Callable[[], Awaitable[None]] | None, tasks: TaskSupervisor) -> None:
        """*relist* re-lists the server's tools (``None``: changes are ignored)."""
        self._relist = relist
        self._tasks = tasks
        self._dirty = False
        self._closed = False
        self.worker: asyncio.Task[None] | None = None
        """The re-list under way, if any."""

    @property
    def wanted(self) -> bool:
        """Whether anyone re-lists on a change (else the stream of changes is not opened)."""
        return self._relist is not None

    def notice(self) -> None:
        """The server said its tools changed."""
        if self._relist is not None:
            self._dirty = True
            if self.worker is None or self.worker.done():
                self.worker = self._tasks.spawn(self._relist_while_dirty(), name="re-list")

    async def on_message(self, message: object) -> None:
        """The session's message handler: a ``ToolListChangedNotification`` is a notice."""
        from mcp import types

        inner = getattr(message, "root", message)  # (a notification wrapper, or the message)
        if isinstance(inner, types.ToolListChangedNotification) and self._relist is not None:
            self.notice()

    def close(self) -> None:
        """No re-list after this one (the connection closed)."""
        self._closed = True

    async def _relist_while_dirty(self) -> None:
        while self._dirty and self._relist is not None and not self._closed:
            self._dirty = False
            await self._relist()
