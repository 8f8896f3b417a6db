"""A thread-safe, blocking facade over :class:`MCPHost` for agents that call tools from threads.

::

    with SyncMCPHost(servers) as host:             # starts its own event loop thread
        result = host.call_tool("mcp_acme_studio_render", {"scene": "lobby"})

Every method may be called from any thread; calls run on the host's loop.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

from hermes_core.host.calls.call import Result
from hermes_core.host.calls.intercept.step import ActiveInterceptor
from hermes_core.host.host import MCPHost
from hermes_core.host.server_notifications import ProgressCallback
from hermes_core.host.server_spec import HostServer
from hermes_core.host.server_status import ServerStatus
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.host.transports import Opener
from hermes_core.offers.elicitation import Elicitor
from hermes_core.plugins.types import SamplingProvider

if TYPE_CHECKING:  # (config reading stays unloaded until a watcher is asked for)
    from hermes_core.host.config_watch import ConfigWatcher
    from hermes_core.host.setup.config_source import ConfigSource
    from hermes_core.host.trust.state import TrustState

__all__ = ["SyncMCPHost"]

T = TypeVar("T")
#: How long an interrupted or timed-out wait lets its coroutine finish cancelling.
CANCEL_GRACE_SECONDS = 10.0


class SyncMCPHost:
    """:class:`MCPHost` on a private event loop in a daemon thread."""

    def __init__(
        self,
        servers: Iterable[HostServer],
        *,
        transports: Mapping[str, Opener] | None = None,
        elicitor: Elicitor | None = None,
        factory: ConfigSource | None = None,
        sampling_providers: Mapping[str, SamplingProvider] | None = None,
        trust: TrustState | None = None,
        interceptors: Mapping[str, ActiveInterceptor] | None = None,
        telemetry: bool | None = None,
    ) -> None:
        """The arguments are :class:`MCPHost`'s.  *elicitor* and the sampling backends run on
        the host's loop."""
        self._servers = list(servers)
        self._build: Callable[[], MCPHost] = functools.partial(
            MCPHost,
            self._servers,
            transports=transports,
            elicitor=elicitor,
            factory=factory,
            sampling_providers=sampling_providers,
            trust=trust,
            interceptors=interceptors,
            telemetry=telemetry,
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="hermes-mcp", daemon=True
        )
        self._host: MCPHost | None = None
        self._closed = False

    def _run(self, coro: Coroutine[object, object, T], timeout: float | None = None) -> T:
        """Run *coro* on the loop and wait for it.  When the wait ends early (*timeout*, or
        an exception such as ``KeyboardInterrupt`` in this thread), the coroutine is cancelled
        on the loop and given up to :data:`CANCEL_GRACE_SECONDS` to finish cancelling (a call
        tells its server ``notifications/cancelled`` and frees its server's slot) before the
        exception propagates: ``TimeoutError`` for *timeout*."""
        if not self._thread.is_alive():
            coro.close()
            raise RuntimeError("the MCP host is not running; use it inside `with SyncMCPHost(...)`")
        box: list[asyncio.Task[T]] = []
        finished = threading.Event()

        def begin() -> None:
            task = self._loop.create_task(coro)
            task.add_done_callback(lambda _: finished.set())
            box.append(task)

        self._loop.call_soon_threadsafe(begin)
        try:
            if not finished.wait(timeout):
                raise TimeoutError(f"no result within {timeout:g} s; the call was cancelled")
        except BaseException:
            # begin() was queued first, so the task exists when this runs on the loop.
            self._loop.call_soon_threadsafe(lambda: box[0].cancel())
            finished.wait(CANCEL_GRACE_SECONDS)
            raise
        return box[0].result()

    @property
    def host(self) -> MCPHost:
        if self._host is None:
            raise RuntimeError("the MCP host has not been started")
        return self._host

    def start(self) -> dict[str, str | None]:
        """Start the loop thread and connect every enabled server (concurrently).

        Interrupted (``KeyboardInterrupt``, or any other exception while it waits), it stops
        every server it started, then lets the exception through: ``with`` never calls
        ``__exit__`` for a failed ``__enter__``, so no process may be left to it."""
        self._thread.start()

        async def start() -> dict[str, str | None]:
            self._host = self._build()
            return await self._host.start()

        try:
            return self._run(start())
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._host is not None and self._thread.is_alive():
            self._run(self._host.close())
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> SyncMCPHost:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def tools(self, server: str | None = None) -> list[ToolEntry]:
        return self.host.tools(server)

    def search_tools(self, query: str, limit: int = 5) -> list[ToolEntry]:
        """See :meth:`MCPHost.search_tools` (the index is thread-safe)."""
        return self.host.search_tools(query, limit)

    def match_tools(self, pattern: str, limit: int = 5) -> list[ToolEntry]:
        """See :meth:`MCPHost.match_tools`."""
        return self.host.match_tools(pattern, limit)

    def status(self) -> list[ServerStatus]:
        return self.host.status()

    def check(self, server: str) -> bool:
        return self.host.gate.check(server)

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, object] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Result:
        """Call a tool and wait for its result (from any thread).

        *timeout*: seconds to wait (``None``: the server's own ``timeout``).  When they pass,
        the call is cancelled (the server is sent ``notifications/cancelled`` and the server's
        slot is freed for the next call) and ``TimeoutError`` is raised.
        *on_progress* runs on the host's loop thread (see :meth:`MCPHost.call_tool`).
        """
        return self._run(self.host.call_tool(name, arguments, on_progress=on_progress), timeout)

    def reload(self, servers: Iterable[HostServer]) -> dict[str, list[str]]:
        return self._run(self.host.reload(list(servers)))

    def watch_config(
        self, path: str | os.PathLike[str] | None = None, *, interval: float = 0.5
    ) -> ConfigWatcher:
        """Follow ``config.yaml`` (see :meth:`MCPHost.watch_config`); stops with the host."""

        async def watch() -> ConfigWatcher:
            return self.host.watch_config(path, interval=interval)

        return self._run(watch())
