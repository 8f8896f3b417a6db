"""What the CLI's commands use of a started host: :class:`HostSurface`.

``hermes mcp status``, ``tools``, ``test``, ``get`` and ``call`` run their body on a host
they started (:class:`~hermes_core.host.host.MCPHost`) or, while ``hermes mcp up`` runs, on
the warm host seen through its socket
(:class:`~hermes_core.serve.warm.client.RemoteHost`).  Both are typed as this protocol where
the body takes its host, so mypy checks that each implements all of it: a body that used
something the warm host lacks fails the type check, not a user's command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from hermes_core.host.calls.call import Result
    from hermes_core.host.server_notifications import ProgressCallback
    from hermes_core.host.server_status import ServerStatus
    from hermes_core.host.tasks.log import TaskRecord
    from hermes_core.host.tools.registry import ToolEntry

__all__ = ["HostSurface", "TaskRecorder", "ToolLookup"]


class ToolLookup(Protocol):
    """The registered tools, by name."""

    def get(self, name: str) -> ToolEntry | None: ...

    def entries(self, server: str | None = None) -> list[ToolEntry]: ...


class TaskRecorder(Protocol):
    """Where the tasks of a host's calls are told to (``hermes mcp tasks`` reads the record)."""

    def on_change(self, persist: Callable[[list[TaskRecord]], None]) -> None: ...


class HostSurface(Protocol):
    """A started host as the CLI's commands use it (see the module docstring)."""

    @property
    def registry(self) -> ToolLookup: ...

    @property
    def task_log(self) -> TaskRecorder: ...

    @property
    def unoffered_tools(self) -> dict[str, dict[str, str]]: ...

    def status(self) -> list[ServerStatus]: ...

    def tools(
        self, server: str | None = None, *, include_gated: bool = False
    ) -> list[ToolEntry]: ...

    def search_tools(self, query: str, limit: int = 5) -> list[ToolEntry]: ...

    async def wake(self, name: str) -> str | None: ...

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, object] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
    ) -> Result: ...
