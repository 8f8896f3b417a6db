"""The ``registries:`` block of ``config.yaml``: which MCP registries ``search`` and ``install``
ask, in order (default: the official registry).

```yaml
registries:
  official: https://registry.modelcontextprotocol.io
  acme:
    url: https://mcp.acme.internal
    token: ${ACME_REGISTRY_TOKEN}      # the value lives in $HERMES_HOME/.env
```

Every problem names the file, the line and the key; an unknown key has a did-you-mean.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from hermes_core.config.errors import ConfigError
from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.loader import LoadedConfig
from hermes_core.spelling import unknown_name
from hermes_core.yaml_lines import line_of, plain

__all__ = ["OFFICIAL", "Registry", "configured_registries", "pick_registries"]

OFFICIAL = "https://registry.modelcontextprotocol.io"
_KEYS = ("url", "token")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Registry:
    name: str
    url: str
    """The base URL (``…/v0.1/servers`` is appended), without a trailing slash."""
    token_variable: str | None = None
    """The ``.env``/environment variable holding the bearer token."""

    def token(self) -> str | None:
        """The token's value (environment first, then ``.env``); ``None`` when unset."""
        if self.token_variable is None:
            return None
        value = os.environ.get(self.token_variable) or load_dotenv().get(self.token_variable)
        return value or None

    def __repr__(self) -> str:
        return f"Registry({self.name!r}, {self.url!r})"


def _url_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "must be an https:// URL"
    if parts.query or parts.fragment or parts.username or parts.password:
        return "must be a plain base URL (no query, fragment or credentials)"
    return None


def _problem(loaded: LoadedConfig, key: str, node: object, sub: str, reason: str) -> ConfigError:
    line = line_of(node, sub) if sub and node is not None else None
    if line is None and loaded.tree is not None:
        line = line_of(loaded.tree, "registries")
    return ConfigError(reason, path=str(loaded.path), line=line, key=key)


def configured_registries(loaded: LoadedConfig) -> list[Registry]:
    """The registries of *loaded* (``config.yaml``), in file order; raises :class:`ConfigError`
    (every problem, the first with the rest in ``more``)."""
    tree = loaded.tree
    if tree is None or "registries" not in tree:
        return [Registry("official", OFFICIAL)]
    node = tree["registries"]
    raw = plain(node)
    if not isinstance(raw, dict) or not raw:
        raise _problem(loaded, "registries", None, "", "must be a mapping of names to URLs")
    found: list[Registry] = []
    errors: list[ConfigError] = []
    for name, spec in raw.items():
        key = f"registries.{name}"
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            errors.append(_problem(loaded, key, node, str(name), "is not a valid registry name"))
            continue
        if isinstance(spec, str):
            spec = {"url": spec}
        if not isinstance(spec, dict):
            errors.append(_problem(loaded, key, node, name, "must be a URL or {url, token}"))
            continue
        for unknown in (k for k in spec if k not in _KEYS):
            errors.append(
                _problem(
                    loaded,
                    f"{key}.{unknown}",
                    node,
                    f"{name}.{unknown}",
                    unknown_name(str(unknown), _KEYS),
                )
            )
        url = spec.get("url")
        if not isinstance(url, str) or _url_problem(url) is not None:
            reason = "is required" if url is None else (_url_problem(str(url)) or "must be text")
            errors.append(_problem(loaded, f"{key}.url", node, f"{name}.url", reason))
            continue
        token = spec.get("token")
        variable = None
        if token is not None:
            match = _REFERENCE.fullmatch(str(token))
            if match is None:
                errors.append(
                    _problem(
                        loaded,
                        f"{key}.token",
                        node,
                        f"{name}.token",
                        "must be a ${VAR} reference: put the token in $HERMES_HOME/.env "
                        "(never in config.yaml) and write token: ${VAR}",
                    )
                )
                continue
            variable = match.group(1)
        found.append(Registry(name, url.rstrip("/"), variable))
    if errors:
        head, *rest = errors
        raise ConfigError(
            head.reason, path=head.path, line=head.line, key=head.key, more=tuple(rest)
        )
    return found


def pick_registries(configured: list[Registry], wanted: str | None) -> list[Registry]:
    """*configured*, or the one *wanted* names (a configured name, or a URL: a configured
    registry of that URL keeps its token; any other URL is asked without one)."""
    if wanted is None:
        return configured
    by_name: Mapping[str, Registry] = {r.name: r for r in configured}
    if wanted in by_name:
        return [by_name[wanted]]
    url = wanted.rstrip("/")
    for registry in configured:
        if registry.url == url:
            return [registry]
    problem = _url_problem(url)
    if problem is not None:
        known = ", ".join(by_name) or "none"
        raise ValueError(
            f"--registry {wanted!r}: not a configured registry (configured: {known}) "
            f"and not a URL ({problem})"
        )
    return [Registry(urlsplit(url).hostname or url, url)]
