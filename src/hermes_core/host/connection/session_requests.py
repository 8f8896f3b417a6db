"""What a connection can be asked to send: one typed request per kind, each knowing how to send
itself on a live session (the SDK's ``call_tool`` signature is the model).

:meth:`~hermes_core.host.connection.requests.RequestRunner.request` runs any
:class:`SessionRequest` within the connection's turn and deadline.  A ``tools/call``
(:class:`ToolCallRequest`) is the one request the 2026-07-28 revision may answer with an
``InputRequiredResult`` (its rounds are answered, then it is sent again with the answers) or a
task handle (followed to its result); a task-augmented call of 2025-11-25
(:class:`TaskCallRequest`), a plain call on the pipe (:class:`PipeCallRequest`) and any other
work on the session (:class:`SessionWork`: a listing, a resource read) are sent once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from hermes_core.host.connection.task_follow import TaskFollower
from hermes_core.host.transports.raw_calls import RawCalls
from hermes_core.json_types import JsonObject

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.types import CallToolResult, InputRequiredResult, InputResponses, Result

__all__ = [
    "PipeCallRequest",
    "SessionRequest",
    "SessionWork",
    "TaskCallRequest",
    "ToolCallRequest",
]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class SessionRequest(Protocol[T_co]):
    """One request to a server's live session."""

    def send(self, session: ClientSession) -> Awaitable[T_co]:
        """Send it on *session*; await its answer."""
        ...


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """``tools/call`` of *tool* in either revision; *progress* hears the server's progress."""

    tool: str
    arguments: dict[str, object]
    progress: ProgressFnT | None = None

    def send(
        self,
        session: ClientSession,
        responses: InputResponses | None = None,
        state: str | None = None,
    ) -> Awaitable[CallToolResult | InputRequiredResult | Result]:
        """The SDK's coroutine (no frame of ours on the call path); with the answers of a
        2026-07-28 server's input round (*responses*, *state*) when it asked for some."""
        return session.call_tool(
            self.tool,
            self.arguments,
            progress_callback=self.progress,
            input_responses=responses,
            request_state=state,
            allow_input_required=True,
            allow_claimed=True,  # a 2026-07-28 task handle: followed by the connection
        )


@dataclass(frozen=True, slots=True)
class TaskCallRequest:
    """``tools/call`` of *tool* as a 2025-11-25 task, to its final result."""

    tool: str
    arguments: dict[str, object]
    progress: ProgressFnT | None
    follower: TaskFollower

    def send(self, session: ClientSession) -> Awaitable[CallToolResult]:
        return self.follower.call_as_task(session, self.tool, self.arguments, self.progress)


@dataclass(frozen=True, slots=True)
class PipeCallRequest:
    """A plain ``tools/call`` on a stdio server's pipe (:mod:`..transports.raw_calls`): the
    response's ``result`` object, not validated yet."""

    lane: RawCalls
    tool: str
    arguments: dict[str, object]

    def send(self, session: ClientSession) -> Awaitable[JsonObject]:
        return self.lane.tools_call(self.tool, self.arguments)


@dataclass(frozen=True, slots=True)
class SessionWork(Generic[T]):
    """Any other work on the session (``work(session)``): a listing read page by page, a
    resource read or a prompt got (which answer their own input rounds)."""

    work: Callable[[ClientSession], Awaitable[T]]

    def send(self, session: ClientSession) -> Awaitable[T]:
        return self.work(session)
