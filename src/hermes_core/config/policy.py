"""The administrator's policy: a file the user's config cannot widen (see docs/trust.md).

Read from ``$HERMES_POLICY`` and from ``/etc/hermes/policy.yaml``; when both exist both apply
(a user who points ``HERMES_POLICY`` elsewhere cannot drop the machine's policy).  A missing
``/etc/hermes/policy.yaml`` is no policy; a ``HERMES_POLICY`` that names a missing file, or a
file that cannot be read, fails closed (every server refused, saying why); a file that is read
but wrong (bad YAML, an unknown key, a bad value) is a :class:`ConfigError` at ``file:line``.

::

    deny:
      servers:
        - command: sh            # a program's name (every program that runs: wrappers too)
        - url: {scheme: http}    # any plain-HTTP server
      tools: ["*/delete_*"]      # server/tool globs, any case, given or registered names
    allow:
      servers:
        - path: /usr/bin/*       # where it really is (the child's PATH, links followed)
        - url: https://*.corp.example/mcp/*
        - name: github           # with command/url/path in the same rule: all must match
    catalog_only: true           # only entries that are what a catalog entry installs
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hermes_core.config.errors import ConfigError
from hermes_core.config.policy_rules import Policy, ServerRule, UrlRule
from hermes_core.spelling import unknown_name
from hermes_core.yaml_input import YamlInputError, load_yaml
from hermes_core.yaml_lines import line_of, plain

__all__ = ["SYSTEM_POLICY", "load_policy"]

SYSTEM_POLICY = Path("/etc/hermes/policy.yaml")
#: A policy file larger than this is not read (fails closed).
MAX_POLICY_BYTES = 1024 * 1024

_TOP = ("allow", "deny", "catalog_only")
_LIST = ("servers", "tools")
_RULE = ("name", "url", "command", "path")
_URL = ("scheme", "host", "path")


def load_policy(env: Mapping[str, str] | None = None) -> Policy | None:
    """The policy in force (``None``: none).  ``ConfigError`` for a file that is wrong."""
    environ = os.environ if env is None else env
    found: list[Policy] = []
    named = environ.get("HERMES_POLICY", "").strip()
    if named:
        given = _read(Path(named).expanduser(), required=True)
        if given is not None:
            found.append(given)
    system = _read(SYSTEM_POLICY, required=False) if str(SYSTEM_POLICY) != named else None
    if system is not None:
        found.append(system)
    if not found:
        return None
    first, *rest = found
    return Policy(
        files=first.files,
        allow_servers=first.allow_servers,
        deny_servers=first.deny_servers,
        allow_tools=first.allow_tools,
        deny_tools=first.deny_tools,
        catalog_only=first.catalog_only,
        broken=first.broken,
        extra=tuple(rest),
    )


def _read(path: Path, *, required: bool) -> Policy | None:
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        if not required:
            return None
        return Policy(files=(where,), broken=f"the policy file {where} does not exist")
    except OSError as exc:
        return Policy(
            files=(where,), broken=f"the policy file {where} cannot be read: {exc.strerror}"
        )
    try:
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return Policy(
                    files=(where,), broken=f"the policy file {where} is not a regular file"
                )
            raw = fh.read(MAX_POLICY_BYTES + 1)
    except OSError as exc:
        return Policy(
            files=(where,), broken=f"the policy file {where} cannot be read: {exc.strerror}"
        )
    if len(raw) > MAX_POLICY_BYTES:
        return Policy(files=(where,), broken=f"the policy file {where} is larger than 1 MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", path=where) from None
    try:
        tree = load_yaml(text)
    except YamlInputError as exc:
        raise ConfigError(exc.problem, path=where, line=exc.line) from None
    return _parse(where, tree)


class _Reader:
    def __init__(self, where: str, tree: object) -> None:
        self.where, self.tree = where, tree

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(problem, path=self.where, line=line_of(self.tree, key), key=key)

    def keys(self, key: str, value: object, known: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, "must be a mapping")
        for name in value:
            if name not in known:
                path = f"{key}.{name}" if key else str(name)
                raise self.fail(path, unknown_name(str(name), known))
        return value

    def glob(self, key: str, value: object) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "must be a non-empty text (a name or a glob)")
        return value.strip()


def _parse(where: str, tree: object) -> Policy:
    read = _Reader(where, tree)
    data = plain(tree)
    if data is None:
        data = {}
    top = read.keys("", data, _TOP)
    allow_servers = allow_tools = None
    deny_servers: tuple[ServerRule, ...] = ()
    deny_tools: tuple[tuple[str, str], ...] = ()
    for side in ("allow", "deny"):
        if side not in top:
            continue
        block = read.keys(side, top[side] if top[side] is not None else {}, _LIST)
        servers = tools = None
        if "servers" in block:
            servers = tuple(_rules(read, f"{side}.servers", block["servers"]))
        if "tools" in block:
            items = block["tools"]
            if not isinstance(items, list):
                raise read.fail(f"{side}.tools", "must be a list of server/tool globs")
            tools = tuple(
                (read.glob(f"{side}.tools[{i}]", item), f"{side}.tools[{i}] in {where}")
                for i, item in enumerate(items)
            )
        if side == "allow":
            allow_servers, allow_tools = servers, tools
        else:
            deny_servers, deny_tools = servers or (), tools or ()
    catalog_only = top.get("catalog_only", False)
    if not isinstance(catalog_only, bool):
        raise read.fail("catalog_only", "must be true or false")
    return Policy(
        files=(where,),
        allow_servers=allow_servers,
        deny_servers=deny_servers,
        allow_tools=allow_tools,
        deny_tools=deny_tools,
        catalog_only=f"catalog_only in {where}" if catalog_only else None,
    )


def _rules(read: _Reader, key: str, items: object) -> list[ServerRule]:
    if not isinstance(items, list):
        raise read.fail(key, "must be a list of rules (each a mapping of name, url, command, path)")
    rules = []
    for i, item in enumerate(items):
        at = f"{key}[{i}]"
        rule = read.keys(at, item, _RULE)
        if not rule:
            raise read.fail(
                at, "an empty rule would match every server; give name, url, command or path"
            )
        url = None
        if "url" in rule:
            value = rule["url"]
            if isinstance(value, dict):
                parts = read.keys(f"{at}.url", value, _URL)
                url = UrlRule(**{k: read.glob(f"{at}.url.{k}", v) for k, v in parts.items()})
            else:
                url = UrlRule(pattern=read.glob(f"{at}.url", value))
        text = ", ".join(f"{k}: {v}" for k, v in rule.items())
        rules.append(
            ServerRule(
                where=f"{at} in {read.where}",
                text=text,
                name=read.glob(f"{at}.name", rule["name"]) if "name" in rule else None,
                command=read.glob(f"{at}.command", rule["command"]) if "command" in rule else None,
                path=read.glob(f"{at}.path", rule["path"]) if "path" in rule else None,
                url=url,
            )
        )
    return rules
