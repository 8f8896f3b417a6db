"""The CLI's side of the warm host: :class:`RemoteHost` stands in for a started
:class:`MCPHost` in ``hermes mcp status/tools/test/get/call`` while ``hermes mcp up`` runs.

It implements the whole :class:`~hermes_core.host.surface.HostSurface` (mypy checks it where
the CLI hands it to a command's body).  It answers what those commands read (``status()``,
``tools()``, ``search_tools()``, ``unoffered_tools``, ``registry``) from one snapshot taken
when it connects, narrowed to the servers the command would have started (*only*);
and sends ``call_tool`` and ``wake`` to the host (whether a name is held back, not offered or
unknown is the call's own answer, decided once by the host's pipeline).  A call's questions are
asked here, through the command's own :data:`~hermes_core.serve.warm.questions.Asker`; its answer
brings the servers' status after the call and the tasks it started, which go to the command's
:attr:`task_log` target as a cold host's would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, TypeVar

from hermes_core.host.tasks.record import task_record_from
from hermes_core.host.tools.search import ToolSearchIndex
from hermes_core.json_types import JsonObject, JsonValue
from hermes_core.serve.warm.address import connect_unix
from hermes_core.serve.warm.paths import HELLO_TIMEOUT, WarmPaths
from hermes_core.serve.warm.protocol import (
    MAX_LINE,
    entry_from,
    read_message,
    row_from,
    write_message,
)

if TYPE_CHECKING:
    from hermes_core.host.server_notifications import ProgressCallback
    from hermes_core.host.server_status import ServerStatus
    from hermes_core.host.tasks.log import TaskRecord
    from hermes_core.host.tools.registry import ToolEntry
    from hermes_core.serve.warm.questions import Asker

_T = TypeVar("_T")

__all__ = [
    "SNAPSHOT_TIMEOUT",
    "STOP_TIMEOUT",
    "WAKE_TIMEOUT",
    "RemoteHost",
    "WarmHostGone",
    "stop_warm_host",
]

#: How long the snapshot may take once the host said hello (seconds); then the command runs cold.
SNAPSHOT_TIMEOUT = 30.0
#: How long ``hermes mcp down`` waits for the host to stop its servers and answer (seconds).
STOP_TIMEOUT = 60.0
#: How long starting a lazy server may take (``hermes mcp test``; it may download it first).
WAKE_TIMEOUT = 600.0


class WarmHostGone(Exception):
    """The warm host closed the connection, or did not answer in time (the message says
    what it did: "did not answer within 30 s")."""


class _Registry:
    """The snapshot's tools, by name (a :class:`~hermes_core.host.surface.ToolLookup`)."""

    def __init__(self, entries: list[ToolEntry]) -> None:
        self._entries = {e.name: e for e in entries}

    def get(self, name: str) -> ToolEntry | None:
        return self._entries.get(name)

    def entries(self, server: str | None = None) -> list[ToolEntry]:
        found = sorted(self._entries.values(), key=lambda e: e.name)
        return [e for e in found if server is None or e.server == server]


class _TaskTarget:
    """Where a call's tasks go (a :class:`~hermes_core.host.surface.TaskRecorder`): the warm
    host sends them with the call's answer."""

    def __init__(self) -> None:
        self.persist: Callable[[list[TaskRecord]], None] | None = None

    def on_change(self, persist: Callable[[list[TaskRecord]], None]) -> None:
        self.persist = persist

    def record(self, rows: JsonValue) -> None:
        if self.persist is None or not isinstance(rows, list):
            return
        records = [record for row in rows if (record := task_record_from(row)) is not None]
        if records:
            self.persist(records)


async def _open(paths: WarmPaths) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = connect_unix(paths.socket, HELLO_TIMEOUT)  # a path of any length (.address)
    sock.settimeout(None)
    return await asyncio.open_unix_connection(sock=sock, limit=MAX_LINE)


async def _one(paths: WarmPaths, message: Mapping[str, object], timeout: float) -> JsonObject:
    """Send *message*, return the one answer; :class:`WarmHostGone` when none comes in time."""
    try:
        reader, writer = await asyncio.wait_for(_open(paths), timeout)
    except (OSError, TimeoutError) as exc:
        raise WarmHostGone(f"did not accept the connection ({exc})") from None
    try:
        await write_message(writer, message)
        answer = await asyncio.wait_for(read_message(reader), timeout)
    except (OSError, TimeoutError):
        answer = None
    finally:
        writer.close()
    if answer is None:
        raise WarmHostGone(f"did not answer within {timeout:g} s")
    return answer


