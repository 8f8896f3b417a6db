"""Call interceptors: what the ``call_interceptor`` hook registers and what an interceptor sees.

An interceptor is a named pair of optional callables around every tool call of the servers
that select it in ``config.yaml`` (``interceptors: [NAME, ...]``, host-wide and per server)::

    before(call: InterceptedCall) -> Decision | None            (may be async)
    after(call: InterceptedCall, result: dict) -> dict | None   (may be async)

``before`` runs before the call is sent (before a lazy server is started and before the user
is asked to approve an untrusted server's call): ``None`` or :meth:`Decision.allow` lets it pass,
:meth:`Decision.rewrite` changes the arguments the later interceptors and the server see,
:meth:`Decision.refuse` stops it with a reason the agent reads.  ``after`` sees the result (the
rendered ``{"content": [...], "structuredContent": ..., "isError": ...}``, or ``{"error": ...}``)
and returns ``None`` to keep it or a new mapping to replace it (redact, summarise).  The
``before`` callables run in the configured order, the ``after`` ones in the reverse order (the
first interceptor listed wraps the others).  An interceptor that raises fails the call closed:
the call is not sent (or its result is withheld) and the error names the interceptor.

Only the standard library is used here: plugins import this module without the host.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from hermes_core.plugins.settings_model import SettingsModel

__all__ = [
    "AfterCall",
    "BeforeCall",
    "CallInterceptor",
    "CreateInterceptor",
    "Decision",
    "InterceptedCall",
    "Interceptor",
    "InterceptorRecord",
    "InterceptorSetup",
    "Verdict",
]

#: A tool call's result as interceptors see it: JSON-ready data.
Result = dict[str, Any]


class Verdict(StrEnum):
    """What an interceptor decided (the audit log's ``decisions`` hold these words)."""

    PASS = "pass"
    """``before``: the call goes on unchanged; ``after``: the result is kept."""
    REWRITE = "rewrite"
    """``before``: the call goes on with other arguments."""
    REFUSE = "refuse"
    """``before``: the call is not sent; the agent reads the reason."""
    REPLACE = "replace"
    """``after``: the result was replaced (redacted, cut, summarised)."""
    FAIL = "fail"
    """The interceptor raised: the call failed closed."""


@dataclass(frozen=True)
class Decision:
    """A ``before`` callable's answer; build it with :meth:`allow`, :meth:`rewrite` or
    :meth:`refuse` (returning ``None`` is the same as :meth:`allow`)."""

    verdict: Verdict
    reason: str = ""
    arguments: Mapping[str, object] | None = field(default=None, repr=False)

    @classmethod
    def allow(cls) -> Decision:
        return _ALLOW

    @classmethod
    def rewrite(cls, arguments: Mapping[str, object], reason: str = "") -> Decision:
        """Send *arguments* instead (a mapping of the tool's argument names to values)."""
        if not isinstance(arguments, Mapping):
            raise TypeError(f"Decision.rewrite needs a mapping (got {type(arguments).__name__})")
        return cls(Verdict.REWRITE, reason, dict(arguments))

    @classmethod
    def refuse(cls, reason: str) -> Decision:
        """Do not send the call; *reason* is what the agent reads (never put secrets in it)."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError("Decision.refuse needs a reason the agent can read")
        return cls(Verdict.REFUSE, reason)


_ALLOW = Decision(Verdict.PASS)


@dataclass(frozen=True, slots=True)
class InterceptorRecord:
    """What one interceptor did to one call (kept on the call, written to the audit log)."""

    interceptor: str
    stage: str
    """``before`` or ``after``."""
    verdict: Verdict
    reason: str = ""


@dataclass(slots=True)
class InterceptedCall:
    """One tool call as interceptors see it (a fresh object per call; read it, do not keep it).

    Interceptors change the call only through their :class:`Decision`; the host updates
    :attr:`arguments`, :attr:`decisions` and :attr:`approved_by` as the call goes on.
    """

    name: str
    """The registered name the agent called (``mcp_<server>_<tool>``)."""
    server: str
    """The server's key under ``mcp_servers``."""
    tool: str
    """The tool's own name on the server (what ``tools/call`` sends)."""
    arguments: Mapping[str, object]
    """The arguments as they will be sent (after the earlier interceptors' rewrites).  May
    hold secrets: never log values."""
    annotations: Mapping[str, object]
    """The tool's MCP annotations as the server sent them, sanitised (``readOnlyHint``,
    ``destructiveHint``, ``idempotentHint``, ``openWorldHint``, ``title``); untrusted hints."""
    trust: str
    """The server's trust tier: ``full`` or ``untrusted`` (``trust:`` in ``config.yaml``)."""
    transport: str
    """The server's transport name (``stdio``, ``streamable_http``, ``sse``, a plugin's)."""
    url: str | None
    """An HTTP server's URL shown without credentials (``None`` for a stdio server)."""
    command: str | None
    """A stdio server's command (``None`` for an HTTP server)."""
    max_result_tokens: int
    """The result budget of this call (``max_result_tokens``, the tool's hint when lower)."""
    started: float = 0.0
    """When the call reached the host (``time.monotonic()``)."""
    decisions: list[InterceptorRecord] = field(default_factory=list)
    """What the interceptors decided so far, in the order they ran."""
    approved_by: str | None = None
    """Who approved the call (``user`` after an untrusted server's approval), once known."""
    span: Span | None = None
    """The call's OpenTelemetry span (``execute_tool <name>``) when telemetry is on, else
    ``None``: add attributes with ``call.span.set_attribute(...)``.  It is the current span
    while interceptors run, so a span an interceptor starts is its child."""
    fixed_arguments: Mapping[str, object] = field(default_factory=dict)
    """The arguments the tool's override fixes (``tools.overrides``: configuration, not the
    caller's), already in :attr:`arguments`; empty for a tool without one."""


class BeforeCall(Protocol):
    """``before(call)``: a :class:`Decision` (or ``None``: pass), or an awaitable of one."""

    def __call__(
        self, call: InterceptedCall, /
    ) -> Decision | Awaitable[Decision | None] | None: ...


class AfterCall(Protocol):
    """``after(call, result)``: a replacement result (or ``None``: keep), or an awaitable."""

    def __call__(
        self, call: InterceptedCall, result: Result, /
    ) -> Result | Awaitable[Result | None] | None: ...


class Interceptor(Protocol):
    """What :attr:`CallInterceptor.create` returns: an object with ``before`` and/or
    ``after`` (each a method shaped as :class:`BeforeCall` / :class:`AfterCall`, or ``None``)."""

    @property
    def before(self) -> BeforeCall | None: ...
    @property
    def after(self) -> AfterCall | None: ...


@dataclass(frozen=True)
class InterceptorSetup:
    """What :attr:`CallInterceptor.create` is given, once per host."""

    home: Path
    """``$HERMES_HOME``: where an interceptor may keep files (mode 0600)."""
    settings: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """The top-level ``config.yaml`` block named after the interceptor (``audit:`` for
    ``audit``), ``${VAR}`` not resolved; empty when there is none."""
    validated: object = field(default=None, repr=False)
    """That block validated by :attr:`CallInterceptor.settings` (an instance of the model), or
    ``None`` when the interceptor carries no settings model."""


class CreateInterceptor(Protocol):
    """``create(setup)``: the interceptor of one host.  Prefer :attr:`CallInterceptor.settings`
    for checking settings; an interceptor without a model may raise ``ValueError`` for bad
    settings: ``create`` is then also called once when ``config.yaml`` is read (for a selected
    interceptor whose block is present), and the message is a config error at the block's
    file and line."""

    def __call__(self, setup: InterceptorSetup, /) -> Interceptor: ...


@dataclass(frozen=True)
class CallInterceptor:
    """A named interceptor, selected with ``interceptors: [<name>, ...]`` in ``config.yaml``.

    Give ``before`` and/or ``after`` (stateless callables), or ``create`` (called once per
    host with an :class:`InterceptorSetup`, returning an :class:`Interceptor`) when it keeps
    state or reads settings.  One without any of them is not registered.
    """

    name: str
    before: BeforeCall | None = None
    after: AfterCall | None = None
    create: CreateInterceptor | None = None
    description: str = ""
    provider: str = "hermes_core"
    settings: type[SettingsModel] | None = None
    """A pydantic model class of the interceptor's settings block (the top-level block of
    ``config.yaml`` named after it).  When given, the block is checked against it whenever
    ``config.yaml`` is read, by every command (an unknown key with a did-you-mean, a wrong
    value at its file, line and key), and ``create`` receives the validated model as
    :attr:`InterceptorSetup.validated`."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or _NAME.fullmatch(self.name) is None:
            raise ValueError(
                f"interceptor name {self.name!r} must start with a letter and hold only "
                "letters, digits, '_' or '-'"
            )


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
