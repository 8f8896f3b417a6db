"""The fleet's bus on Redis: who each replica is, who owns what, notices and shared limits.

Redis holds nothing durable: every key here expires on its own, and losing them all (a Redis
restart) loses no decision, pin, question or audit row — those are in the state store.  What
is lost is routing: a 2025-11-25 session whose owner is no longer known is answered 404, and
its client starts a new one; a held 2026-07-28 call whose owner is not known is an error, and
its client starts the call again (the question is never answered for it).

- ``replica:<id>`` → the address the replica listens on; expires :data:`ALIVE_SECONDS` after
  its last heartbeat (a replica killed with ``kill -9`` is gone within that time).
- ``session:<sha256 of Mcp-Session-Id>`` and ``held:<sha256 of requestState>`` → the owning
  replica and the proxy profile the session or call belongs to (hashed: Redis never holds a
  value a client could present).
- channel ``notices``: what changed anywhere (:class:`Notice`), heard by every replica.
- ``rate:<key>:<window>``: a fleet-wide counter per fixed window (:meth:`FleetBus.take`).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import hashlib
import json
import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_core.host.fleet.settings import BusSettings

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = [
    "ALIVE_SECONDS",
    "HOLD_CLAIM_SECONDS",
    "NOTICES",
    "SESSION_SECONDS",
    "FleetBus",
    "Notice",
    "NoticeKind",
    "Owner",
    "Ownership",
    "notice_message",
    "process_origin",
]

log = logging.getLogger(__name__)
#: A replica that has not beaten its heart for this long is gone.
ALIVE_SECONDS = 3
HEARTBEAT_SECONDS = 1.0
#: How long a session's ownership lasts without a request refreshing it.
SESSION_SECONDS = 3600
_REFRESH_SECONDS = 60.0
#: How long a held call's claim lasts (longer than the proxy holds a call).
HOLD_CLAIM_SECONDS = 660
#: The longest a Redis command may take before the bus counts as unreachable.
COMMAND_TIMEOUT = 2.0
NAMESPACE = "hermes:fleet"
_MAX_NOTICE = 4096


class NoticeKind(enum.Enum):
    """What changed somewhere in the fleet."""

    TRUST = "trust"
    """A remembered decision, a pin, an approval answer: re-read the trust state."""
    CONFIG = "config"
    """config.yaml, .env or the policy: reload them."""
    TOOLS = "tools"
    """What a profile offers changed on one replica: tell that profile's listeners."""


@dataclass(frozen=True)
class Notice:
    kind: NoticeKind
    origin: str
    profile: str | None = None


class Ownership(enum.Enum):
    LOCAL = "local"
    REMOTE = "remote"
    GONE = "gone"
    """Owned by a replica that is not alive (killed, or its heartbeat expired)."""
    UNKNOWN = "unknown"
    """Nobody owns it (never issued, expired, Redis restarted) or another profile does."""
    UNREACHABLE = "unreachable"
    """The bus cannot be asked now."""


@dataclass(frozen=True)
class Owner:
    state: Ownership
    address: str | None = None


_origin: tuple[int, str] | None = None


def process_origin() -> str:
    """This process's name on the bus (a replica's id; a notice it sent is not handled again):
    made once per process, so a process forked from one that had made it gets its own."""
    global _origin
    pid = os.getpid()
    if _origin is None or _origin[0] != pid:
        _origin = (pid, secrets.token_hex(8))
    return _origin[1]


NOTICES = f"{NAMESPACE}:notices"


def notice_message(kind: NoticeKind, profile: str | None = None, origin: str | None = None) -> str:
    """The text published on :data:`NOTICES` for a change of *kind* (*origin*: this
    process's, :func:`process_origin`, unless given)."""
    sender = process_origin() if origin is None else origin
    return json.dumps({"k": kind.value, "o": sender, "p": profile})


