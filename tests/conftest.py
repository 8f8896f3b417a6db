"""Shared fixtures. The ``hermes`` pytest plugin (installed with hermes-core) adds
``hermes_pm``, ``hermes_fake_host`` and ``hermes_declarations``."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from hermes_platform import declaration
from hermes_platform.host import clear_caches
from support.browser import Browser

# The suite runs plugins strictly: a broken plugin fails loudly here.
os.environ.setdefault("HERMES_STRICT_PLUGINS", "1")


@pytest.fixture(autouse=True)
def _clean_state() -> Iterator[None]:
    declaration.clear()
    saved_hook = declaration.on_change
    clear_caches()
    yield
    declaration.on_change = saved_hook
    declaration.clear()
    clear_caches()


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Browser:
    """The user's browser for OAuth logins: approves at once (see ``support.browser``)."""
    from hermes_core.auth import callback

    fake = Browser()
    monkeypatch.setattr(callback, "open_browser", fake)
    return fake
