"""The call path of :meth:`MCPHost.call_tool` as an explicit sequence of steps.

::

    resolve the name -> admit -> record -> wake -> gate -> utility -> approve -> send

Each step (:class:`~hermes_core.host.calls.call.CallStep`) says which calls it takes part in;
the chain of the steps that apply is built once per tool entry and server config and cached, so
a step that does not apply costs nothing per call, and the usual call (a connected, trusted
server's own tool) runs admit, record, gate and send only.  A step is added with one line::

    host.pipeline.insert(step, before="send")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping

from hermes_core.host.calls.call import CallStep, Proceed, Result, ToolCall, answered
from hermes_core.host.calls.refusals import (
    CallError,
    CallState,
    fixed_argument_refusal,
    unknown_tool,
)
from hermes_core.host.server_notifications import ProgressCallback
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.registry import ToolEntry, ToolRegistry
from hermes_core.nesting import MAX_ARGUMENT_DEPTH, depth_of, nesting_problem

__all__ = ["CallPipeline"]

#: Cached chains kept at most (entries replaced by re-listings age out when it is reached).
MAX_CHAINS = 4096


class _Link:
    """One step bound to the rest of its chain: calling it starts the step's coroutine (no
    frame of its own on the way)."""

    __slots__ = ("proceed", "step")

    def __init__(self, step: CallStep, proceed: Proceed) -> None:
        self.step = step
        self.proceed = proceed

    def __call__(self, call: ToolCall) -> Awaitable[Result]:
        return self.step(call, self.proceed)


async def _end(call: ToolCall) -> Result:
    raise RuntimeError(f"no step answered the call to {call.name!r} (the last one must)")


class CallPipeline:
    """Resolves a registered name and runs the call through its chain of steps."""

    def __init__(
        self,
        registry: ToolRegistry,
        servers: Mapping[str, HostServer],
        steps: Iterable[CallStep] = (),
        *,
        refused: Callable[[str], Result | None] | None = None,
        unoffered: Callable[[str], str | None] | None = None,
        offered: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        """*refused(name)* answers a call to a name that is not registered because something
        holds the tool back (its pinned definition changed, the user blocked it);
        *unoffered(name)* says why a name missing from the registry is not offered (the reason
        ``hermes mcp status`` gives), or ``None``; the call is refused with it; *offered()*
        names the tools offered now, among which an unknown name's did-you-mean is looked for
        (default: every registered tool)."""
        self._refused = refused
        self._offered = offered
        self._registry = registry
        self._unoffered = unoffered
        self._servers = servers
        self._steps: list[CallStep] = list(steps)
        # id(entry) -> (the entry, its server config, the chain); the entry is kept, so its
        # id is never reused while cached.
        self._chains: dict[int, tuple[ToolEntry, HostServer, Proceed]] = {}

    @property
    def steps(self) -> list[str]:
        """The steps' names, in their order."""
        return [step.name for step in self._steps]

    def insert(
        self, step: CallStep, *, before: str | None = None, after: str | None = None
    ) -> None:
        """Add *step* before the step named *before* or after the one named *after* (neither:
        at the end); later calls run it."""
        if before is not None and after is not None:
            raise ValueError("give before or after, not both")
        names = self.steps
        if before is not None:
            at = self._index(names, before)
        elif after is not None:
            at = self._index(names, after) + 1
        else:
            at = len(names)
        self._steps.insert(at, step)
        self._chains = {}

    def invalidate(self) -> None:
        """Build every chain anew on its next call (what a step's ``applies`` depends on
        changed, e.g. a remembered decision)."""
        self._chains = {}

    def remove(self, name: str) -> CallStep:
        """Take the step named *name* out (and return it)."""
        step = self._steps.pop(self._index(self.steps, name))
        self._chains = {}
        return step

    @staticmethod
    def _index(names: list[str], name: str) -> int:
        try:
            return names.index(name)
        except ValueError:
            raise ValueError(f"no step named {name!r} (steps: {', '.join(names)})") from None

    def chain(self, entry: ToolEntry, server: HostServer) -> Proceed:
        """The steps that apply to calls of *entry* on *server*, linked (cached)."""
        cached = self._chains.get(id(entry))
        if cached is not None and cached[0] is entry and cached[1] is server:
            return cached[2]
        proceed: Proceed = _end
        for step in reversed(self._steps):
            if step.applies(entry, server):
                proceed = _Link(step, proceed)
        if len(self._chains) >= MAX_CHAINS:
            self._chains = {}
        self._chains[id(entry)] = (entry, server, proceed)
        return proceed

    def chain_after(self, step_name: str, entry: ToolEntry, server: HostServer) -> Proceed:
        """The steps after the one named *step_name* that apply to *entry* on *server*, linked
        (not cached): what a step that replaced the call's entry goes on with, so that the
        steps after it decide on the entry it found (the ``wake`` step: the live listing's)."""
        names = self.steps
        at = self._index(names, step_name) + 1
        proceed: Proceed = _end
        for step in reversed(self._steps[at:]):
            if step.applies(entry, server):
                proceed = _Link(step, proceed)
        return proceed

    def resolve(self, name: str) -> tuple[ToolEntry, HostServer] | None:
        """The entry registered as *name* and its server's config (``None``: unknown)."""
        entry = self._registry.get(name)
        if entry is None:
            return None
        return entry, self._servers[entry.server]

    def call(
        self,
        name: str,
        arguments: Mapping[str, object] | None = None,
        on_progress: ProgressCallback | None = None,
        *,
        as_task: bool = False,
    ) -> Awaitable[Result]:
        """Call the tool registered as *name* (await the result); failures come back as
        ``{"error": ...}``.  Not a coroutine itself: it starts the chain's first step.
        *as_task*: call a tool that allows it (``taskSupport: optional``) as a task."""
        entry = self._registry.get(name)
        if entry is None:
            refusal = None if self._refused is None else self._refused(name)
            if refusal is not None:
                return answered(refusal)
            why = self._unoffered(name) if self._unoffered is not None else None
            if why is not None:
                return answered(CallError(why, CallState.NOT_OFFERED).result())
            names = self._offered() if self._offered is not None else self._registry.names()
            return answered(unknown_tool(name, names))
        if arguments and depth_of(arguments, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
            return answered(
                CallError(
                    f"The MCP tool {entry.tool!r} of server '{entry.server}' was NOT "
                    f"run: its arguments nest {nesting_problem()}",
                    CallState.INVALID_ARGUMENTS,
                    entry.server,
                    retryable=False,
                ).result()
            )
        override = entry.override
        if override is not None and (override.fixed or override.defaults):
            sent, passed = override.arguments_for(arguments or {})
            if sent is None:
                return answered(fixed_argument_refusal(entry, passed))
            arguments = sent
        server = self._servers[entry.server]
        cached = self._chains.get(id(entry))
        if cached is not None and cached[0] is entry and cached[1] is server:
            chain = cached[2]
        else:
            chain = self.chain(entry, server)
        return chain(
            ToolCall(name, dict(arguments or {}), on_progress, entry, server, as_task=as_task)
        )
