"""The ``intercept`` step (:class:`InterceptStep`): the configured call interceptors around a
call, right after the administrator's ``policy``.

This is how a plugin extends a call: not a second model beside the pipeline, but a step of
this one kind, which wraps the rest of the chain in each selected interceptor's
``before``/``after`` as any :class:`~hermes_core.host.calls.call.CallStep` wraps ``proceed``.

Each server's chain is the built-in interceptors (``audit``, ``result_budget``), then the
host-wide ``interceptors:``, then the server's own, in that order: ``before`` runs first to
last, ``after`` last to first, so the first listed wraps the others (the audit log sees every
decision and the final result; the budget cuts what the user's interceptors left).  A call
an interceptor refused still goes back through the ``after`` of those that had let it pass.

An interceptor that raises (or returns something it may not) fails the call closed with its
name and its plugin's: nothing is sent, or the result is withheld; the host goes on.  An
``async`` one that has not answered by the call's deadline (the server's ``timeout``, each
``before`` and ``after`` on its own) is cancelled and fails the call closed the same way; a
result an ``after`` puts in place must look like one (``content`` a list of content items,
``isError`` a bool, ``structuredContent`` an object), or the call fails closed.  A
synchronous interceptor runs on the host's event loop and cannot be cut: it is the plugin's
to return.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeVar

from hermes_core.host.calls.call import Proceed, Result, ToolCall
from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.plugins.interceptors import (
    AfterCall,
    BeforeCall,
    Decision,
    InterceptedCall,
    InterceptorRecord,
    Verdict,
)
from hermes_core.sanitize import clean_text
from hermes_core.sanitize.urls import display_url

__all__ = ["ActiveInterceptor", "InterceptStep", "intercepted_call"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

_NO_HINTS: Mapping[str, object] = MappingProxyType({})
#: How much of an interceptor's reason the agent and the audit log get.
MAX_REASON = 500


@dataclass(frozen=True, slots=True)
class ActiveInterceptor:
    """One interceptor as a host runs it: its name and its bound callables."""

    name: str
    before: BeforeCall | None = None
    after: AfterCall | None = None
    provider: str = ""
    """The plugin that registered it (named with the interceptor when it fails)."""


def _reason(text: object) -> str:
    shown = clean_text(str(text)).strip()
    return shown if len(shown) <= MAX_REASON else shown[: MAX_REASON - 1] + "…"


def intercepted_call(call: ToolCall, started: float | None = None) -> InterceptedCall:
    """What the interceptors see of *call* (a fresh object, kept on the call)."""
    entry, server = call.entry, call.server
    # (positional: a third of the keyword call's cost, once per call)
    view = InterceptedCall(
        call.name,
        entry.server,
        entry.tool,
        call.arguments,
        entry.annotations or _NO_HINTS,
        server.trust,
        server.transport,
        _shown_url(server.url) if server.url else None,
        server.command if not server.url else None,
        _budget(entry, server),
        time.monotonic() if started is None else started,
        span=call.span,
        fixed_arguments=entry.override.fixed if entry.override is not None else _NO_HINTS,
    )
    call.intercepted = view
    return view


@functools.lru_cache(maxsize=256)
def _shown_url(url: str) -> str:
    return display_url(url)


def _budget(entry: ToolEntry, server: HostServer) -> int:
    hint = entry.max_result_chars
    budget = (
        server.max_result_tokens if entry.max_result_tokens is None else entry.max_result_tokens
    )
    if hint is not None and (hint + 3) // 4 < budget:
        return (hint + 3) // 4
    return budget


class _Hung(Exception):
    """An ``async`` interceptor did not answer by the call's deadline."""


async def _awaited(answer: Awaitable[_T] | _T, deadline: float) -> _T:
    """What an ``async`` interceptor answered within *deadline* seconds (anything else is
    returned as it is); :class:`_Hung` past it (the interceptor's coroutine is cancelled)."""
    if not inspect.isawaitable(answer):
        return answer
    try:
        return await asyncio.wait_for(answer, deadline)
    except TimeoutError:
        raise _Hung(f"it did not answer within the call's deadline of {deadline:g}s") from None


def _malformed(result: Mapping[str, object]) -> str | None:
    """What is wrong with the shape of a result an ``after`` put in place (``None``: fine)."""
    content = result.get("content")
    if "content" in result:
        if not isinstance(content, list):
            return f"its result's 'content' is a {type(content).__name__}, not a list"
        for index, item in enumerate(content):
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                return f"its result's content item {index} is not an object with a 'type'"
    if "isError" in result and not isinstance(result["isError"], bool):
        return f"its result's 'isError' is a {type(result['isError']).__name__}, not a bool"
    if "structuredContent" in result and not isinstance(result["structuredContent"], dict):
        kind = type(result["structuredContent"]).__name__
        return f"its result's 'structuredContent' is a {kind}, not an object"
    return None


