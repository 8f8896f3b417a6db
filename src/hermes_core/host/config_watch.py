"""Follow the files that decide what a running host does: ``config.yaml``, ``$HERMES_HOME/.env``
and the administrator's policy files.  An edit is applied with :meth:`MCPHost.reload`.

::

    async with MCPHost(host_servers(load_config())) as host:
        host.watch_config()            # looked at before every call, and every 0.5 s

* Only a real change is applied (the files' modification time, size and inode are compared:
  one ``stat`` per file; from a host's second look on, only once inotify named one of the
  files, see :mod:`hermes_core.host.change_feed`), and only the servers whose entries
  changed are touched (see :meth:`MCPHost.reload`).  A policy edit that changes no server's
  entry is applied to the kept servers: their tools are screened again (refused ones go,
  allowed ones come back).
* A call looks first (:meth:`ConfigWatcher.pending`): when a file changed, it waits until the
  new config and policy are applied (read in a worker thread, the difference applied), never
  for servers that are still connecting.  Calls that arrive meanwhile wait for the same reload,
  so no call is decided on what the files said before.
* A config that does not load (bad YAML, an invalid server) changes nothing: the error, which
  names the file, line and key, is logged and the running servers are kept.  Nothing is
  dropped because of a half-saved edit.  A policy file that does not read fails closed, as
  it does for a new process: every server is stopped and refused, saying why, until it is
  fixed.
* No reload has a time limit, and none interrupts a browser login in progress: a first
  OAuth login may take the user minutes (the reason other hosts' reloads break it).
* Each reload runs in the background, so the watcher keeps watching while servers connect.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Coroutine, Iterable, Mapping
from pathlib import Path
from typing import Protocol, TypeVar

from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import load_config
from hermes_core.config.policy_rules import Policy
from hermes_core.host.change_feed import ChangeFeed
from hermes_core.host.decision_files import Stamp, decision_files, stamp_of
from hermes_core.host.server_spec import HostServer
from hermes_core.host.setup.config_source import ConfigSource
from hermes_core.host.setup.from_config import host_servers

__all__ = [
    "DEFAULT_INTERVAL",
    "ConfigWatcher",
    "Reloadable",
    "config_loader",
    "follow",
]

log = logging.getLogger(__name__)
T = TypeVar("T")
#: How often (seconds) the watcher looks between calls (a call looks itself, first).
DEFAULT_INTERVAL = 0.5
#: A reload, started; ``None``: nothing to reload (or the new config did not load).
Started = asyncio.Task[Mapping[str, list[str]]] | None


class Reloadable(Protocol):
    """What a watcher needs of the host it follows the config for (:class:`MCPHost`)."""

    async def reload(
        self, servers: Iterable[HostServer], *, applied: asyncio.Event | None = None
    ) -> dict[str, list[str]]: ...

    def spawn(self, coro: Coroutine[object, object, T], name: str) -> asyncio.Task[T] | None: ...


class ConfigWatcher:
    """Looks at *paths*; when any of them changed, builds the servers with *load* and reloads."""

    def __init__(
        self,
        host: Reloadable,
        load: Callable[[], Iterable[HostServer]],
        paths: Iterable[Path],
        *,
        interval: float = DEFAULT_INTERVAL,
        on_reload: Callable[[Mapping[str, list[str]]], object] | None = None,
        seen: Mapping[Path, Stamp] | None = None,
    ) -> None:
        """*seen*: the files' stamps when the running servers were read from them
        (:attr:`ConfigSource.stamps`); an edit made since (while the servers started) is
        then applied at the first look.  Without it, the files as they are now."""
        if interval <= 0:
            raise ValueError("interval must be a positive number of seconds")
        self.host = host
        self.paths = [Path(p) for p in paths]
        self._where = [str(p) for p in self.paths]  # (os.stat on text: every call does it)
        self.interval = interval
        self._load = load
        self._on_reload = on_reload
        known = seen or {}
        self._last = tuple(known[p] if p in known else stamp_of(str(p)) for p in self.paths)
        self._catching_up: asyncio.Task[Started] | None = None
        self._feed: ChangeFeed | None = None
        self._looked = False
        self.reloads = 0
        self.last_error: str | None = None

    def _stamps(self) -> tuple[Stamp, ...]:
        return tuple([stamp_of(p) for p in self._where])

    def pending(self) -> asyncio.Task[Started] | None:
        """``None`` when no file changed since the last look (the usual call: one ``stat`` per
        file); else the catching up in progress (started here when it is new), which ends once
        the new config is applied.  Await it through :func:`asyncio.shield`: it is shared."""
        catching_up = self._catching_up
        if catching_up is not None:
            return catching_up
        feed = self._feed
        if feed is not None:
            if not feed.maybe_changed():
                return None  # (no event named one of the files: one poll, no stat)
        elif self._looked:  # a host that looks twice (not a one-call CLI) follows events
            self._feed = ChangeFeed(self._where)
        else:
            self._looked = True
        stamps = self._stamps()
        if stamps == self._last:
            return None
        self._last = stamps  # taken before the files are read: a later edit is seen again
        catching_up = self.host.spawn(self._catch_up(), "config catch-up")
        self._catching_up = catching_up
        return catching_up

    async def check(self) -> Started:
        """Look once; when the files changed, wait until the change is applied and return the
        reload's task (it goes on connecting added servers)."""
        catching_up = self.pending()
        if catching_up is None:
            return None
        return await asyncio.shield(catching_up)

    async def _catch_up(self) -> Started:
        try:
            try:
                servers = list(await asyncio.to_thread(self._load))
            except Exception as exc:  # noqa: BLE001 - a bad edit must never stop the host
                self.last_error = str(exc)
                log.error("config not reloaded, the running MCP servers are kept: %s", exc)
                return None
            self.last_error = None
            applied = asyncio.Event()
            # Owned by the host: its close cancels and awaits a reload in progress.
            reload = self.host.spawn(self._reload(servers, applied), "config reload")
            if reload is None:
                return None
            waiting = asyncio.ensure_future(applied.wait())
            try:
                await asyncio.wait({reload, waiting}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiting.cancel()
            return reload
        finally:
            self._catching_up = None

    async def _reload(
        self, servers: list[HostServer], applied: asyncio.Event
    ) -> Mapping[str, list[str]]:
        try:
            diff = await self.host.reload(servers, applied=applied)
        finally:
            applied.set()
        self.reloads += 1
        touched = {k: v for k, v in diff.items() if v}
        if touched:
            log.info(
                "config reloaded: %s",
                "; ".join(f"{k} {', '.join(v)}" for k, v in touched.items()),
            )
        if self._on_reload is not None:
            self._on_reload(diff)
        return diff

    async def run(self) -> None:
        """Look every :attr:`interval` seconds until cancelled (the reloads it starts belong
        to the host, which ends them when it closes).  Its inotify descriptor is closed then."""
        try:
            while True:
                await asyncio.sleep(self.interval)
                await self.check()
        finally:
            self.close()

    def close(self) -> None:
        """Stop following events (a later look compares the files' stamps again)."""
        feed, self._feed, self._looked = self._feed, None, False
        if feed is not None:
            feed.close()


def config_loader(
    path: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    display_names: Mapping[str, str] | None = None,
    factory: ConfigSource | None = None,
) -> tuple[Callable[[], list[HostServer]], list[Path]]:
    """``(load, paths)`` for ``config.yaml`` (default ``$HERMES_HOME/config.yaml``), the
    ``.env`` beside it in ``$HERMES_HOME`` and the policy files: *load* builds the servers as
    the host started them, through *factory* (its transports and auth providers, the policy
    read afresh; default: the built-in ones)."""
    environ = dict(os.environ if env is None else env)
    paths = decision_files(path, environ)
    target = paths[0]
    chosen = factory if factory is not None else ConfigSource(display_names=display_names)
    names = display_names if display_names is not None else chosen.display_names

    policies = {str(p) for p in paths[2:]}

    def load() -> list[HostServer]:
        try:
            loaded = chosen.load_config(target)  # reads the policy files again too
            policy = chosen.policy
        except ConfigError as exc:
            if exc.path not in policies:
                raise
            # A policy edit that does not read fails closed, as a new process would refuse
            # to start: every server is refused, saying why, until the file is fixed.
            log.error("the administrator's policy is wrong, no server may run: %s", exc)
            loaded = load_config(target, kinds=chosen.kinds)
            policy = Policy(files=(exc.path,), broken=f"the policy file is wrong ({exc})")
        return host_servers(
            loaded,
            env=environ,
            display_names=names,
            auth_providers=chosen.auth_providers,
            policy=policy,
            catalog_check=chosen.catalog_check,
        )

    return load, paths


def follow(
    host: Reloadable,
    path: str | os.PathLike[str] | None = None,
    *,
    interval: float = DEFAULT_INTERVAL,
    display_names: Mapping[str, str] | None = None,
    load: Callable[[], Iterable[HostServer]] | None = None,
    source: ConfigSource | None = None,
    on_reload: Callable[[Mapping[str, list[str]]], object] | None = None,
) -> ConfigWatcher:
    """Watch ``config.yaml`` for *host* (see :meth:`MCPHost.watch_config`): the watcher runs
    as a task of the host, so it stops with it.  *load* replaces building the servers from
    *path* through *source* (default: the built-in transports and auth providers)."""
    loader, paths = config_loader(path, display_names=display_names, factory=source)
    seen = source.stamps if source is not None else None
    watcher = ConfigWatcher(
        host, load or loader, paths, interval=interval, on_reload=on_reload, seen=seen
    )
    host.spawn(watcher.run(), "config watcher")
    return watcher
