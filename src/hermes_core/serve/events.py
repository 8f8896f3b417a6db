"""The events of ``hermes mcp serve``: a watcher over ``state.db`` feeding a bounded queue.

* The queue starts empty when the server starts (history is read with ``messages_read``):
  the watcher records the newest message and approval ids as its baseline.
* Every :data:`POLL_INTERVAL` seconds it asks SQLite whether another connection committed
  (``PRAGMA data_version``, no table read); only then does it read what is new.
* Kinds: ``message`` (a new message in any conversation), ``approval_requested``,
  ``approval_resolved`` (answered or expired).
* Cursors are positive integers, increasing by one per event, never reused within the server
  process.  The queue keeps the newest :data:`QUEUE_LIMIT` events; a client asking for events
  after a cursor older than the oldest kept is told it ``fell_behind`` (and how many it missed).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

import anyio

from hermes_core.sessions.connections import ChangeProbe
from hermes_core.sessions.models import Approval, Message
from hermes_core.sessions.pg_questions import PgChangeProbe
from hermes_core.sessions.store import SessionStore

__all__ = ["POLL_INTERVAL", "QUEUE_LIMIT", "Event", "EventQueue", "StoreWatcher"]

log = logging.getLogger(__name__)
POLL_INTERVAL = 0.2
QUEUE_LIMIT = 1000
PREVIEW_CHARS = 500
READ_BATCH = 500
EventKind = Literal["message", "approval_requested", "approval_resolved"]


@dataclass(frozen=True)
class Event:
    cursor: int
    kind: EventKind
    session_key: str | None
    time: float
    data: dict[str, object] = field(hash=False)


@dataclass(frozen=True)
class Page:
    events: list[Event]
    next_cursor: int
    fell_behind: bool
    missed: int


class EventQueue:
    """Bounded, cursor-addressed, with waiters woken on each new event (one event loop)."""

    def __init__(self, limit: int = QUEUE_LIMIT) -> None:
        self.limit = limit
        self._events: deque[Event] = deque(maxlen=limit)
        self._last = 0
        self._arrived = anyio.Event()

    @property
    def last_cursor(self) -> int:
        return self._last

    def push(self, kind: EventKind, session_key: str | None, data: dict[str, object]) -> Event:
        self._last += 1
        event = Event(self._last, kind, session_key, time.time(), data)
        self._events.append(event)
        arrived, self._arrived = self._arrived, anyio.Event()
        arrived.set()
        return event

    def page(self, after: int, *, session_key: str | None = None, limit: int = 20) -> Page:
        after = max(0, after)
        oldest = self._events[0].cursor if self._events else self._last + 1
        missed = max(0, oldest - after - 1) if after < self._last else 0
        found = [
            e
            for e in self._events
            if e.cursor > after and (session_key is None or e.session_key == session_key)
        ][:limit]
        # Without a match the next cursor skips what was scanned, so a filtered poll advances.
        full = bool(found) and len(found) == limit
        next_cursor = found[-1].cursor if full else max(after, self._last)
        return Page(found, next_cursor, missed > 0, missed)

    async def wait(self, after: int, *, session_key: str | None, timeout: float) -> Page:
        """The first event after *after* (matching *session_key*), waiting up to *timeout*."""
        with anyio.move_on_after(timeout):
            while True:
                arrived = self._arrived
                page = self.page(after, session_key=session_key, limit=1)
                if page.events:
                    return page
                await arrived.wait()
        return self.page(after, session_key=session_key, limit=1)


class StoreWatcher:
    """Turns changes of ``state.db`` into events (run :meth:`run` in a task group)."""

    def __init__(self, store: SessionStore, queue: EventQueue) -> None:
        self.store = store
        self.queue = queue
        # The probe first: a write landing while the baseline is read is then seen once.
        self._probe: ChangeProbe | PgChangeProbe | None = store.change_probe()
        self._last_message, self._last_approval = store.last_ids()
        self._pending = {a.id for a in store.open_approvals()}
        self.polls = 0
        self.reads = 0

    def check(self) -> int:
        """One look: returns how many events it queued (0 when nothing changed)."""
        if self._probe is None:
            self._probe = self.store.change_probe()
        self.polls += 1
        if not self._probe.changed():
            return 0
        self.reads += 1
        before = self.queue.last_cursor
        while True:  # in batches, all of them: the probe reports a commit only once
            batch = self.store.messages_after(self._last_message, limit=READ_BATCH)
            for message in batch:
                self._last_message = message.id
                if message.role in ("user", "assistant") and message.text:
                    self.queue.push("message", message.session_key, _message_data(message))
            if len(batch) < READ_BATCH:
                break
        resolved_ids = sorted(self._pending)
        for approval in self.store.approvals(after=self._last_approval):
            self._last_approval = approval.id
            self.queue.push("approval_requested", None, _approval_data(approval))
            if approval.state == "pending":
                self._pending.add(approval.id)
            else:
                self.queue.push("approval_resolved", None, _approval_data(approval))
        if resolved_ids:
            for approval in self.store.approvals(resolved_ids):
                if approval.state != "pending":
                    self._pending.discard(approval.id)
                    self.queue.push("approval_resolved", None, _approval_data(approval))
        return self.queue.last_cursor - before

    async def run(self, interval: float = POLL_INTERVAL) -> None:
        try:
            while True:
                try:
                    queued = self.check()
                except Exception as exc:  # noqa: BLE001 - a bad read must not end the server
                    log.warning("reading %s for events failed: %s", self.store.path, exc)
                else:
                    if queued:
                        log.debug("queued %d event(s)", queued)
                await anyio.sleep(interval)
        finally:
            if self._probe is not None:
                with contextlib.suppress(Exception):
                    self._probe.close()
                self._probe = None


def _message_data(message: Message) -> dict[str, object]:
    return {
        "message_id": message.id,
        "role": message.role,
        "author": message.author,
        "content": message.text[:PREVIEW_CHARS],
        "truncated": len(message.text) > PREVIEW_CHARS,
        "timestamp": message.created_at,
        "attachments": message.attachment_count,
    }


def _approval_data(approval: Approval) -> dict[str, object]:
    return {
        "id": approval.id,
        "kind": approval.kind,
        "server": approval.server,
        "summary": approval.summary,
        "state": approval.state,
        "decision": approval.decision,
    }
