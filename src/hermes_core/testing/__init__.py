"""Testing helpers for plugin authors (the ``hermes`` pytest plugin uses them).

- :func:`check_plugin` calls every hook a plugin module implements and checks
  what comes back, the way Hermes will.
- :class:`hermes_platform.testing.FakeHost` evaluates declarations for
  win32, darwin and linux on any machine.
- :class:`HermesRunner` runs the ``hermes`` command against a throwaway ``HERMES_HOME``
  (the ``hermes`` fixture), and :func:`make_call` builds the call an interceptor is given.
"""

from __future__ import annotations

from hermes_core.plugins.manager import HOOK_TYPES, HermesPluginManager
from hermes_core.testing.calls import make_call
from hermes_core.testing.runner import HermesResult, HermesRunner
from hermes_platform.testing import FakeHost

__all__ = ["FakeHost", "HermesResult", "HermesRunner", "check_plugin", "make_call"]


def check_plugin(plugin: object, name: str = "plugin-under-test") -> dict[str, list[object]]:
    """Register *plugin* alone in a strict manager, apply it, and return what each hook gave.

    Raises :class:`hermes_core.plugins.PluginError` for anything Hermes would
    reject (a raising hook, a wrong type, a declaration that does not parse,
    a name clash with a built-in), and for a locator or GPU probe that raises,
    returns the wrong type or is not callable when it runs on fake linux,
    darwin and win32 hosts (with every location your declarations give it and
    a sample one).  What it registered is removed again.
    """
    manager = HermesPluginManager(strict=True)
    manager.load_builtins()
    manager.register_plugin(plugin, name)
    try:
        manager.apply()
        manager.check_contributions()
        contributed: dict[str, list[object]] = {}
        for hook in HOOK_TYPES:
            contributed[hook] = [r.item for r in manager._collect(hook) if r.plugin == name]
        return contributed
    finally:
        manager.unapply()
