"""Literal secrets out of imported entries, into ``$HERMES_HOME/.env``.

A value is a secret when its key says so (``…TOKEN``, ``…SECRET``, ``…KEY``,
``…PASSWORD``, ``Authorization`` …) and it is written out literally (no
``${…}``).  It is stored in ``.env`` under a variable and the entry refers to
it (``${GITHUB_TOKEN}``), so ``config.yaml`` never holds the value, and an
export prints the reference.  :mod:`.dotenv_update` writes them to ``.env``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hermes_core.config.secret_keys import AUTH_SCHEME as _BEARER
from hermes_core.config.secret_keys import SECRET_KEY, is_secret_key
from hermes_core.importing.model import Translated

__all__ = ["SECRET_KEY", "is_secret_key", "lift_secrets", "mask"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def mask(value: str) -> str:
    """A value for display: references and an auth scheme shown, anything else hidden."""
    if not value:
        return value
    scheme = re.match(r"(?i)(bearer|basic|token)\s+", value)
    head = scheme.group(0) if scheme else ""
    parts = re.split(r"(\$\{[^}]*\})", value[len(head) :])
    return head + "".join(
        part if part.startswith("${") else ("***" if part.strip() else part) for part in parts
    )


def _variable_base(server: str, key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{server}_{key}").strip("_").upper()


class _Names:
    """Variable names for secrets: the natural name unless it already holds something else."""

    def __init__(self, environ: Mapping[str, str], dotenv: Mapping[str, str]) -> None:
        self.environ = environ
        self.dotenv = dotenv
        self.planned: dict[str, str] = {}

    def claim(self, candidates: list[str], value: str) -> str:
        for name in candidates:
            if self._free(name, value):
                self.planned[name] = value
                return name
        base = candidates[-1]
        for number in range(2, 1000):
            name = f"{base}_{number}"
            if self._free(name, value):
                self.planned[name] = value
                return name
        raise RuntimeError("no free variable name")  # pragma: no cover - 1000 clashes

    def _free(self, name: str, value: str) -> bool:
        return all(
            source.get(name, value) == value for source in (self.environ, self.dotenv, self.planned)
        )


def lift_secrets(
    items: list[Translated], *, environ: Mapping[str, str], dotenv: Mapping[str, str]
) -> None:
    """Move literal secrets of every entry into :attr:`Translated.secrets` (in place)."""
    names = _Names(environ, dotenv)
    for item in items:
        if item.entry is None:
            continue
        server = item.name
        env = item.entry.get("env")
        if isinstance(env, dict):
            for key, value in env.items():
                if is_secret_key(key) and _literal(value):
                    candidates = [key] if _NAME.fullmatch(key) else []
                    candidates.append(_variable_base(server, key))
                    env[key] = _store(item, names, candidates, value)
        headers = item.entry.get("headers")
        if isinstance(headers, dict):
            for key, value in headers.items():
                if not (is_secret_key(key) and _literal(value)):
                    continue
                scheme = _BEARER.fullmatch(value) if key.lower() == "authorization" else None
                if scheme is not None:
                    variable = _store(
                        item, names, [_variable_base(server, "token")], scheme.group(2)
                    )
                    headers[key] = f"{scheme.group(1)} {variable}"
                else:
                    headers[key] = _store(item, names, [_variable_base(server, key)], value)
        oauth = item.entry.get("oauth")
        if isinstance(oauth, dict) and _literal(oauth.get("client_secret")):
            oauth["client_secret"] = _store(
                item, names, [_variable_base(server, "client_secret")], oauth["client_secret"]
            )


def _literal(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and "${" not in value


def _store(item: Translated, names: _Names, candidates: list[str], value: str) -> str:
    # Hermes reads "$${" as "${": a stored value is used as is, never expanded.
    name = names.claim(candidates, value)
    item.secrets[name] = value
    return "${" + name + "}"
