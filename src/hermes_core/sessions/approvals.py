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
import json
import logging
from collections.abc import Mapping

from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest
from hermes_core.sessions.models import Approval
from hermes_core.sessions.store import SessionStore

__all__ = ["MAX_PENDING_PER_SERVER", "MAX_QUESTION_BYTES", "POLL_INTERVAL", "StoreElicitor", "ask"]

POLL_INTERVAL = 0.2
MAX_PENDING_PER_SERVER = 4
"""How many of one server's questions may wait in the store at once; more are declined."""
MAX_QUESTION_BYTES = 64 * 1024
"""The largest question (its text and fields, as stored) put in the store; larger ones are
declined, never stored."""

log = logging.getLogger(__name__)


async def ask(
    store: SessionStore,
    kind: str,
    *,
    server: str = "",
    summary: str = "",
    payload: Mapping[str, object] | None = None,
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
    answer is never reused, so ``allow-always`` is recorded but acts as ``allow-once`` — except
    for the host's own question before a tool call (``remember``), where it asks the host to
    remember "always" for that tool (docs/trust.md).
    """

    kind = "elicitation"

    def __init__(
        self,
        store: SessionStore,
        *,
        max_pending: int = MAX_PENDING_PER_SERVER,
        max_bytes: int = MAX_QUESTION_BYTES,
    ) -> None:
        self.store = store
        self.max_pending = max_pending
        self.max_bytes = max_bytes
        self._pending: dict[str, int] = {}  # server -> its questions waiting in the store

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
        size = len(json.dumps(payload).encode()) + len(request.message.encode())
        if size > self.max_bytes:
            log.warning(
                "MCP server '%s': a question of %d bytes was declined (more than %d; not stored)",
                request.server,
                size,
                self.max_bytes,
            )
            return ElicitationAnswer("decline")
        waiting = self._pending.get(request.server, 0)
        if waiting >= self.max_pending:
            log.warning(
                "MCP server '%s': a question was declined: %d of its questions are already "
                "waiting for an answer (the most at once)",
                request.server,
                waiting,
            )
            return ElicitationAnswer("decline")
        self._pending[request.server] = waiting + 1
        try:
            approval = await ask(
                self.store,
                kind,
                server=request.server,
                summary=request.message,
                payload=payload,
            )
        finally:
            left = self._pending.get(request.server, 1) - 1
            if left:
                self._pending[request.server] = left
            else:
                self._pending.pop(request.server, None)
        if request.kind == "approval" and request.remember:
            # allow-always / deny on a tool call: the host keeps the decision for the tool
            # (allow-always: "always"; a plain deny stays a one-off).
            if approval.state == "allowed":
                always = approval.decision == "allow-always"
                return ElicitationAnswer("accept", {"remember": "always"} if always else {})
            return ElicitationAnswer("decline")
        if approval.state != "allowed":
            return ElicitationAnswer("decline")
        return ElicitationAnswer("accept", dict(approval.answer or {}))
