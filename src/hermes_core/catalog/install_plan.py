"""The types of the install service (:mod:`.install_service`): the plan a source makes (what
will run, what to ask, how to fetch it), the door that answers the service's questions (the
terminal, or the dashboard's form), the refusal, and the outcome the door renders."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from hermes_core.catalog.registry.entry import Question
from hermes_core.catalog.registry.records import InstallRecord
from hermes_core.catalog.tool_choice import Checklist
from hermes_platform.runners import MissingRunner

__all__ = [
    "EntryMaker",
    "Fetch",
    "InstallDoor",
    "InstallOutcome",
    "InstallPlan",
    "InstallRefused",
    "InstallState",
    "Progress",
    "Refusal",
]

Progress = Callable[[int, int, str], None]
"""``progress(step, steps, what)``: called before each step of a fetch."""

Fetch = Callable[["InstallDoor"], contextlib.AbstractContextManager[Path]]
"""Fetches the code into its install folder (yielded), saying its progress on the door; when
the ``with`` block fails, the new folder is removed and the previous install put back."""

EntryMaker = Callable[[set[str]], tuple[dict[str, object], MissingRunner | None]]
"""The ``mcp_servers`` entry once these questions' variables have a value, and the runner it
needs that is not here."""


class Refusal(enum.Enum):
    """Whose the problem is: the command or the user's files (``USAGE``, exit 2), or what was
    to be installed (``FAILED``, exit 1)."""

    USAGE = "usage"
    FAILED = "failed"


class InstallRefused(Exception):
    """Nothing was installed: *message* says why (one sentence, no traceback)."""

    def __init__(self, message: str, kind: Refusal = Refusal.FAILED, log: Path | None = None):
        super().__init__(message)
        self.message, self.kind, self.log = message, kind, log


class InstallState(enum.Enum):
    INSTALLED = "installed"
    """Written enabled, its tools chosen."""
    SAVED_DISABLED = "saved disabled"
    """Written disabled: its runner is missing, or the probe failed."""
    DECLINED = "declined"
    """The person said no: nothing was installed."""


@dataclass(frozen=True)
class InstallOutcome:
    name: str
    state: InstallState
    replaced: bool = False
    """An existing ``mcp_servers`` entry was replaced."""
    folder: Path | None = None
    """The install folder (code fetched or unpacked), if any."""
    tools: dict[str, list[str]] = field(default_factory=dict)
    """The tool filter written (``include``/``exclude``; empty: every tool)."""


@dataclass
class InstallPlan:
    """What an install of one source will do, before anything is fetched or written."""

    name: str
    """The ``mcp_servers`` key."""
    title: str
    """``'time'`` or ``'time' (unvetted)``: the confirmation names it."""
    lines: list[str]
    """The screen: where it comes from and everything it runs (full, quoted)."""
    questions: list[Question]
    make: EntryMaker
    previous: dict[str, object] | None
    """The configured entry it replaces."""
    fetch: Fetch | None = None
    record: InstallRecord | None = None
    provider: str | None = None
    """A plugin's auth provider the entry signs in with (it must be registered)."""
    transport: str | None = None
    """A plugin's transport the entry connects with (it must be registered)."""
    lift_secrets: bool = False
    """Literal secrets of the entry go to ``.env`` (the catalog's rule with ``add``)."""
    default_enabled: list[str] | None = None
    default_excluded: list[str] | None = None
    after: list[str] = field(default_factory=list)
    """Said once it is written: sign-in hints, the manifest's notes."""
    cleanup: list[Callable[[], None]] = field(default_factory=list)
    """Run when the install ends, whatever happened (a downloaded file removed)."""

    @property
    def draft(self) -> tuple[dict[str, object], MissingRunner | None]:
        """The entry as if every question had an answer (what the screen shows)."""
        return self.make({q.variable for q in self.questions})


class InstallDoor(Protocol):
    """Where the service's questions are answered and what it does is said."""

    def confirm(self, plan: InstallPlan) -> bool:
        """Show *plan* (its lines) and whether to go on; ``False``: nothing is installed."""

    def answer(self, questions: Sequence[Question]) -> tuple[dict[str, str], set[str]]:
        """(values to save to ``.env``, every variable with a value, kept ones included);
        :class:`InstallRefused` for a required value left empty."""

    def busy(self, what: str) -> contextlib.AbstractContextManager[None]:
        """Around a long step (a fetch, a probe)."""

    def progress(self, step: int, steps: int, what: str) -> None: ...

    def say(self, line: str) -> None: ...

    def warn(self, line: str) -> None: ...

    def choose(self, name: str, found: Checklist) -> set[str]:
        """Which tools (and ``@family`` rows) to offer, ``found.checked`` pre-checked."""
