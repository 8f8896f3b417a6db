"""``hermes mcp status``: one row per configured server, and how a row is built."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hermes_core.host.liveness.words import not_running_sentence
from hermes_core.host.optional import app_availability, app_guidance
from hermes_core.json_types import JsonObject
from hermes_platform import declared

if TYPE_CHECKING:
    from hermes_core.host.connection import ServerConnection
    from hermes_core.host.server_spec import HostServer
    from hermes_platform.declaration import Declaration

__all__ = ["ServerStatus", "gate_sentence", "status_row", "tool_count"]


@dataclass
class ServerStatus:
    """A row of ``hermes mcp status``."""

    server: str
    transport: str
    enabled: bool
    connection: str
    availability: str
    offered: bool
    tools: int
    """Every tool offered for the server: its own and the host's utility tools."""
    last_error: str | None
    elicitation: dict[str, int] | None = None
    """Questions the server asked the user: requests, accepted, declined, cancelled, errors."""
    trust: str = "full"
    approvals: dict[str, int] | None = None
    """For an untrusted server: write-capable calls the user ``approved`` / ``refused``."""
    breaker: JsonObject | None = None
    """The circuit breaker: state (closed/open/half_open), strikes, retry_in, opened, refused."""
    keepalive: JsonObject | None = None
    """interval, probe (ping/tools_list), probes, failures, last_failure."""
    lazy: JsonObject | None = None
    """For a ``lazy: true`` server: started, cached_tools, phantoms dropped at first use."""
    gate: str | None = None
    """Why a declared app keeps the server's tools from being offered ("Acme Studio is not
    installed. Install Acme Studio, then try again."); ``None`` when its app is offerable."""
    filtered_out: int = 0
    """Tools the server lists that ``tools: include/exclude`` keeps from being offered."""
    sampling: JsonObject | None = None
    """Whether the server may sample (``offered``; ``reason`` when not), the model, and the
    counters: requests, completed, refused (by reason), errors, timeouts, tokens, last model."""
    name_collisions: list[str] = field(default_factory=list)
    """Tool name collisions this server takes part in (see ``naming.assign_names``)."""
    protocol: str | None = None
    """The protocol revision negotiated with the server (``2026-07-28`` speaks the per-request
    envelope, older ones the ``initialize`` handshake); ``None`` before it ever connected."""
    roots: list[dict[str, str | None]] | None = None
    """The ``roots:`` offered to the server (``path``, ``uri``, ``name``); ``None``: none."""
    override_problems: list[str] = field(default_factory=list)
    """The ``tools.overrides`` that could not apply to the server's last listing (an unknown
    tool, an unknown argument, a value of the wrong type), one ``<file>:<line>: <key>: <what>``
    each."""
    failure: JsonObject | None = None
    host_tools: int = 0
    """Of :attr:`tools`, the host's utility tools (its resources and prompts as tools:
    ``list_resources``, ``read_resource``…), not the server's own."""
    """The last failed connection attempt as a record (``last_error`` is its sentence): cause
    (``closed``, ``http_status``, ``auth``, ``network``, ``tls``, ``command_missing``...),
    http_status, exit_code, signal, stderr_tail; ``None`` while connected."""


def status_row(
    name: str,
    config: HostServer,
    connection: ServerConnection | None,
    *,
    offered: bool,
    tools: int,
    elicitation: dict[str, int] | None,
    approvals: dict[str, int] | None,
    breaker: JsonObject,
    lazy: JsonObject | None,
    filtered_out: int,
    sampling: JsonObject | None,
    name_collisions: list[str],
    override_problems: list[str] | None = None,
    host_tools: int = 0,
    app_away: bool = False,
) -> ServerStatus:
    """The row of server *name*: its *config*, its *connection* (``None``: not started) and
    what the host's parts know of it; *app_away*: it is not connected and its desktop app's
    runtime file says the app is not running (between the app's quit and the follower's
    restart of the server, the row already says so)."""
    decl = declared.lookup(name)
    gate = gate_sentence(decl, config.display_name) if decl else None
    # (compared by value: this module is read by clients that never import the connection)
    state = (
        connection.status.state
        if connection
        else ("disabled" if not config.enabled else "not started")
    )
    if app_away and config.enabled:
        state = "not running"
    if gate is None and state == "not running":
        gate = not_running_sentence(name, config.display_name)
    return ServerStatus(
        server=name,
        transport=connection.transport_used if connection else config.transport,
        enabled=config.enabled,
        connection=state,
        availability=app_availability(decl).state if decl else "undeclared",
        offered=offered,
        tools=tools,
        host_tools=host_tools,
        last_error=connection.status.last_error if connection else None,
        elicitation=elicitation,
        trust=config.trust,
        approvals=approvals,
        breaker=breaker,
        keepalive=connection.keepalive_status() if connection else None,
        lazy=lazy,
        gate=gate,
        filtered_out=filtered_out,
        sampling=sampling,
        name_collisions=name_collisions,
        override_problems=list(override_problems or ()),
        protocol=connection.protocol if connection else None,
        roots=[dataclasses.asdict(root) for root in config.roots] or None,
        failure=connection.status.failure.as_dict()
        if connection and connection.status.failure
        else None,
    )


def gate_sentence(decl: Declaration, display_name: str | None) -> str | None:
    """Why a declared app keeps its server's tools from being offered (``None``: it does not)."""
    advice = app_guidance(decl, app_availability(decl), display_name=display_name)
    return advice.sentence if advice else None


def tool_count(tools: int, host_tools: int = 0, *, bare: bool = False) -> str:
    """A server's tools in words, its own apart from the host's utility tools (its resources
    and prompts as tools): ``13 tools + 5 host tools``, ``6 tools``; *bare* (after a
    ``tools:`` label): ``13 + 5 host tools``, ``6``."""
    mine = tools - host_tools
    own = str(mine) if bare else f"{mine} tool{'' if mine == 1 else 's'}"
    if not host_tools:
        return own
    return f"{own} + {host_tools} host tool{'' if host_tools == 1 else 's'}"
