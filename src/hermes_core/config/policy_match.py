"""Whether the administrator's policy refuses a server or a tool, and which rule does.

A server is matched by what it *is*, not by what config calls it or how it is spelled: an HTTP
entry by the URL the HTTP client will really dial (:mod:`hermes_core.config.policy_url`), a
stdio entry by the programs that will really run (:mod:`hermes_core.config.policy_programs`:
found on the child's own ``PATH``, symbolic links followed, exec wrappers looked through).  A
deny rule refuses the entry when it matches any of those programs under any of their names; an
allow list lets an entry run only when every program on the way matches one of its rules, by
the name and place of what really runs, and refuses a wrapper whose target cannot be told.
The URL a bridge package connects to (``npx mcp-remote URL``) is judged by the URL rules too.

Tool globs match case-insensitively, against the names as the server gives them and as the
host registers them (``delete-all`` is also ``delete_all``; ``mcp_<server>_<tool>``).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from hermes_core.config.policy_programs import Program, WhatRuns, what_runs
from hermes_core.config.policy_rules import Policy, ServerRule
from hermes_core.config.policy_url import DialTarget, dial_target, url_rule_matches

__all__ = ["ServerFacts", "server_refusal", "tool_denial", "tool_refusal"]

# What the host's registry names keep of a name (as hermes_core.host.tools.naming does).
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
# In a glob: a bracket expression, kept as it is, or one character to normalise.
_GLOB_PART = re.compile(r"\[!?\]?[^\]]*\]|.", re.DOTALL)


@dataclass(frozen=True)
class ServerFacts:
    """What a server entry reaches: its name, command and arguments (stdio), in the child's
    environment (the entry's ``env`` over ours) and folder, or its URL (HTTP)."""

    name: str
    command: str | None = None
    url: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """The entry's own ``env`` (``${VAR}`` resolved); it goes over our ``PATH``."""
    cwd: str | None = None

    def what_runs(self) -> WhatRuns | None:
        if not self.command:
            return None
        environ = {"PATH": os.environ.get("PATH", os.defpath), **self.env}
        return what_runs(self.command, tuple(self.args), environ, self.cwd)


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
    if any(part.broken is not None for part in policy.policies):
        broken = next(p.broken for p in policy.policies if p.broken is not None)
        return f"{broken}; the policy fails closed: no server may run"
    target: DialTarget | None = None
    if facts.url:
        try:
            target = dial_target(facts.url)
        except ValueError as exc:
            return f"its URL cannot be judged: {exc}"
    runs = facts.what_runs()
    bridged: list[DialTarget] = []
    for url in runs.urls if runs is not None else ():
        try:
            bridged.append(dial_target(url))
        except ValueError as exc:
            return f"the URL it connects to through {facts.command!r} cannot be judged: {exc}"
    for part in policy.policies:
        refused = _part_refusal(part, facts, runs, target) or _bridge_refusal(
            part, facts, runs, bridged
        )
        if refused is not None:
            return refused
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


def _part_refusal(
    part: Policy, facts: ServerFacts, runs: WhatRuns | None, target: DialTarget | None
) -> str | None:
    programs = runs.programs if runs is not None else ()
    for rule in part.deny_servers:
        if runs is not None:
            hit = next((p for p in programs if _rule_matches(rule, facts, p, deny=True)), None)
            if hit is not None:
                return (
                    f"denied by the policy rule {rule.where} ({rule.text}){_denied_what(runs, hit)}"
                )
        elif _rule_matches(rule, facts, None, deny=True, target=target):
            return f"denied by the policy rule {rule.where} ({rule.text})"
    allowed = part.allow_servers
    if allowed is None:
        return None
    no_rule = f"not allowed by the policy: no rule of allow.servers in {part.files[0]} matches"
    if runs is None:
        if any(_rule_matches(r, facts, None, deny=False, target=target) for r in allowed):
            return None
        return f"{no_rule} it"
    if runs.unjudged is not None:
        return (
            f"not allowed by the policy (allow.servers in {part.files[0]}): what it runs cannot "
            f"be told — {runs.unjudged}"
        )
    for program in programs:
        if not any(_rule_matches(r, facts, program, deny=False) for r in allowed):
            return f"{no_rule} {_unallowed_what(runs, program)}"
    return None


def _bridge_refusal(
    part: Policy, facts: ServerFacts, runs: WhatRuns | None, bridged: list[DialTarget]
) -> str | None:
    """The URL rules, for the URLs a bridge package (``npx mcp-remote URL``) connects to."""
    if runs is None or not bridged:
        return None
    first = runs.programs[0].written
    for target in bridged:
        shown = target.shown(target.hosts[0], target.paths[0])
        for rule in part.deny_servers:
            if rule.url is not None and _rule_matches(rule, facts, None, deny=True, target=target):
                return (
                    f"denied by the policy rule {rule.where} ({rule.text}): {first!r} connects "
                    f"to {shown}"
                )
        allowed = part.allow_servers
        if allowed is not None and not any(
            r.url is not None and _rule_matches(r, facts, None, deny=False, target=target)
            for r in allowed
        ):
            return (
                f"not allowed by the policy: no rule of allow.servers in {part.files[0]} matches "
                f"{shown}, which {first!r} connects to"
            )
    return None


def _denied_what(runs: WhatRuns, hit: Program) -> str:
    """What the denied *hit* is, when that is not simply the command as written."""
    first = runs.programs[0]
    if hit is not first:
        return f": {first.written!r} runs {hit.shown()}"
    if hit.real is not None and hit.real != hit.written:
        return f": {hit.written!r} is {hit.real}"
    return ""


def _unallowed_what(runs: WhatRuns, miss: Program) -> str:
    """*miss*, the program no allow rule matches, and what runs it."""
    first = runs.programs[0]
    return miss.shown() if miss is first else f"{miss.shown()}, which {first.written!r} runs"


def _rule_matches(
    rule: ServerRule,
    facts: ServerFacts,
    program: Program | None,
    *,
    deny: bool,
    target: DialTarget | None = None,
) -> bool:
    if rule.name is not None and not fnmatchcase(facts.name, rule.name):
        return False
    if rule.command is not None or rule.path is not None:
        if program is None:
            return False
        if rule.command is not None and not _command_matches(rule.command, program, deny=deny):
            return False
        paths = program.paths() if deny else {program.real} if program.real else set()
        if rule.path is not None and not any(fnmatchcase(p, rule.path) for p in paths):
            return False
    if rule.url is not None:
        return target is not None and url_rule_matches(rule.url, target, deny=deny)
    return True


def _command_matches(glob: str, program: Program, *, deny: bool) -> bool:
    if program.package is not None:
        glob = glob.lower()
    names = program.names() if deny else {program.real_name()}
    return any(fnmatchcase(name, glob) for name in names)


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


def tool_denial(policy: Policy | None, server: str, name: str) -> str | None:
    """Why a ``deny.tools`` rule of *policy* refuses a tool shown as *name* (an override's new
    name), or ``None``.  Only the deny rules: an allow rule matches the server's own name alone,
    so renaming a tool never gets it past the policy."""
    if policy is None:
        return None
    for part in policy.policies:
        for glob, where in part.deny_tools:
            if _tool_matches(glob, server, name):
                return f"denied by the policy rule {where} ({glob})"
    return None


def _tool_matches(glob: str, server: str, tool: str) -> bool:
    """*glob* (``server/tool`` or ``tool``) against the names as given and as registered
    (``-`` and every other character outside ``[A-Za-z0-9_]`` read as ``_``; compatibility
    forms folded and invisible characters dropped), case-insensitively; a glob without ``/``
    also against the registered ``mcp_<server>_<tool>``."""
    pattern = glob.casefold()
    folded = _registered_glob(pattern)
    forms = {(server, tool), (_plain(server), _plain(tool))}
    for srv, name in forms:
        safe_srv, safe_name = _registered(srv), _registered(name)
        if "/" in glob:
            if fnmatchcase(f"{srv}/{name}".casefold(), pattern) or fnmatchcase(
                f"{safe_srv}/{safe_name}", folded
            ):
                return True
        elif any(
            fnmatchcase(candidate, wanted)
            for candidate, wanted in (
                (name.casefold(), pattern),
                (safe_name, folded),
                (f"mcp_{safe_srv}_{safe_name}", folded),
            )
        ):
            return True
    return False


def _plain(name: str) -> str:
    """*name* as a person reads it: compatibility forms folded (``ｄｅｌｅｔｅ`` is ``delete``),
    invisible format characters dropped."""
    folded = unicodedata.normalize("NFKC", name)
    return "".join(c for c in folded if unicodedata.category(c) != "Cf")


def _registered(name: str) -> str:
    return _UNSAFE.sub("_", name).casefold()


def _registered_glob(pattern: str) -> str:
    """*pattern* with what the registry names replace read as ``_`` (wildcards, bracket
    expressions and the ``/`` between server and tool kept)."""
    parts = []
    for part in _GLOB_PART.findall(pattern):
        keep = len(part) > 1 or part in "*?/" or not _UNSAFE.match(part)
        parts.append(part if keep else "_")
    return "".join(parts)
