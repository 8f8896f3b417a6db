"""One tool call on its way through the pipeline, and what a step of the pipeline is."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hermes_core.host.calls.breaker import CircuitBreaker, Outcome
from hermes_core.host.server_notifications import ProgressCallback
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.json_types import JsonObject
from hermes_core.plugins.interceptors import InterceptedCall

if TYPE_CHECKING:
    from opentelemetry.trace import Span

__all__ = ["CallStep", "Proceed", "Result", "ToolCall", "answered"]

#: What a call returns: the tool's result, or ``{"error": ..., ...}``.
Result = JsonObject
#: The rest of the pipeline after a step.
Proceed = Callable[["ToolCall"], Awaitable[Result]]


@dataclass(slots=True)
class ToolCall:
    """A call as the steps see it.

    *outcome* is what the call says of its server for the circuit breaker (``None``: nothing,
    e.g. it never reached the server for a reason of its own); the step that decides it sets it.
    """

    name: str
    arguments: dict[str, object]
    on_progress: ProgressCallback | None
    entry: ToolEntry
    server: HostServer
    outcome: Outcome | None = None
    breaker: CircuitBreaker | None = None
    """The breaker that admitted the call (set by the ``admit`` step)."""
    as_task: bool = False
    """The caller asked for a task (``MCPHost.start_task``): a tool whose ``taskSupport`` is
    ``optional`` is then called as one (``required``: always)."""
    intercepted: InterceptedCall | None = None
    """What the interceptors see of the call (set by the ``intercept`` step)."""
    span: Span | None = None
    """The call's OpenTelemetry span (set by the ``call_span`` step when telemetry is on)."""


class CallStep(Protocol):
    """A step of :class:`~hermes_core.host.calls.pipeline.CallPipeline`.

    ``applies(entry, server)`` says whether the step takes part in calls of *entry* on *server*
    (asked once per tool and config, never per call); ``await step(call, proceed)`` runs it: it
    may answer at once, or ``await proceed(call)`` and look at (or replace) the result.  An
    ``async def __call__`` is the plain way; a step on the usual call's path may instead return
    ``proceed(call)`` itself (no coroutine frame of its own while the call waits).
    """

    @property
    def name(self) -> str: ...

    def applies(self, entry: ToolEntry, server: HostServer) -> bool: ...

    def __call__(self, call: ToolCall, proceed: Proceed) -> Awaitable[Result]: ...


async def answered(result: Result) -> Result:
    """*result* as an awaitable: the answer of a step that returns without a frame of its own."""
    return result
