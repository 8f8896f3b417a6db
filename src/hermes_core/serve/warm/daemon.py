"""The warm host: one :class:`MCPHost` kept running for a ``HERMES_HOME``, answering the CLI
over a Unix socket (``hermes mcp up``; :mod:`.protocol` is the wire).

The socket is created under a 0177 umask (mode 0600: only this user), in ``run/`` (0700), and
bound through a short path when the home's is too long (:mod:`.address`).  The host follows
``config.yaml`` edits (:meth:`MCPHost.watch_config`).  A call's questions (an upstream server's
elicitation, the approval of an untrusted write) go back to the CLI client that made the call,
when it said it can ask (``"ask": true``), else they are declined and the approval fails
closed.  A client that goes away mid-call cancels the call.  ``{"op": "stop"}`` closes every
server and removes the socket and pid file, then answers; the host ends even when that
client has gone away by then.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING

from hermes_core.json_types import JsonObject
from hermes_core.offers.elicitation import Action, ElicitationAnswer, ElicitationRequest
from hermes_core.serve.proxy.downstream import DownstreamElicitor
from hermes_core.serve.warm.address import bind_unix
from hermes_core.serve.warm.paths import WarmPaths
from hermes_core.serve.warm.protocol import (
    MAX_LINE,
    entry_data,
    read_message,
    row_data,
    write_message,
)

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost

__all__ = ["WarmHost"]

log = logging.getLogger(__name__)
_ACTIONS: dict[str, Action] = {"accept": "accept", "decline": "decline", "cancel": "cancel"}


class _SocketCaller:
    """A CLI client with a call in flight: asks its questions over the connection."""

    def __init__(
        self, writer: asyncio.StreamWriter, answers: asyncio.Queue[JsonObject | None], ask: bool
    ) -> None:
        self._writer = writer
        self._answers = answers
        self._ask = ask
        self._lock = asyncio.Lock()

    @property
    def can_elicit(self) -> bool:
        return self._ask

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        async with self._lock:  # one question at a time on one connection
            question = asdict(request)
            question["schema"] = dict(request.schema)
            await write_message(self._writer, {"ask": question})
            answer = await self._answers.get()
        if not answer:
            return ElicitationAnswer("cancel")
        given, content = answer.get("action"), answer.get("content")
        action = _ACTIONS.get(given) if isinstance(given, str) else None
        if action is None:
            return ElicitationAnswer("decline")
        return ElicitationAnswer(action, content if isinstance(content, dict) else None)


class WarmHost:
    """Serves *host* on *paths*' socket until stopped."""

    def __init__(self, host: MCPHost, paths: WarmPaths, elicitor: DownstreamElicitor) -> None:
        self.host = host
        self.paths = paths
        self.elicitor = elicitor
        self._stop = asyncio.Event()
        self._writers: set[asyncio.StreamWriter] = set()

    async def serve(self, ready: Callable[[], None]) -> None:
        """Listen, write the pid file, call *ready*, and serve until a client says stop."""
        self.paths.prepare_run_dir()
        self.paths.clean()
        previous = os.umask(0o177)
        try:
            sock = bind_unix(self.paths.socket)
        finally:
            os.umask(previous)
        server = await asyncio.start_unix_server(self._client, sock=sock, limit=MAX_LINE)
        try:
            self.paths.write_pid(os.getpid())
            async with server:
                ready()
                await self._stop.wait()
                for writer in list(self._writers):  # nobody waits on an idle client
                    writer.close()
        finally:
            self.paths.clean()

    def stop(self) -> None:
        self._stop.set()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while (message := await read_message(reader)) is not None:
                if message.get("op") == "stop":
                    await self._stop_host(writer)
                    return
                await self._answer(message, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def _stop_host(self, writer: asyncio.StreamWriter) -> None:
        """Stop every server, remove the files, answer: the host ends even when the client
        that asked is gone (its answer cannot be written) or closing a server fails."""
        try:
            await self.host.close()  # every server stopped before the answer
        finally:
            self.paths.clean()
            try:
                with contextlib.suppress(ConnectionError, OSError):
                    await write_message(writer, {"ok": True, "pid": os.getpid()})
            finally:
                self.stop()

    async def _answer(
        self, message: JsonObject, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        op = message.get("op")
        if op == "hello":
            await write_message(writer, {"hello": "hermes", "pid": os.getpid()})
        elif op == "snapshot":
            await write_message(writer, self._snapshot())
        elif op == "wake":  # the servers' state after it, as a new snapshot
            woke = await self.host.wake(str(message.get("name")))
            await write_message(writer, {"result": woke, **self._snapshot()})
        elif op == "call":
            await self._call(message, reader, writer)
        else:
            await write_message(writer, {"error": f"unknown op {op!r}"})

    def _snapshot(self) -> dict[str, object]:
        """What a :class:`~hermes_core.serve.warm.client.RemoteHost` reads: the servers'
        status and the tools (why a name is refused is the call's own answer)."""
        host = self.host
        return {
            "pid": os.getpid(),
            "status": [row_data(r) for r in host.status()],
            "tools": [entry_data(e) for e in host.tools(include_gated=True)],
            "offered": [e.name for e in host.tools()],
            "unoffered": host.unoffered_tools,
        }

    async def _call(
        self, message: JsonObject, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        name = str(message.get("name"))
        arguments = message.get("arguments")
        if not isinstance(arguments, dict):
            arguments = {}
        answers: asyncio.Queue[JsonObject | None] = asyncio.Queue()
        caller = _SocketCaller(writer, answers, bool(message.get("ask")))
        reports: asyncio.Queue[tuple[float, float | None, str | None] | None] = asyncio.Queue()

        def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.put_nowait((progress, total, message))

        async def run() -> Mapping[str, object]:
            entry = self.host.registry.get(name)
            server = entry.server if entry is not None else ""
            with self.elicitor.calling(server, caller):
                return await self.host.call_tool(name, arguments, on_progress=on_progress)

        async def listen() -> None:  # answers to questions; the end of the stream cancels
            while (got := await read_message(reader)) is not None:
                answer = got.get("answer")
                answers.put_nowait(answer if isinstance(answer, dict) else None)
            call.cancel()
            answers.put_nowait(None)

        async def forward() -> None:
            while (item := await reports.get()) is not None:
                await write_message(writer, {"progress": list(item)})

        before = {(r.server, r.task_id) for r in self.host.task_log.records()}
        call = asyncio.ensure_future(run())
        listener = asyncio.ensure_future(listen())
        forwarder = asyncio.ensure_future(forward())
        try:
            result = await call
        except asyncio.CancelledError:
            log.info("the CLI client went away: the call to %r was cancelled", name)
            raise
        finally:
            listener.cancel()
            reports.put_nowait(None)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await forwarder
        started = [  # this call's tasks, oldest first, for the client's record of them
            r.as_json()
            for r in reversed(self.host.task_log.records())
            if (r.server, r.task_id) not in before
        ]
        status = [row_data(r) for r in self.host.status()]
        await write_message(writer, {"result": result, "status": status, "tasks": started})
