"""Shared fixtures: a clean declaration registry and fresh host caches for every test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hermes_platform import declaration
from hermes_platform.host import clear_caches, use_host
from hermes_platform.testing import FakeHost


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
def fake_host() -> Iterator[Callable[..., FakeHost]]:
    """``fake_host("win32", env=...)`` installs a FakeHost for the rest of the test."""
    stack: list[Any] = []

    def make(platform: str = "linux", **kwargs: Any) -> FakeHost:
        host = FakeHost(platform, **kwargs)
        ctx = use_host(host)
        ctx.__enter__()
        stack.append(ctx)
        return host

    yield make
    while stack:
        stack.pop().__exit__(None, None, None)
