"""Call interceptors: the plugins' part of the call pipeline.

There is one extension model for tool calls, the pipeline's steps
(:class:`~hermes_core.host.calls.call.CallStep`: ``name``, ``applies(entry, server)``,
``step(call, proceed)``).  A plugin's ``call_interceptor`` is not a second model: it is run by
a step of one documented kind, :class:`~.step.InterceptStep` (the ``intercept`` step, right
after ``policy``), which wraps the rest of the chain in the ``before``/``after`` pairs each
server selects (``interceptors:`` in ``config.yaml``), exactly as a step wraps ``proceed``.

- :mod:`.step` — the ``intercept`` step, and what an interceptor sees of a call;
- :mod:`.table` — the interceptors a host knows, each made ready (``create``) on first use;
- :mod:`.settings` — an interceptor's settings block, checked when ``config.yaml`` is read;
- :mod:`.builtin` — the built-in interceptors' registrations (``audit``, ``result_budget``,
  ``secrets_guard``; their code is :mod:`hermes_core.host.calls.audit`,
  :mod:`~hermes_core.host.calls.result_budget`, :mod:`~hermes_core.host.calls.secrets_guard`).

The public names are imported from their module on first use, so the plugin manager's loading
of the built-in registrations (:mod:`.builtin`, light) does not import the step's machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core._lazy import LazyExports

if TYPE_CHECKING:
    from hermes_core.host.calls.intercept.builtin import BUILTIN_INTERCEPTORS
    from hermes_core.host.calls.intercept.step import (
        ActiveInterceptor,
        InterceptStep,
        intercepted_call,
    )
    from hermes_core.host.calls.intercept.table import InterceptorTable

__all__ = [
    "BUILTIN_INTERCEPTORS",
    "ActiveInterceptor",
    "InterceptStep",
    "InterceptorTable",
    "intercepted_call",
]

_EXPORTS = LazyExports(
    __name__,
    {
        "ActiveInterceptor": "step",
        "BUILTIN_INTERCEPTORS": "builtin",
        "InterceptStep": "step",
        "InterceptorTable": "table",
        "intercepted_call": "step",
    },
)


def __getattr__(name: str) -> object:
    return _EXPORTS.get(name)


def __dir__() -> list[str]:
    return _EXPORTS.names()
