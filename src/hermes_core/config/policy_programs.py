"""What a stdio server entry really runs: the programs, found as the child will find them.

The command is looked up on the ``PATH`` of the child's own environment (the entry's ``env``
over ours), relative names against the child's folder, symbolic links followed; then exec
wrappers are looked through (:mod:`hermes_core.config.policy_wrappers`): ``env FOO=1 server``
runs ``env`` and then ``server``, found on the ``PATH`` ``env`` leaves it; ``npx -y pkg`` runs
``npx`` and then the package ``pkg``.  Where a wrapper's target cannot be told the result says
why, and an allow list refuses it.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass

from hermes_core.config.policy_step import Package
from hermes_core.config.policy_wrappers import WRAPPERS, loader_hazard
from hermes_core.config.redact import shown_args

__all__ = ["Program", "ProgramKind", "WhatRuns", "locate", "what_runs"]

#: Wrappers inside wrappers deeper than this cannot be told.
MAX_WRAPPERS = 16


class ProgramKind(enum.Enum):
    FILE = "file"
    """An executable file the command resolves to."""
    MISSING = "missing"
    """A command found nowhere (judged by its name)."""
    PACKAGE = "package"
    """A package a runner fetches and runs (judged by its name)."""


@dataclass(frozen=True)
class Program:
    """One program on the way to the server: a wrapper, or what the last wrapper runs."""

    kind: ProgramKind
    written: str
    path: str | None = None
    """Where the command was found (absolute, links not followed)."""
    real: str | None = None
    """Where it really is (links followed)."""
    package: Package | None = None

    def names(self) -> set[str]:
        """Every name it goes by: as written, as found, as it really is (a package: its name
        and its spec as written)."""
        if self.package is not None:
            return {self.package.name, self.package.spec.lower()}
        return {os.path.basename(p) for p in (self.written, self.path, self.real) if p}

    def real_name(self) -> str:
        """The name of what really runs (a package: its name)."""
        if self.package is not None:
            return self.package.name
        return os.path.basename(self.real or self.written)

    def paths(self) -> set[str]:
        return {p for p in (self.path, self.real) if p}

    def shown(self) -> str:
        if self.package is not None:
            return f"the {self.package.runner} package {shown_args([self.package.spec])[0]!r}"
        if self.real is None:
            return f"{self.written!r} (found nowhere)"
        if self.real == self.written:
            return self.real
        return f"{self.written!r} ({self.real})"


@dataclass(frozen=True)
class WhatRuns:
    """The programs an entry starts, the entry's command first; *unjudged*: why what the
    last of them runs cannot be told (``None``: they are all of it)."""

    programs: tuple[Program, ...]
    unjudged: str | None = None
    urls: tuple[str, ...] = ()
    """URLs a bridge among the programs connects to for the host."""


def what_runs(
    command: str, args: tuple[str, ...], env: Mapping[str, str], cwd: str | None
) -> WhatRuns:
    """The programs ``command args`` starts in the environment *env* and folder *cwd*."""
    programs: list[Program] = []
    urls: list[str] = []
    argv, environ, folder = (command, *args), dict(env), cwd
    for _ in range(MAX_WRAPPERS):
        if not argv:
            return WhatRuns(tuple(programs), urls=tuple(urls))
        program = locate(argv[0], environ, folder)
        programs.append(program)
        hazard = loader_hazard(environ)
        if hazard is not None:
            return WhatRuns(tuple(programs), f"{program.shown()}: {hazard}", tuple(urls))
        name = _wrapper_name(program)
        if name is None:
            return WhatRuns(tuple(programs), urls=tuple(urls))
        step = WRAPPERS[name](name, argv, environ, folder)
        if step.unjudged is not None:
            return WhatRuns(tuple(programs), f"{program.shown()}: {step.unjudged}", tuple(urls))
        urls.extend(step.urls)
        programs.extend(Program(ProgramKind.PACKAGE, p.spec, package=p) for p in step.packages)
        programs.extend(locate(word, step.env, step.cwd) for word in step.programs)
        argv, environ, folder = step.argv, dict(step.env), step.cwd
    return WhatRuns(tuple(programs), f"wrappers nest deeper than {MAX_WRAPPERS}", tuple(urls))


def locate(word: str, env: Mapping[str, str], cwd: str | None) -> Program:
    """Where the child finds the command *word*: a path as it is (against *cwd*), a name on
    *env*'s ``PATH`` (``os.defpath`` when it has none; an empty or relative entry against
    *cwd*), the first executable file."""
    base = cwd or os.getcwd()
    if "/" in word:
        candidates = [os.path.join(base, word)]
    else:
        folders = env.get("PATH", os.defpath).split(os.pathsep)
        candidates = [os.path.join(base, folder, word) for folder in folders]
    for candidate in candidates:
        absolute = os.path.abspath(candidate)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return Program(ProgramKind.FILE, word, path=absolute, real=os.path.realpath(candidate))
    return Program(ProgramKind.MISSING, word)


def _wrapper_name(program: Program) -> str | None:
    """The wrapper *program* is, by what really runs, else by the name it was called (a
    multi-call program such as busybox acts as the name it is called by)."""
    real = os.path.basename(program.real or "")
    written = os.path.basename(program.written)
    if real in WRAPPERS and real != "busybox":
        return real
    if written in WRAPPERS:
        return written
    return real if real in WRAPPERS else None
