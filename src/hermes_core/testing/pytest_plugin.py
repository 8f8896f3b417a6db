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

from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pytest

from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.testing.runner import HermesRunner
from hermes_platform import declaration
from hermes_platform.host import clear_caches, use_host
from hermes_platform.testing import FakeHost

if TYPE_CHECKING:
    from hermes_core.host.setup.factory import HostFactory
    from hermes_platform.host import Host


class InstallFakeHost(Protocol):
    """The ``hermes_fake_host`` fixture: installs a :class:`FakeHost` (its arguments) until the
    test ends, and returns it."""

    def __call__(
        self,
        platform: str = "linux",
        *,
        env: Mapping[str, str] | None = None,
        home: str | None = None,
        machine: str = "x86_64",
        sysctl: Mapping[str, int] | None = None,
        live_pids: Iterable[int] = (),
    ) -> FakeHost: ...


class MakeHostFactory(Protocol):
    """The ``hermes_factory`` fixture: a host factory with the built-ins and *plugin*."""

    def __call__(self, plugin: object, name: str = "plugin-under-test") -> HostFactory: ...


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
def hermes_fake_host() -> Iterator[InstallFakeHost]:
    """A factory installing a FakeHost (``platform``, ``env=``, ``home=``, ``machine=``)."""
    active: list[AbstractContextManager[Host]] = []

    def install(
        platform: str = "linux",
        *,
        env: Mapping[str, str] | None = None,
        home: str | None = None,
        machine: str = "x86_64",
        sysctl: Mapping[str, int] | None = None,
        live_pids: Iterable[int] = (),
    ) -> FakeHost:
        host = FakeHost(
            platform, env=env, home=home, machine=machine, sysctl=sysctl, live_pids=live_pids
        )
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
def hermes_factory(hermes_pm: HermesPluginManager, hermes_home: Path) -> MakeHostFactory:
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
