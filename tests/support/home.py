"""A throwaway Hermes home for the whole test run: no test reads or writes the real user's
``~/.hermes`` (its config, tokens, caches), whatever environment a test hands a subprocess."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

_ROOT = Path(tempfile.mkdtemp(prefix="hermes-tests-home-"))
atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)

#: ``$HERMES_HOME`` for every test that does not choose its own.
TEST_HOME = _ROOT / ".hermes"


def clean_env(base: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """*base* without ``HERMES_*``, then *extra*; ``HERMES_HOME`` is the run's throwaway home
    unless *extra* names a ``HERMES_HOME`` or a ``HOME`` (whose ``.hermes`` the test wants)."""
    env = {k: v for k, v in base.items() if not k.startswith("HERMES_")}
    env.update(extra or {})
    if "HERMES_HOME" not in env and "HOME" not in (extra or {}):
        env["HERMES_HOME"] = str(TEST_HOME)
    return env
