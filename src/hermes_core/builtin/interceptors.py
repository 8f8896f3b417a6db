"""The built-in call interceptors, ``audit`` and ``result_budget``, through the
``call_interceptor`` hook (:mod:`hermes_core.host.calls.intercept.builtin` holds them)."""

from __future__ import annotations

from hermes_core.host.calls.intercept.builtin import BUILTIN_INTERCEPTORS
from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import CallInterceptor

__all__ = ["call_interceptor"]


@hookimpl
def call_interceptor() -> list[CallInterceptor]:
    return list(BUILTIN_INTERCEPTORS)