class InterceptStep:
    """Runs each server's interceptors (by name, from *registered*) around its calls."""

    name = "intercept"

    def __init__(
        self,
        registered: Mapping[str, ActiveInterceptor],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._registered = registered
        self._clock = clock
        # a server's interceptor names -> the interceptors (a name not registered: itself)
        self._lists: dict[tuple[str, ...], list[ActiveInterceptor | str]] = {}

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return bool(server.interceptors)

    def __call__(self, call: ToolCall, proceed: Proceed) -> Awaitable[Result]:
        return self._intercept(call, proceed)

    async def _intercept(self, call: ToolCall, proceed: Proceed) -> Result:
        view = intercepted_call(call, self._clock())
        entered: list[ActiveInterceptor] = []
        result: Result | None = None
        names = call.server.interceptors
        chosen = self._lists.get(names)
        if chosen is None:
            chosen = self._lists[names] = [self._registered.get(n) or n for n in names]
        deadline = call.server.timeout
        for active in chosen:
            if isinstance(active, str):
                result = _failed(view, active, "before", "it is not registered")
                break
            entered.append(active)
            name = active.name
            if active.before is None:
                continue
            try:
                decision = active.before(view)
                if decision is not None and not isinstance(decision, Decision):
                    decision = await _awaited(decision, deadline)
            except _Hung as exc:
                log.warning("interceptor %r hung before %s: %s", name, call.name, exc)
                result = _failed(view, name, "before", str(exc), active.provider)
                break
            except Exception as exc:
                log.warning("interceptor %r failed before %s", name, call.name, exc_info=True)
                why = f"{type(exc).__name__}: {exc}"
                result = _failed(view, name, "before", why, active.provider)
                break
            refused = _apply(view, call, active, decision)
            if refused is not None:
                result = refused
                break
        if result is None:
            try:
                result = await proceed(call)
            except asyncio.CancelledError:
                _cancelled(entered, view)
                raise
        for active in reversed(entered):
            if active.after is None:
                continue
            try:
                replaced = active.after(view, result)
                if replaced is not None and type(replaced) is not dict:
                    replaced = await _awaited(replaced, deadline)
            except _Hung as exc:
                log.warning("interceptor %r hung after %s: %s", active.name, call.name, exc)
                result = _failed(view, active.name, "after", str(exc), active.provider)
                continue
            except Exception as exc:
                log.warning("interceptor %r failed after %s", active.name, call.name, exc_info=True)
                why = f"{type(exc).__name__}: {exc}"
                result = _failed(view, active.name, "after", why, active.provider)
                continue
            if replaced is None or replaced is result:
                continue
            if not isinstance(replaced, dict):
                why = f"its after returned a {type(replaced).__name__}, not a result mapping"
                result = _failed(view, active.name, "after", why, active.provider)
                continue
            wrong = _malformed(replaced)
            if wrong is not None:
                result = _failed(view, active.name, "after", wrong, active.provider)
                continue
            view.decisions.append(InterceptorRecord(active.name, "after", Verdict.REPLACE))
            result = replaced
        return result


#: What the ``after`` callables see of a call cancelled while it waited (the audit's line).
CANCELLED: Result = CallError(
    "the call was cancelled before it answered", CallState.CANCELLED
).result()


def _cancelled(entered: list[ActiveInterceptor], view: InterceptedCall) -> None:
    """Tell the ``after`` callables of a cancelled call, synchronously (an ``async`` one's
    coroutine is closed unrun: nothing may be awaited in a task being cancelled)."""
    for active in reversed(entered):
        if active.after is None:
            continue
        try:
            answer = active.after(view, dict(CANCELLED))
            if inspect.iscoroutine(answer):
                answer.close()
        except Exception:
            log.warning("interceptor %r failed after a cancelled call", active.name, exc_info=True)


def _apply(
    view: InterceptedCall, call: ToolCall, active: ActiveInterceptor, decision: object
) -> Result | None:
    """Apply a ``before`` answer to the call; the refusal's result, or ``None`` to go on."""
    if decision is None or decision is Decision.allow():
        return None
    name = active.name
    if not isinstance(decision, Decision):
        why = f"its before returned a {type(decision).__name__}, not a Decision"
        return _failed(view, name, "before", why, active.provider)
    reason = _reason(decision.reason) if decision.reason else ""
    if decision.verdict is Verdict.REWRITE and decision.arguments is not None:
        call.arguments = dict(decision.arguments)
        view.arguments = call.arguments
        view.decisions.append(InterceptorRecord(name, "before", Verdict.REWRITE, reason))
        return None
    if decision.verdict is Verdict.REFUSE:
        view.decisions.append(InterceptorRecord(name, "before", Verdict.REFUSE, reason))
        return CallError(
            f"The call to {view.tool!r} on MCP server '{view.server}' was refused by the "
            f"interceptor {name!r}: {reason}",
            CallState.REFUSED,
            view.server,
            retryable=False,
            details={"interceptor": name},
        ).result()
    if decision.verdict is Verdict.PASS:
        return None
    why = f"its before returned the verdict {decision.verdict}"
    return _failed(view, name, "before", why, active.provider)


def _failed(view: InterceptedCall, name: str, stage: str, why: str, provider: str = "") -> Result:
    reason = _reason(why)
    view.decisions.append(InterceptorRecord(name, stage, Verdict.FAIL, reason))
    what = "the call was not sent" if stage == "before" else "its result is withheld"
    of = f" (plugin {_reason(provider)!r})" if provider else ""
    return CallError(
        f"The call to {view.tool!r} on MCP server '{view.server}' failed closed: the "
        f"interceptor {name!r}{of} failed ({reason}); {what}.",
        CallState.INTERCEPTOR_FAILED,
        view.server,
        retryable=False,
        details={"interceptor": name},
    ).result()
