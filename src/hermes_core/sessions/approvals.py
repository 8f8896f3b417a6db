"""Approvals through the session store: a question recorded in ``state.db``, answered elsewhere.

The host's own questions (an MCP server's elicitation form; sampling with ``approval: ask``)
can be asked through the store instead of a terminal: :func:`ask` records a pending approval
and waits until someone answers it with :meth:`SessionStore.resolve_approval` — for example a
client of ``hermes mcp serve`` calling ``permissions_respond``, in another process.  The wait
costs one ``PRAGMA data_version`` per :data:`POLL_INTERVAL` and reads the row only when the
database changed.  A waiter that gives up (timeout, cancellation) marks the approval
``expired``, so it leaves the open list and a late answer is refused.

:class:`StoreElicitor` is an elicitor (:data:`hermes_core.offers.elicitation.Elicitor`) built on
it; ``hermes mcp call --approvals store`` uses it, and an embedder passes it to ``MCPHost``::

    from hermes_core import MCPHost
    from hermes_core.sessions import SessionStore, StoreElicitor

    host = MCPHost(servers, elicitor=StoreElicitor(SessionStore()))
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest
from hermes_core.sessions.models import Approval
from hermes_core.sessions.store import SessionStore

__all__ = ["POLL_INTERVAL", "StoreElicitor", "ask"]

POLL_INTERVAL = 0.2


async def ask(
    store: SessionStore,
    kind: str,
    *,
    server: str = "",
    summary: str = "",
    payload: Mapping[str, Any] | None = None,
    timeout: float | None = None,
) -> Approval:
    """Record a pending approval and wait for its answer; returns the resolved approval.

    On timeout (``TimeoutError``) or cancellation the approval is marked expired first.
    """
    pending = store.request_approval(kind, server=server, summary=summary, payload=payload)
    try:
        return await asyncio.wait_for(_answer(store, pending.id), timeout)
    except BaseException:
        with contextlib.suppress(Exception):
            await asyncio.shield(asyncio.to_thread(store.expire_approval, pending.id))
        raise


async def _answer(store: SessionStore, approval_id: int) -> Approval:
    probe = await asyncio.to_thread(store.change_probe)
    try:
        while True:
            approval = await asyncio.to_thread(store.approval, approval_id)
            if approval is None:
                raise LookupError(f"approval {approval_id} was removed from {store.path}")
            if approval.state != "pending":
                return approval
            while not probe.changed():
                await asyncio.sleep(POLL_INTERVAL)
    finally:
        probe.close()


class StoreElicitor:
    """An elicitor that asks through ``state.db`` (see the module docstring).

    ``allow-once`` and ``allow-always`` accept the form with the answer given to
    ``permissions_respond`` (fields left out take their defaults); ``deny`` declines.  A form
    answer is never reused, so ``allow-always`` is recorded but acts as ``allow-once``.
    """

    kind = "elicitation"

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def __repr__(self) -> str:
        return f"StoreElicitor({self.store!r})"

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        payload = {
            "message": request.message,
            "fields": [
                {
                    "name": f.name,
                    "type": f.type,
                    "title": f.title,
                    "description": f.description,
                    "required": f.required,
                    "default": f.default,
                    "choices": list(f.choices),
                    "multiple": f.multiple,
                }
                for f in request.fields
            ],
        }
        # The host's own yes/no questions (e.g. a write-capable tool of an untrusted server)
        # are told apart from a server's form questions.
        kind = request.subject if request.kind == "approval" else self.kind
        approval = await ask(
            self.store,
            kind,
            server=request.server,
            summary=request.message,
            payload=payload,
        )
        if approval.state != "allowed":
            return ElicitationAnswer("decline")
        return ElicitationAnswer("accept", dict(approval.answer or {}))
