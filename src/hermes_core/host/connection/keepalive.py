"""Keepalive: probe a quiet server so a wedged one is noticed (and restarted) before a call.

One :class:`Keepalive` per connection; :meth:`Keepalive.new_session` resets it for each
session.  The session's task asks :meth:`~Keepalive.wait` how long it may sleep, and
:meth:`~Keepalive.due`/:meth:`~Keepalive.probe` when it wakes; :class:`KeepaliveStats` is what
``hermes mcp status --json`` shows.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from hermes_core.host.connection.waits import until_stopped
from hermes_core.json_types import JsonObject

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import ServerCapabilities

__all__ = ["KEEPALIVE_TIMEOUT_SECONDS", "Keepalive", "KeepaliveStats"]

#: A keepalive probe (``ping``, or a listing) must answer within this many seconds.
KEEPALIVE_TIMEOUT_SECONDS = 30.0
#: JSON-RPC "method not found".
_METHOD_NOT_FOUND = -32601

Probe = Literal["ping", "tools_list"]


@dataclass
class KeepaliveStats:
    """What ``hermes mcp status --json`` shows of a server's keepalive."""

    interval: float
    probe: str = "ping"
    """``ping``; ``tools_list`` for a server without ping; ``off`` when it offers neither."""
    probes: int = 0
    failures: int = 0
    last_failure: str | None = None


class Keepalive:
    """When to probe one connection's server, how, and what the probes found."""

    def __init__(self, interval: float, timeout: float = KEEPALIVE_TIMEOUT_SECONDS) -> None:
        self.stats = KeepaliveStats(interval=float(interval))
        # Not tied to the interval: a busy machine must not turn a slow answer into a failure.
        self.timeout = float(timeout)
        self._probe: Probe | None = "ping"  # per session: ping, tools_list or None (off)
        self._probed_at = 0.0
        self.failed = False
        """The current session was ended by a failed probe."""

    def new_session(self) -> None:
        """A new session: ping again."""
        self._probe, self.failed = "ping", False

    def modern(self) -> None:
        """The session speaks the 2026-07-28 revision, which has no ``ping``."""
        self._probe = "tools_list"

    def wait(self, last_used: float, connected_at: float | None, inflight: int) -> float | None:
        """Seconds until a probe may be due; ``None`` when keepalive is off."""
        interval = self.stats.interval
        if interval <= 0 or self._probe is None:
            return None
        if inflight:
            return interval  # the call's end moves the quiet time on
        quiet_since = max(last_used, connected_at or 0.0, self._probed_at)
        return max(0.0, quiet_since + interval - time.monotonic())

    def due(self, last_used: float, connected_at: float | None, inflight: int) -> bool:
        """Quiet for a whole interval, nothing in flight, and a way to probe left."""
        interval = self.stats.interval
        if interval <= 0 or self._probe is None or inflight:
            return False
        quiet_since = max(last_used, connected_at or 0.0, self._probed_at)
        return time.monotonic() - quiet_since >= interval

    async def probe(
        self,
        session: ClientSession,
        capabilities: ServerCapabilities | None,
        stop: asyncio.Event,
    ) -> str | None:
        """Probe the server; ``None`` when it answered, else what went wrong.  A server without
        ``ping`` is probed with a tools listing from then on (for this session).  *stop* set
        meanwhile (a close) ends the probe, as an answer."""
        from mcp.shared.exceptions import MCPError

        self._probed_at = time.monotonic()
        self.stats.probes += 1
        timeout = self.timeout
        has_tools = capabilities is not None and capabilities.tools is not None
        try:
            if self._probe == "ping":
                try:
                    await until_stopped(session.send_ping(), timeout, stop)
                    return None
                except MCPError as exc:
                    if exc.code != _METHOD_NOT_FOUND:
                        raise
                    if not has_tools:
                        self._probe = None  # nothing cheap to probe with: stop probing
                        return None
                    self._probe = "tools_list"
                except TimeoutError:
                    if not has_tools:
                        raise
                    # Some servers never answer ping; a listing decides.
                    await until_stopped(session.list_tools(), timeout, stop)
                    self._probe = "tools_list"
                    return None
            await until_stopped(session.list_tools(), timeout, stop)
            return None
        except TimeoutError:
            return f"no answer within {timeout:g} s"
        except Exception as exc:  # noqa: BLE001 - any failed probe means the session is suspect
            return f"{type(exc).__name__}: {exc}"
        finally:
            self.stats.probe = self._probe or "off"
            self._probed_at = time.monotonic()

    def probe_failed(self, failure: str) -> None:
        self.failed = True
        self.stats.failures += 1
        self.stats.last_failure = failure

    def status(self) -> JsonObject | None:
        """``hermes mcp status --json``'s record; ``None`` when keepalive is off."""
        if self.stats.interval <= 0:
            return None
        return dataclasses.asdict(self.stats)
