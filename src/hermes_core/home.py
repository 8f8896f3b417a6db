"""Where Hermes keeps its files: ``$HERMES_HOME`` (default ``~/.hermes``).

Standard library only, so a command that needs no configuration model (``hermes plugins
list``, a recorded ``hermes mcp list``) finds the folder without importing pydantic.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["config_path", "hermes_home"]


def hermes_home(env: Mapping[str, str] | None = None) -> Path:
    """``$HERMES_HOME`` (``~`` expanded), default ``~/.hermes``."""
    environ = os.environ if env is None else env
    value = environ.get("HERMES_HOME", "").strip()
    return Path(value).expanduser() if value else Path.home() / ".hermes"


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """``$HERMES_HOME/config.yaml``."""
    return hermes_home(env) / "config.yaml"
