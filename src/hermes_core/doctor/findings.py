"""What doctor found about one server: a finding per check, each with what to do."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

__all__ = ["Finding", "ServerReport", "Severity"]


class Severity(enum.StrEnum):
    """How a finding counts: ``problem`` makes doctor exit 1; ``warning`` and ``ok`` do not."""

    OK = "ok"
    WARNING = "warning"
    PROBLEM = "problem"


@dataclass(frozen=True)
class Finding:
    """One check's answer: ``runner``, ``config``, ``variables``, ``app``, ``auth``, ``pins``,
    ``connection``, ``tools``, ``breaker``, ``error``."""

    check: str
    severity: Severity
    text: str
    fix: str | None = None
    """What to do about it, in words (a command to run where there is one)."""

    def as_dict(self) -> dict[str, object]:
        return {
            "check": self.check,
            "severity": str(self.severity),
            "text": self.text,
            "fix": self.fix,
        }


@dataclass
class ServerReport:
    """One server's screen."""

    server: str
    transport: str
    enabled: bool
    findings: list[Finding] = field(default_factory=list)
    connection: str = "not checked"
    """``connected``, ``failed``, ``timed out``, ``not checked`` (doctor did not connect: why
    is a finding), ``disabled``."""
    connect_seconds: float | None = None
    tools: int | None = None
    """The tools the server lists (``None``: not connected)."""
    may_connect: bool = True
    """Whether the offline checks leave the server worth connecting (no missing runner, unset
    variable, config error, app not here, OAuth sign-in or refresh needed)."""

    def add(self, check: str, severity: Severity, text: str, fix: str | None = None) -> None:
        self.findings.append(Finding(check, severity, text, fix))
        if severity is Severity.PROBLEM and check in _BLOCKING:
            self.may_connect = False

    @property
    def ok(self) -> bool:
        """No finding is a problem."""
        return not any(f.severity is Severity.PROBLEM for f in self.findings)

    def as_dict(self) -> dict[str, object]:
        return {
            "server": self.server,
            "ok": self.ok,
            "transport": self.transport,
            "enabled": self.enabled,
            "connection": self.connection,
            "connect_seconds": self.connect_seconds,
            "tools": self.tools,
            "findings": [f.as_dict() for f in self.findings],
        }


#: Problems found before connecting that make connecting pointless (or a change: a sign-in).
_BLOCKING = frozenset({"runner", "config", "variables", "app", "auth"})
