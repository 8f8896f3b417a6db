"""``proxy:`` of ``config.yaml``: the profiles ``hermes mcp proxy`` serves.

::

    proxy:
      profiles:
        docs:
          servers: [filesystem]            # only these servers' tools (default: every server)
          tools:
            include: ["mcp_filesystem_read_*"]
            exclude: ["*_write_*"]
          token: ${DOCS_PROXY_TOKEN}       # --http: the bearer token that selects this profile
      header_timeout: 10   # --http: seconds a connection has to send a request's head

A profile can only narrow what the host offers: it names servers of ``mcp_servers`` and
filters the host's tool names (``mcp_<server>_<tool>``, case-sensitive globs); nothing in it
can add a tool, lift a gate or change a trust tier.  Every problem is a :class:`ConfigError`
at file:line; unknown keys and unknown names get a did-you-mean.
"""

from __future__ import annotations

import fnmatch
import functools
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hermes_core.config.errors import ConfigError
from hermes_core.config.interpolate import expand, load_dotenv
from hermes_core.config.loader import LoadedConfig
from hermes_core.serve.http_guard import HEADER_TIMEOUT
from hermes_core.spelling import closest, unknown_name
from hermes_core.yaml_lines import plain

__all__ = ["EVERYTHING", "PROFILE_KEYS", "Profile", "ProxyConfig", "load_proxy_config"]

PROFILE_KEYS = ("servers", "tools", "token")
_TOOLS_KEYS = ("include", "exclude")
_PROXY_KEYS = ("profiles", "header_timeout")
#: ``proxy.header_timeout``: at most this many seconds.
MAX_HEADER_TIMEOUT = 300


@dataclass(frozen=True)
class Profile:
    """One profile: the servers it keeps (``None``: all) and its tool filters."""

    name: str
    servers: tuple[str, ...] | None = None
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    token: str | None = field(default=None, repr=False)
    """The bearer token of ``--http`` that selects this profile (a secret: never shown)."""

    def keeps_server(self, server: str) -> bool:
        return self.servers is None or server in self.servers

    def keeps(self, server: str, name: str) -> bool:
        """Whether the host's tool *name* (of *server*) is offered through this profile."""
        if not self.keeps_server(server):
            return False
        if self.include is not None and not any(fnmatch.fnmatchcase(name, p) for p in self.include):
            return False
        return not any(fnmatch.fnmatchcase(name, p) for p in self.exclude)


#: What is served without ``--profile``: everything the host offers.
EVERYTHING = Profile("(all)")


@dataclass(frozen=True)
class ProxyConfig:
    profiles: Mapping[str, Profile]
    header_timeout: float = HEADER_TIMEOUT
    """``--http``: seconds a connection has to send a request's head (:mod:`.http_guard`)."""

    def profile(self, name: str | None, loaded: LoadedConfig) -> Profile:
        """The profile named *name* (``None``: everything); unknown is a ConfigError."""
        if name is None:
            return EVERYTHING
        found = self.profiles.get(name)
        if found is not None:
            return found
        known = sorted(self.profiles)
        close = closest(name, known)
        hint = f"; did you mean {close!r}?" if close else ""
        listed = ", ".join(known) if known else "none"
        line = loaded.line_of("proxy.profiles") or loaded.line_of("proxy")
        raise ConfigError(
            f"no proxy profile named {name!r} (profiles: {listed}){hint}",
            path=str(loaded.path),
            line=line or 1,
            key="proxy.profiles",
        )


def _unknown(key: str, allowed: Iterable[str]) -> str:
    return unknown_name(key, allowed)


class _Reader:
    def __init__(self, loaded: LoadedConfig) -> None:
        self.loaded = loaded

    def error(self, key: str, reason: str) -> ConfigError:
        line = self.loaded.line_of(key)
        return ConfigError(reason, path=str(self.loaded.path), line=line, key=key)

    def mapping(self, value: object, key: str, allowed: tuple[str, ...]) -> dict[str, object]:
        if not isinstance(value, dict):
            raise self.error(key, f"must be a mapping (got {type(value).__name__})")
        for name in value:
            if str(name) not in allowed:
                raise self.error(f"{key}.{name}", _unknown(str(name), allowed))
        return {str(k): v for k, v in value.items()}

    def names(self, value: object, key: str) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(key, "must be a list of names")
        return tuple(value)


def load_proxy_config(loaded: LoadedConfig) -> ProxyConfig:
    """The ``proxy:`` block of *loaded* (absent: no profiles), checked key by key; a token's
    ``${VAR}`` is read from the environment, then ``$HERMES_HOME/.env``."""
    dotenv = functools.cache(load_dotenv)
    tree = loaded.tree
    if tree is None or "proxy" not in tree:
        return ProxyConfig({})
    read = _Reader(loaded)
    block = read.mapping(plain(tree["proxy"]) or {}, "proxy", _PROXY_KEYS)
    raw_profiles = block.get("profiles") or {}
    if not isinstance(raw_profiles, dict):
        raise read.error("proxy.profiles", "must be a mapping of profile names to settings")
    servers = set(loaded.config.mcp_servers)
    profiles: dict[str, Profile] = {}
    tokens: dict[str, str] = {}
    for name, raw in raw_profiles.items():
        key = f"proxy.profiles.{name}"
        entry = read.mapping(raw or {}, key, PROFILE_KEYS)
        chosen = None
        if "servers" in entry:
            chosen = read.names(entry["servers"], f"{key}.servers")
            for server in chosen:
                if server not in servers:
                    close = closest(server, sorted(servers))
                    hint = f"; did you mean {close!r}?" if close else ""
                    raise read.error(
                        f"{key}.servers", f"no server named {server!r} in mcp_servers{hint}"
                    )
        tools = read.mapping(entry.get("tools") or {}, f"{key}.tools", _TOOLS_KEYS)
        include = (
            read.names(tools["include"], f"{key}.tools.include") if "include" in tools else None
        )
        exclude = read.names(tools["exclude"], f"{key}.tools.exclude") if "exclude" in tools else ()
        token = entry.get("token")
        if token is not None:
            if not isinstance(token, str):
                raise read.error(f"{key}.token", "must be a text (write ${VAR}: a secret)")
            try:
                token = expand(token, env=os.environ, dotenv=dotenv())
            except ValueError as exc:
                raise read.error(f"{key}.token", str(exc)) from None
            if len(token) < 16:
                raise read.error(f"{key}.token", "must be at least 16 characters long")
            if token in tokens:
                raise read.error(f"{key}.token", f"is the same as profile {tokens[token]!r}'s")
            tokens[token] = str(name)
        profiles[str(name)] = Profile(str(name), chosen, include, exclude, token)
    timeout = block.get("header_timeout", HEADER_TIMEOUT)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout <= MAX_HEADER_TIMEOUT
    ):
        raise read.error(
            "proxy.header_timeout",
            f"must be a number of seconds above 0, at most {MAX_HEADER_TIMEOUT} (got {timeout!r})",
        )
    return ProxyConfig(profiles, float(timeout))
