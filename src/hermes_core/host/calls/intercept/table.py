"""The interceptors a host knows, made ready on first use.

The built-in ones (:mod:`.builtin`: ``audit``, ``result_budget``) come through
the ``call_interceptor`` hook like a third party's (``hermes_core.builtin.interceptors``), and
an :class:`~hermes_core.host.host.MCPHost` built without a plugin manager knows them too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from hermes_core.host.calls.intercept.builtin import BUILTIN_INTERCEPTORS
from hermes_core.host.calls.intercept.step import ActiveInterceptor
from hermes_core.plugins.interceptors import CallInterceptor, InterceptorSetup

__all__ = ["InterceptorTable", "Setups"]

log = logging.getLogger(__name__)

#: ``setup(name)``: what an interceptor's ``create`` is given.
Setups = Callable[[str], InterceptorSetup]


def _broken(name: str, why: str, provider: str) -> ActiveInterceptor:
    def refuse(_call: object) -> None:
        raise RuntimeError(why)

    return ActiveInterceptor(name, before=refuse, provider=provider)


class InterceptorTable(Mapping[str, ActiveInterceptor]):
    """Registered interceptors by name, each made ready (``create`` called) when a call first
    needs it; one whose ``create`` raises fails every call that selects it, closed."""

    def __init__(self, specs: Mapping[str, CallInterceptor], setups: Setups) -> None:
        self._specs = dict(specs)
        self._setups = setups
        self._active: dict[str, ActiveInterceptor] = {}

    @classmethod
    def builtin(cls, home: Path) -> InterceptorTable:
        """The built-in interceptors with their default settings, under *home*."""
        return cls({s.name: s for s in BUILTIN_INTERCEPTORS}, lambda _n: InterceptorSetup(home))

    def __getitem__(self, name: str) -> ActiveInterceptor:
        active = self._active.get(name)
        if active is not None:
            return active
        spec = self._specs[name]
        if spec.create is None:
            active = ActiveInterceptor(name, spec.before, spec.after, spec.provider)
        else:
            try:
                made = spec.create(self._setups(name))
                active = ActiveInterceptor(
                    name,
                    getattr(made, "before", None),
                    getattr(made, "after", None),
                    spec.provider,
                )
            except Exception as exc:
                log.warning("interceptor %r could not be set up", name, exc_info=True)
                why = f"it could not be set up: {type(exc).__name__}: {exc}"
                active = _broken(name, why, spec.provider)
        self._active[name] = active
        return active

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def close(self) -> None:
        """Close what the ready interceptors hold open (the audit log's file)."""
        for active in self._active.values():
            closer = getattr(getattr(active.after, "__self__", None), "close", None)
            if callable(closer):
                closer()
