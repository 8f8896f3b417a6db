"""The ``hermes`` pytest plugin: fixtures for testing Hermes plugins and declarations.

Installed with hermes-core (``pytest11`` entry point), so a plugin's own test
suite gets:

- ``hermes_pm``: a fresh, strict plugin manager with the built-ins only;
  ``hermes_pm.register_plugin(obj, "name")`` then ``hermes_pm.apply()``
  registers an inline plugin; everything is undone after the test.
- ``hermes_fake_host``: ``hermes_fake_host("win32", env={...})`` installs a
  :class:`~hermes_platform.testing.FakeHost` for the rest of the test.
- ``hermes_declarations``: an empty declaration registry, emptied again after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest

from hermes_core.plugins.manager import HermesPluginManager
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