def _digest(kind: str, value: str) -> str:
    return f"{NAMESPACE}:{kind}:" + hashlib.sha256(value.encode()).hexdigest()


class FleetBus:
    """One replica's connection to the bus; :meth:`start` before use, :meth:`close` after."""

    def __init__(self, settings: BusSettings, address: str, replica: str | None = None) -> None:
        self.settings = settings
        self.address = address
        """Where the other replicas reach this one (``host:port``)."""
        self.replica = process_origin() if replica is None else replica
        self._redis: Redis | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._handlers: list[Callable[[Notice], None]] = []
        self.listening = False
        """Whether the notices are heard now (``False``: a replica must not trust its caches)."""
        self._refreshed: dict[str, float] = {}

    def __repr__(self) -> str:
        return f"FleetBus({self.settings.shown}, replica {self.replica})"

    @property
    def redis(self) -> Redis:
        if self._redis is None:
            raise RuntimeError("the bus is not started")
        return self._redis

    async def start(self) -> None:
        """Connect, announce this replica and start hearing notices (a Redis that is not
        reachable yet is retried in the background: the replica is not ready meanwhile)."""
        try:
            from redis.asyncio import Redis
        except ImportError:
            raise RuntimeError(
                "bus: needs the redis package: pip install 'hermes-core[fleet]'"
            ) from None
        self._redis = Redis.from_url(
            self.settings.url,
            socket_timeout=COMMAND_TIMEOUT,
            socket_connect_timeout=COMMAND_TIMEOUT,
            health_check_interval=10,
            decode_responses=True,
        )
        loop = asyncio.get_running_loop()
        with contextlib.suppress(Exception):
            await self._beat()
        self._tasks = [loop.create_task(self._heartbeat()), loop.create_task(self._listen())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.delete(f"{NAMESPACE}:replica:{self.replica}")
            with contextlib.suppress(Exception):
                await self._redis.aclose()
            self._redis = None

    async def reachable(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:  # noqa: BLE001 - the bus or a peer failing never ends the replica
            return False

    # -- the replica's heartbeat -------------------------------------------------------
    async def _beat(self) -> None:
        await self.redis.set(f"{NAMESPACE}:replica:{self.replica}", self.address, ex=ALIVE_SECONDS)

    async def _heartbeat(self) -> None:
        while True:
            try:
                await self._beat()
            except Exception as exc:  # noqa: BLE001 - the bus or a peer failing never ends the replica
                log.warning("the bus (%s) is unreachable: %s", self.settings.shown, _why(exc))
            await asyncio.sleep(HEARTBEAT_SECONDS)

    # -- ownership ---------------------------------------------------------------------
    async def claim(self, kind: str, key: str, profile: str, seconds: int) -> None:
        """Record that this replica owns *key* (a session id or a request state) of
        *profile*'s, for *seconds*."""
        value = json.dumps({"r": self.replica, "p": profile})
        await self.redis.set(_digest(kind, key), value, ex=seconds)
        self._refreshed[key] = time.monotonic()
        if len(self._refreshed) > 65536:
            self._refreshed.clear()

    async def keep(self, kind: str, key: str, profile: str, seconds: int) -> None:
        """Refresh a claim (at most once a minute per key)."""
        last = self._refreshed.get(key)
        if last is None or time.monotonic() - last > _REFRESH_SECONDS:
            await self.claim(kind, key, profile, seconds)

    async def release(self, kind: str, key: str) -> None:
        self._refreshed.pop(key, None)
        await self.redis.delete(_digest(kind, key))

    async def owner(self, kind: str, key: str, profile: str) -> Owner:
        """Who owns *key*: this replica, another alive one (its address), one that is gone,
        nobody (or another profile: the same answer, so nothing is learned of it)."""
        try:
            raw = await self.redis.get(_digest(kind, key))
            if raw is None:
                return Owner(Ownership.UNKNOWN)
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("p") != profile:
                return Owner(Ownership.UNKNOWN)
            replica = str(data.get("r"))
            if replica == self.replica:
                return Owner(Ownership.LOCAL)
            address = await self.redis.get(f"{NAMESPACE}:replica:{replica}")
        except Exception as exc:  # noqa: BLE001 - the bus or a peer failing never ends the replica
            log.warning("the bus (%s) is unreachable: %s", self.settings.shown, _why(exc))
            return Owner(Ownership.UNREACHABLE)
        if not address:
            return Owner(Ownership.GONE)
        return Owner(Ownership.REMOTE, str(address))

    # -- notices -----------------------------------------------------------------------
    def on_notice(self, handler: Callable[[Notice], None]) -> Callable[[], None]:
        """Call *handler* with each notice another replica publishes; also with a
        :class:`NoticeKind.TRUST` and a :class:`NoticeKind.CONFIG` notice of unknown origin
        each time the subscription is (re)established, since notices may have been missed."""
        self._handlers.append(handler)
        return lambda: self._handlers.remove(handler) if handler in self._handlers else None

    async def publish(self, kind: NoticeKind, profile: str | None = None) -> None:
        """Tell every other replica that *kind* changed (best effort: a bus that is down
        loses the notice, and each replica re-reads everything when it hears the bus again)."""
        try:
            await self.redis.publish(NOTICES, notice_message(kind, profile, self.replica))
        except Exception as exc:  # noqa: BLE001 - the bus or a peer failing never ends the replica
            log.warning("a notice was not published (%s): %s", self.settings.shown, _why(exc))

    def _dispatch(self, notice: Notice) -> None:
        for handler in list(self._handlers):
            try:
                handler(notice)
            except Exception:
                log.exception("a notice handler failed")

    async def _listen(self) -> None:
        delay = 0.1
        while True:
            try:
                pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                try:
                    await pubsub.subscribe(NOTICES)
                    self.listening, delay = True, 0.1
                    for kind in (NoticeKind.TRUST, NoticeKind.CONFIG, NoticeKind.TOOLS):
                        self._dispatch(Notice(kind, ""))
                    while True:
                        message = await pubsub.get_message(timeout=5.0)
                        if message is not None:
                            notice = _notice(message.get("data"))
                            if notice is not None and notice.origin != self.replica:
                                self._dispatch(notice)
                        else:
                            await pubsub.ping()
                finally:
                    self.listening = False
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the bus or a peer failing never ends the replica
                log.warning(
                    "the bus's notices are not heard (%s): %s; retrying",
                    self.settings.shown,
                    _why(exc),
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)

    # -- fleet-wide limits -------------------------------------------------------------
    async def take(self, key: str, limit: int, window: float) -> bool:
        """One more use of *key* in the current window of *window* seconds, if fewer than
        *limit* were used fleet-wide; a bus that cannot be asked says no (fail closed)."""
        slot = int(time.time() // window)
        name = f"{NAMESPACE}:rate:{hashlib.sha256(key.encode()).hexdigest()}:{slot}"
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.incr(name)
                pipe.expire(name, max(1, int(window) + 1))
                count, _ = await pipe.execute()
        except Exception as exc:  # noqa: BLE001 - the bus or a peer failing never ends the replica
            log.warning("a fleet-wide limit could not be checked: %s; refused", _why(exc))
            return False
        return int(count) <= limit


def _notice(data: object) -> Notice | None:
    if not isinstance(data, str) or len(data) > _MAX_NOTICE:
        return None
    try:
        raw = json.loads(data)
        kind = NoticeKind(raw["k"])
    except (ValueError, KeyError, TypeError):
        return None
    profile = raw.get("p")
    return Notice(kind, str(raw.get("o", "")), profile if isinstance(profile, str) else None)


def _why(exc: BaseException) -> str:
    """An exception in words, without the URL (redis-py quotes host and port only)."""
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]
