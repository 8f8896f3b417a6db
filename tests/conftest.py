"""Shared fixtures. The ``hermes`` pytest plugin (installed with hermes-core) adds
``hermes_pm``, ``hermes_fake_host`` and ``hermes_declarations``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_platform import declaration
from hermes_platform.host import clear_caches
from support.browser import Browser
from support.home import TEST_HOME
from support.postgres import postgres_server  # noqa: F401 - the session's PostgreSQL

# The suite runs plugins strictly: a broken plugin fails loudly here.
os.environ.setdefault("HERMES_STRICT_PLUGINS", "1")
# No test touches the real user's ~/.hermes: code run in this process, and subprocesses that
# inherit our environment, use a throwaway home (tests that need their own set it).
os.environ["HERMES_HOME"] = str(TEST_HOME)


@pytest.fixture(autouse=True)
def _clean_state() -> Iterator[None]:
    declaration.clear()
    saved_hook = declaration.on_change
    clear_caches()
    tables = _registration_tables()
    saved = [dict(table._items) for table in tables]
    yield
    declaration.on_change = saved_hook
    declaration.clear()
    # A test that applied plugins in this process (location kinds, version sources, GPU
    # probes) must not leave them registered for the next one: messages that list the
    # registered kinds would depend on the order tests run in.
    for table, items in zip(tables, saved, strict=True):
        if table._items != items:
            with table._lock:
                table._items.clear()
                table._items.update(items)
            table._changed()
    clear_caches()


def _registration_tables() -> list[Any]:
    from hermes_platform.host.gpu import GPU_PROBES
    from hermes_platform.resolver.app import LOCATION_KINDS
    from hermes_platform.resolver.versions import VERSION_KINDS

    return [LOCATION_KINDS, VERSION_KINDS, GPU_PROBES]


@pytest.fixture
def home(hermes_home: Path) -> Path:
    """The test's own empty ``HERMES_HOME``: the public ``hermes_home`` fixture of
    ``hermes_core.testing`` (set in this process's environment too), under the name the test
    files use.  A module that needs a home with more in it (a config, a ``.env``) defines its
    own ``home``, which takes precedence there."""
    return hermes_home


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Browser:
    """The user's browser for OAuth logins: approves at once (see ``support.browser``)."""
    from hermes_core.auth import callback

    fake = Browser()
    monkeypatch.setattr(callback, "open_browser", fake)
    return fake
