"""Whether the administrator's policy refuses a server or a tool, and which rule does.

A server is matched by what it *is*, not only by what config calls it: its name, its URL
(scheme, host, path) and its command (the executable's name, where it resolves on ``PATH``,
symbolic links followed).  So renaming an entry, or pointing an allowed name at another
command, does not get past a rule.  A deny rule matches when any of the command's names or
paths matches; a rule of ``allow.servers`` lets a server run only when every key it gives
matches.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from urllib.parse import urlsplit

from hermes_core.config.policy_rules import Policy, ServerRule, UrlRule

__all__ = ["ServerFacts", "server_refusal", "tool_refusal"]


@dataclass(frozen=True)
class ServerFacts:
    """What a server entry reaches: its name, command (stdio) or URL (HTTP)."""

    name: str
    command: str | None = None
    url: str | None = None

    def command_names(self) -> set[str]:
        """The executable's name as written and where it resolves."""
        if not self.command:
            return set()
        return {os.path.basename(p) for p in {self.command, *self.command_paths()}}

    def command_paths(self) -> set[str]:
        """Where the command resolves: the absolute path on ``PATH`` and its real path."""
        if not self.command:
            return set()
        found = shutil.which(self.command) or self.command
        absolute = os.path.abspath(found)
        return {absolute, os.path.realpath(absolute)}


def server_refusal(
    policy: Policy | None,
    facts: ServerFacts,
    *,
    catalog: Callable[[], bool | None] | None = None,
) -> str | None:
    """Why *policy* refuses the server (naming the rule), or ``None``.  *catalog()* says
    whether the entry is what a catalog entry installs (``None``: cannot tell)."""
    if policy is None:
        return None
    for part in policy.policies:
        if part.broken is not None:
            return f"{part.broken}; the policy fails closed: no server may run"
        for rule in part.deny_servers:
            if _matches(rule, facts, deny=True):
                return f"denied by the policy rule {rule.where} ({rule.text})"
        allowed = part.allow_servers
        if allowed is not None and not any(_matches(r, facts, deny=False) for r in allowed):
            return (
                f"not allowed by the policy: no rule of allow.servers in {part.files[0]} matches it"
            )
        if part.catalog_only is not None:
            verdict = catalog() if catalog is not None else None
            if verdict is None:
                return (
                    f"only catalog entries may run ({part.catalog_only}), and this host "
                    "cannot check"
                )
            if not verdict:
                return (
                    f"only catalog entries may run ({part.catalog_only}), and this entry is not "
                    "what a catalog entry installs (`hermes mcp install` writes such entries)"
                )
    return None


def tool_refusal(policy: Policy | None, server: str, tool: str) -> str | None:
    """Why *policy* refuses *tool* of *server* (naming the rule), or ``None``."""
    if policy is None:
        return None
    for part in policy.policies:
        if part.broken is not None:
            return f"{part.broken}; the policy fails closed"
        for glob, where in part.deny_tools:
            if _tool_matches(glob, server, tool):
                return f"denied by the policy rule {where} ({glob})"
        allowed = part.allow_tools
        if allowed is not None and not any(_tool_matches(g, server, tool) for g, _ in allowed):
            return (
                f"not allowed by the policy: no rule of allow.tools in {part.files[0]} matches it"
            )
    return None


def _tool_matches(glob: str, server: str, tool: str) -> bool:
    return fnmatchcase(f"{server}/{tool}", glob) if "/" in glob else fnmatchcase(tool, glob)


def _matches(rule: ServerRule, facts: ServerFacts, *, deny: bool) -> bool:
    if rule.name is not None and not fnmatchcase(facts.name, rule.name):
        return False
    if rule.command is not None:
        if deny:
            names = facts.command_names()
        else:
            names = {os.path.basename(facts.command)} if facts.command else set()
        if not any(fnmatchcase(name, rule.command) for name in names):
            return False
    if rule.path is not None and not any(
        fnmatchcase(path, rule.path) for path in facts.command_paths()
    ):
        return False
    return rule.url is None or _url_matches(rule.url, facts.url)


def _url_matches(rule: UrlRule, url: str | None) -> bool:
    if not url:
        return False
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return False
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".").lower()
    path = parts.path or "/"
    if rule.pattern is not None:
        shown = f"{scheme}://{host}{f':{port}' if port else ''}{path}"
        return fnmatchcase(shown, rule.pattern)
    return (
        (rule.scheme is None or fnmatchcase(scheme, rule.scheme.lower()))
        and (rule.host is None or fnmatchcase(host, rule.host.lower()))
        and (rule.path is None or fnmatchcase(path, rule.path))
    )
