"""The ``hermes`` pytest plugin: fixtures for testing Hermes plugins and declarations.

Installed with hermes-core (``pytest11`` entry point), so a plugin's own test
suite gets:

- ``hermes_pm``: a fresh, strict plugin manager with the built-ins only;
  ``hermes_pm.register_plugin(obj, "name")`` then ``hermes_pm.apply()``
  registers an inline plugin; everything is undone after the test.
- ``hermes_fake_host``: ``hermes_fake_host("win32", env={...})`` installs a
  :class:`~hermes_platform.testing.FakeHost` for the rest of the test.
- ``hermes_declarations``: an empty declaration registry, emptied again after.
- ``hermes_home``: a throwaway ``HERMES_HOME`` (an empty folder, set in the environment for
  the test); write its ``config.yaml`` with ``(hermes_home / "config.yaml").write_text(...)``.
- ``hermes``: the ``hermes`` command against ``hermes_home``:
  ``hermes("mcp", "list")`` in a child process, ``hermes.in_process("mcp", "list")`` in the
  test's own; each returns ``exit_code``, ``stdout`` and ``stderr``.
- ``hermes_factory``: ``hermes_factory(plugin_module)`` registers the plugin under test in
  ``hermes_pm`` and returns the ``HostFactory`` every ``hermes`` command uses, built from it:
  ``factory.host()`` runs ``hermes_home``'s ``config.yaml`` in the test's process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.testing.runner import HermesRunner
from hermes_platform import declaration
from hermes_platform.host import clear_caches, use_host
from hermes_platform.testing import FakeHost


@pytest.fixture
def hermes_declarations() -> Iterator[None]:
    """An empty declaration registry for the test (its on_change hook restored after)."""
    saved = declaration.on_change
    declaration.clear()
    yield
    declaration.clear()
    declaration.on_change = saved


@pytest.fixture
def hermes_pm(hermes_declarations: None) -> Iterator[HermesPluginManager]:
    """A strict plugin manager with the built-ins; what it applies is undone afterwards."""
    manager = HermesPluginManager(strict=True)
    manager.load_builtins()
    yield manager
    manager.unapply()


@pytest.fixture
def hermes_fake_host() -> Iterator[Callable[..., FakeHost]]:
    """A factory installing a FakeHost (``platform``, ``env=``, ``home=``, ``machine=``)."""
    active: list[AbstractContextManager[Any]] = []

    def install(platform: str = "linux", **kwargs: Any) -> FakeHost:
        host = FakeHost(platform, **kwargs)
        context = use_host(host)
        context.__enter__()
        active.append(context)
        return host

    yield install
    while active:
        active.pop().__exit__(None, None, None)
    clear_caches()


@pytest.fixture
def hermes_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``HERMES_HOME`` for the test, set in the environment."""
    home = tmp_path_factory.mktemp("hermes-home")
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


@pytest.fixture
def hermes(hermes_home: Path) -> HermesRunner:
    """The ``hermes`` command against ``hermes_home``."""
    return HermesRunner(hermes_home)


@pytest.fixture
def hermes_factory(hermes_pm: HermesPluginManager, hermes_home: Path) -> Callable[..., Any]:
    """``hermes_factory(plugin, name="plugin-under-test")``: a host factory with the built-ins
    and *plugin* (a module or object of ``@hookimpl`` functions), reading ``hermes_home``."""

    # The host (the SDK, anyio, httpx) is imported by a test that asks for it, not by every
    # pytest session that has hermes-core installed.
    from hermes_core.host.setup.factory import HostFactory

    def make(plugin: object, name: str = "plugin-under-test") -> HostFactory:
        hermes_pm.register_plugin(plugin, name)
        hermes_pm.apply()
        return HostFactory.from_manager(hermes_pm)

    return make
