"""Agreeing on a protocol revision with a server, and the modern revision's change stream."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from hermes_core._sdk_compat import envelope_handshake, modern_answer_to_initialize
from hermes_core.host.connection.waits import cancel_and_wait
from hermes_core.host.supervisor import TaskSupervisor

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import ServerCapabilities

__all__ = ["listen_for_changes", "negotiate"]

log = logging.getLogger(__name__)


async def negotiate(session: ClientSession) -> None:
    """Choose the server's revision: the ``initialize`` handshake first, and the 2026-07-28
    per-request envelope (``server/discover``) when the server refuses the handshake.

    Handshake first, not the SDK's discover-first ``negotiate_auto``: servers that speak both
    eras keep the handshake, where the SDK lets a tool ask the user (``ctx.elicit``) in the
    middle of a call; on the modern revision that same tool fails ("no back-channel for
    server-initiated requests").  A handshake-era server also never sees an unknown request
    before ``initialize`` (some ignore it: the SDK's probe would wait 10 s).
    """
    from mcp.shared.exceptions import MCPError

    # The initialize carries the per-request envelope too (headers and ``_meta``): a server
    # of the current revision requires it on every request, a handshake-era one ignores it.
    envelope_handshake(session)
    try:
        await session.initialize()
    except (MCPError, RuntimeError) as refused:
        # Refused (a 2026-only server: -32022 or "method not found"), or answered with a
        # 2026-era version (which the handshake cannot carry): ask ``server/discover``.
        if isinstance(refused, RuntimeError) and not modern_answer_to_initialize(refused):
            raise
        try:
            await session.discover()  # adopts the newest revision both sides speak
        except Exception:  # noqa: BLE001 - not a modern server either: the handshake's error
            raise refused from None


async def listen_for_changes(
    stack: contextlib.AsyncExitStack,
    session: ClientSession,
    capabilities: ServerCapabilities | None,
    changed: Callable[[], None],
    tasks: TaskSupervisor,
    name: str,
) -> None:
    """Modern revision: list_changed comes only on a ``subscriptions/listen`` stream; each
    ``tools`` change on it calls *changed*.  The stream is opened on *stack* and its reader
    runs in *tasks* until the stack closes."""
    from mcp.client.subscriptions import SubscriptionLost, ToolsListChanged, listen

    tools = capabilities.tools if capabilities is not None else None
    if tools is None or not tools.list_changed:
        return
    subscription = await stack.enter_async_context(listen(session, tools_list_changed=True))

    async def pump() -> None:
        try:
            async for event in subscription:
                if isinstance(event, ToolsListChanged):
                    changed()
        except SubscriptionLost:
            # The stream ended without the server closing it: it went away (or dropped
            # us).  One line, not a traceback: the next request says what it finds.
            log.warning(
                "MCP server '%s': its list_changed stream ended (the server went away?)", name
            )

    task = tasks.spawn(pump(), name="list_changed subscription")
    if task is not None:
        stack.push_async_callback(cancel_and_wait, task)
