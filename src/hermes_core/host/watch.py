"""Follow ``config.yaml`` while a host runs: an edit is applied with :meth:`MCPHost.reload`.

::

    async with MCPHost(host_servers(load_config())) as host:
        host.watch_config()            # config.yaml and $HERMES_HOME/.env, checked every 2 s

* Only a real change is applied (the files' modification time, size and inode are compared),
  and only the servers whose entries changed are touched (see :meth:`MCPHost.reload`).
* A config that does not load (bad YAML, an invalid server) changes nothing: the error, which
  names the file, line and key, is logged and the running servers are kept.  Nothing is
  dropped because of a half-saved edit.
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
from typing import Any, Protocol

from hermes_core.config.loader import config_path, hermes_home
from hermes_core.host.config_source import ConfigSource
from hermes_core.host.from_config import host_servers
from hermes_core.host.spec import HostServer

__all__ = ["DEFAULT_INTERVAL", "ConfigWatcher", "Reloadable", "config_loader", "follow"]

log = logging.getLogger(__name__)
DEFAULT_INTERVAL = 2.0
Stamp = tuple[int, int, int] | None


class Reloadable(Protocol):
    """What a watcher needs of the host it follows the config for (:class:`MCPHost`)."""

    async def reload(self, servers: Iterable[HostServer]) -> dict[str, list[str]]: ...

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any] | None: ...


class ConfigWatcher:
    """Poll *paths*; when any of them changed, build the servers with *load* and reload."""

    def __init__(
        self,
        host: Reloadable,
        load: Callable[[], Iterable[HostServer]],
        paths: Iterable[Path],
        *,
        interval: float = DEFAULT_INTERVAL,
        on_reload: Callable[[Mapping[str, list[str]]], Any] | None = None,
    ) -> None:
        if interval <= 0:
            raise ValueError("interval must be a positive number of seconds")
        self.host = host
        self.paths = [Path(p) for p in paths]
        self.interval = interval
        self._load = load
        self._on_reload = on_reload
        self._last = self._stamps()
        self.reloads = 0
        self.last_error: str | None = None

    def _stamps(self) -> tuple[Stamp, ...]:
        return tuple(_stamp(p) for p in self.paths)

    async def check(self) -> asyncio.Task[Mapping[str, list[str]]] | None:
        """Look once; when the files changed, start a reload and return its task."""
        stamps = self._stamps()
        if stamps == self._last:
            return None
        self._last = stamps
        try:
            servers = list(await asyncio.to_thread(self._load))
        except Exception as exc:  # noqa: BLE001 - a bad edit must never stop the host
            self.last_error = str(exc)
            log.error("config not reloaded, the running MCP servers are kept: %s", exc)
            return None
        self.last_error = None
        # Owned by the host: its close cancels and awaits a reload in progress.
        return self.host.spawn(self._reload(servers), "config reload")

    async def _reload(self, servers: list[HostServer]) -> Mapping[str, list[str]]:
        diff = await self.host.reload(servers)
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
        """Check every :attr:`interval` seconds until cancelled (the reloads it starts belong
        to the host, which ends them when it closes)."""
        while True:
            await asyncio.sleep(self.interval)
            await self.check()


def config_loader(
    path: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    display_names: Mapping[str, str] | None = None,
    factory: ConfigSource | None = None,
) -> tuple[Callable[[], list[HostServer]], list[Path]]:
    """``(load, paths)`` for ``config.yaml`` (default ``$HERMES_HOME/config.yaml``) and the
    ``.env`` beside ``$HERMES_HOME``: *load* builds the servers as the host started them,
    through *factory* (its transports and auth providers; default: the built-in ones)."""
    environ = dict(os.environ if env is None else env)
    target = Path(path) if path is not None else config_path(environ)
    chosen = factory if factory is not None else ConfigSource(display_names=display_names)
    names = display_names if display_names is not None else chosen.display_names

    def load() -> list[HostServer]:
        loaded = chosen.load_config(target)
        return host_servers(
            loaded, env=environ, display_names=names, auth_providers=chosen.auth_providers
        )

    return load, [target, hermes_home(environ) / ".env"]


def follow(
    host: Reloadable,
    path: str | os.PathLike[str] | None = None,
    *,
    interval: float = DEFAULT_INTERVAL,
    display_names: Mapping[str, str] | None = None,
    load: Callable[[], Iterable[HostServer]] | None = None,
    source: ConfigSource | None = None,
) -> ConfigWatcher:
    """Watch ``config.yaml`` for *host* (see :meth:`MCPHost.watch_config`): the watcher runs
    as a task of the host, so it stops with it.  *load* replaces building the servers from
    *path* through *source* (default: the built-in transports and auth providers)."""
    loader, paths = config_loader(path, display_names=display_names, factory=source)
    watcher = ConfigWatcher(host, load or loader, paths, interval=interval)
    host.spawn(watcher.run(), "config watcher")
    return watcher


def _stamp(path: Path) -> Stamp:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)