class RemoteHost:
    """A started host, as seen through the warm host's socket (see the module docstring)."""

    def __init__(
        self,
        paths: WarmPaths,
        snapshot: JsonObject,
        only: Iterable[str] | None,
        ask: Asker | None,
    ) -> None:
        self.paths = paths
        self.pid = snapshot.get("pid")
        self._keep = set(only) if only is not None else None
        self._tasks = _TaskTarget()
        self._search = ToolSearchIndex()
        self._ask = ask
        self._take(snapshot)

    def _take(self, snapshot: JsonObject) -> None:
        """Read the servers and tools of *snapshot* (at connect, and after a wake)."""
        self._snapshot = snapshot
        self._rows = self._mine(snapshot["status"], row_from)
        offered, unoffered = snapshot.get("offered"), snapshot.get("unoffered")
        self._offered = (
            {n for n in offered if isinstance(n, str)} if isinstance(offered, list) else set()
        )
        self._registry = _Registry(self._mine(snapshot["tools"], entry_from))
        self._unoffered: dict[str, dict[str, str]] = {
            server: {t: str(why) for t, why in tools.items()}
            for server, tools in (unoffered.items() if isinstance(unoffered, dict) else ())
            if self._wanted(server) and isinstance(tools, dict)
        }

    def _wanted(self, server: str) -> bool:
        return self._keep is None or server in self._keep

    def _mine(self, rows: JsonValue, make: Callable[[JsonObject], _T]) -> list[_T]:
        """*make* of each row of *rows* whose server is wanted."""
        if not isinstance(rows, list):
            return []
        return [
            make(r)
            for r in rows
            if isinstance(r, dict) and isinstance(s := r.get("server"), str) and self._wanted(s)
        ]

    @classmethod
    async def connect(
        cls,
        paths: WarmPaths,
        only: Iterable[str] | None,
        ask: Asker | None,
    ) -> RemoteHost:
        """The warm host's snapshot, narrowed to *only*."""
        message = {"op": "snapshot"}
        return cls(paths, await _one(paths, message, SNAPSHOT_TIMEOUT), only, ask)

    def narrowed(self, only: Iterable[str]) -> RemoteHost:
        """The same snapshot, narrowed to the servers *only*."""
        return RemoteHost(self.paths, self._snapshot, only, self._ask)

    # -- what the snapshot answers ------------------------------------------------------
    @property
    def registry(self) -> _Registry:
        return self._registry

    @property
    def task_log(self) -> _TaskTarget:
        return self._tasks

    @property
    def unoffered_tools(self) -> dict[str, dict[str, str]]:
        return self._unoffered

    def status(self) -> list[ServerStatus]:
        return list(self._rows)

    def tools(self, server: str | None = None, *, include_gated: bool = False) -> list[ToolEntry]:
        entries = self._registry.entries(server)
        return entries if include_gated else [e for e in entries if e.name in self._offered]

    def search_tools(self, query: str, limit: int = 5) -> list[ToolEntry]:
        """The host's own search (:class:`ToolSearchIndex`) over the snapshot's tools."""
        hidden = [row.server for row in self._rows if not row.offered]
        listing = tuple(self._registry.entries())
        return self._search.search(listing, query, limit, hidden_servers=hidden)

    # -- what the host does ---------------------------------------------------------------
    async def wake(self, name: str) -> str | None:
        answer = await _one(self.paths, {"op": "wake", "name": name}, WAKE_TIMEOUT)
        if isinstance(answer.get("status"), list) and isinstance(answer.get("tools"), list):
            self._take(answer)
        woke = answer.get("result")
        return woke if isinstance(woke, str) else None

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, object] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
    ) -> JsonObject:
        message = {
            "op": "call",
            "name": name,
            "arguments": dict(arguments or {}),
            "ask": self._ask is not None,
        }
        try:
            reader, writer = await asyncio.wait_for(_open(self.paths), HELLO_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise WarmHostGone(f"did not accept the call ({exc})") from None
        try:
            await write_message(writer, message)
            while (answer := await read_message(reader)) is not None:
                if "result" in answer:
                    return self._after(answer)
                report = answer.get("progress")
                if isinstance(report, list) and on_progress is not None:
                    done, total, text = [*report, None, None, None][:3]
                    on_progress(
                        float(done) if isinstance(done, int | float) else 0.0,
                        float(total) if isinstance(total, int | float) else None,
                        text if isinstance(text, str) else None,
                    )
                elif "ask" in answer:
                    reply = await self._ask(answer["ask"]) if self._ask else {"action": "decline"}
                    await write_message(writer, {"answer": reply})
        finally:
            writer.close()
        raise WarmHostGone("closed the connection during the call")

    def _after(self, answer: JsonObject) -> JsonObject:
        """The call's result; the status rows and task records it brought are kept."""
        if isinstance(answer.get("status"), list):
            self._rows = self._mine(answer["status"], row_from)
        self._tasks.record(answer.get("tasks") or [])
        result = answer["result"]
        return result if isinstance(result, dict) else {"error": "bad answer from the warm host"}

    async def close(self) -> None:
        return None


async def stop_warm_host(paths: WarmPaths) -> int | None:
    """Ask the warm host to stop; returns its pid once it has closed every server (it
    answers only then).  :class:`WarmHostGone` when it does not in :data:`STOP_TIMEOUT`."""
    answer = await _one(paths, {"op": "stop"}, STOP_TIMEOUT)
    pid = answer.get("pid")
    return pid if isinstance(pid, int) else None
