"""A server's missing ``${VAR}``: the variables its entry names that neither the environment
nor ``$HERMES_HOME/.env`` sets, and setting one into ``.env`` from the MCP page (mode 0600,
atomic, other lines kept; the value is never shown again, only *set*)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping

from hermes_core.config.dotenv_file import dotenv_path
from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.secret_lift import store_secrets

__all__ = ["MAX_VALUE", "VariableRefused", "missing_variables", "set_variable"]

#: The longest value the page takes for one variable.
MAX_VALUE = 16 * 1024
# ``${NAME}`` / ``${env:NAME}`` without a default (``$${`` is a literal).
_USED = re.compile(r"(?<!\$)\$\{\s*(?:env:)?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")


class VariableRefused(ValueError):
    """A variable the page may not set (not named by the server, empty, too long)."""


def _dumped(config: object) -> str:
    dump = getattr(config, "model_dump", None)
    data = dump(mode="json") if callable(dump) else config
    return json.dumps(data, default=str)


def used_variables(config: object) -> list[str]:
    """The variables *config* (one server's entry) names, in order, once each."""
    return list(dict.fromkeys(_USED.findall(_dumped(config))))


def missing_variables(
    servers: Mapping[str, object], env: Mapping[str, str] | None = None
) -> dict[str, list[str]]:
    """Each server's variables that nothing sets (servers missing none are left out)."""
    env = os.environ if env is None else env
    dotenv = load_dotenv(dotenv_path())
    missing: dict[str, list[str]] = {}
    for name, config in servers.items():
        unset = [v for v in used_variables(config) if v not in env and v not in dotenv]
        if unset:
            missing[name] = unset
    return missing


def set_variable(config: object, variable: str, value: str) -> None:
    """Set *variable* in ``.env``, when the server's entry (*config*) names it."""
    if variable not in used_variables(config):
        raise VariableRefused(f"this server's entry names no ${{{variable}}}")
    if not value:
        raise VariableRefused(f"give a value for {variable}")
    if len(value) > MAX_VALUE or "\n" in value or "\x00" in value:
        raise VariableRefused(f"the value of {variable} must be one line of at most 16 KiB")
    store_secrets(dotenv_path(), {variable: value})
