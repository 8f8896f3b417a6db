"""What the installed plugins add to ``config.yaml``, remembered between runs.

Validating ``config.yaml`` needs to know every registered transport (and the key that selects
it, such as a plugin's ``launch:``), every auth provider, sampling backend and call
interceptor.  Loading the plugins to find out costs more than the rest of ``hermes mcp list``
together (pluggy, each plugin's modules, ``hermes_platform``), so those names are kept in
``$HERMES_HOME/cache/plugin-config-keys.json``, under a fingerprint of what decides them:

* this Hermes version;
* every ``hermes.plugins`` entry point (name, target), the name and version of the
  distribution that provides it, and the size and modification time of that distribution's
  metadata folder (a reinstall or upgrade rewrites it, even at the same version);
* ``--no-plugins`` and ``HERMES_DISABLE_PLUGINS``.

Installing, removing, upgrading or disabling a plugin changes the fingerprint, so the next run
loads the plugins again and rewrites the file.  ``HERMES_STRICT_PLUGINS=1`` always loads them
(strict mode exists to check them).  The file is only a record of what a full load found: any
command that loads the plugins anyway refreshes it, and a missing, unreadable or foreign file is
simply a miss.  It is never the last word: ``mcp list`` loads the plugins and records them again
when the file fails against the record (an editable plugin's code edited in place, which no
fingerprint sees) and when the file uses settings only a plugin's own model can check (a
recorded shape knows keys and kinds, not constraints).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from hermes_core import __version__
from hermes_core.config.kinds import ServerKinds, settings_of
from hermes_core.config.plugin_settings import SettingsShape
from hermes_core.json_records import read_record, write_record
from hermes_core.plugins.entry_points import PluginEntryPoint, hermes_entry_points

__all__ = [
    "PluginConfigKeys",
    "PluginRegistrations",
    "cache_file",
    "env_flag",
    "env_list",
    "fingerprint",
    "for_cli",
    "lookup",
    "plugins_off",
    "read",
    "record",
    "recorded",
    "remember",
]

FORMAT = 4
_MAX_BYTES = 1024 * 1024


class _Keyed(Protocol):
    @property
    def config_key(self) -> str: ...


class PluginRegistrations(Protocol):
    """What the names are read from: the plugin manager, once it has loaded the plugins."""

    @property
    def entry_points(self) -> Sequence[PluginEntryPoint]: ...

    def transports(self) -> Mapping[str, _Keyed]: ...

    def auth_providers(self) -> Mapping[str, object]: ...

    def sampling_providers(self) -> Mapping[str, object]: ...

    def call_interceptors(self) -> Mapping[str, object]: ...


@dataclass(frozen=True)
class PluginConfigKeys:
    """The names ``config.yaml`` may use: transports (name, config key), auth providers,
    sampling backends and call interceptors, in registration order; and the shapes of their
    settings models (``transport:<name>`` / ``auth:<name>``,
    :mod:`hermes_core.config.plugin_settings`)."""

    transports: tuple[tuple[str, str], ...]
    auth: tuple[str, ...]
    sampling: tuple[str, ...]
    settings: tuple[tuple[str, SettingsShape], ...] = ()
    auth_stdio: tuple[str, ...] = ()
    """The auth providers that also serve servers without a URL (``AuthProviderSpec.stdio``)."""
    interceptors: tuple[str, ...] = ()

    @classmethod
    def of(cls, manager: PluginRegistrations) -> PluginConfigKeys:
        transports, auth = manager.transports(), manager.auth_providers()
        sampling, interceptors = manager.sampling_providers(), manager.call_interceptors()
        return cls(
            tuple((name, str(spec.config_key)) for name, spec in transports.items()),
            tuple(auth),
            tuple(sampling),
            settings_of(transports, auth, sampling, interceptors),
            tuple(n for n, spec in auth.items() if getattr(spec, "stdio", False)),
            tuple(interceptors),
        )

    def names(self) -> dict[str, object]:
        """The names as plain JSON (part of ``mcp list``'s record key)."""
        return {
            "transports": [list(t) for t in self.transports],
            "auth": list(self.auth),
            "sampling": list(self.sampling),
            "settings": {key: shape.record() for key, shape in self.settings},
            "auth_stdio": list(self.auth_stdio),
            "interceptors": list(self.interceptors),
        }

    def sampling_settings(self) -> dict[str, SettingsShape]:
        """Backend name → the shape of its settings model (the backends that carry one)."""
        return self._settings_of("sampling")

    def interceptor_settings(self) -> dict[str, SettingsShape]:
        """Interceptor name → the shape of its settings model (those that carry one)."""
        return self._settings_of("interceptor")

    def _settings_of(self, kind: str) -> dict[str, SettingsShape]:
        prefix = f"{kind}:"
        return {k.removeprefix(prefix): s for k, s in self.settings if k.startswith(prefix)}

    def kinds(self) -> ServerKinds:
        """What ``config.yaml`` is validated against (handed to the config loader)."""
        return ServerKinds(
            self.transports,
            self.auth,
            self.auth_stdio,
            settings=self.settings,
            blocks=self.interceptors,
        )


def env_flag(name: str) -> bool:
    """An on/off environment setting (``HERMES_STRICT_PLUGINS``)."""
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str) -> list[str]:
    """A comma-separated environment setting (``HERMES_DISABLE_PLUGINS``)."""
    return [part.strip() for part in os.environ.get(name, "").split(",") if part.strip()]


def for_cli(
    home: Path, *, no_plugins: bool, load: Callable[[], PluginRegistrations]
) -> PluginConfigKeys:
    """The plugins' names as the ``hermes`` command loads them: remembered when nothing that
    decides them changed, else from *load()* (the applied manager), then remembered."""
    return lookup(home, no_plugins=no_plugins, load=load)[0]


def plugins_off(home: Path, *, no_plugins: bool) -> str:
    """Why some installed plugins are not loaded, in the host factory's words ("" when all
    are), without loading them: ``--no-plugins``, or an installed plugin (entry point or
    distribution) named in ``HERMES_DISABLE_PLUGINS``."""
    if no_plugins:
        return "plugins are off (--no-plugins)"
    disabled = set(env_list("HERMES_DISABLE_PLUGINS"))
    if not disabled:
        return ""
    entries = hermes_entry_points(home, strict=env_flag("HERMES_STRICT_PLUGINS"))
    names = sorted({e.name for e in entries if e.name in disabled or e.dist_name in disabled})
    if not names:
        return ""
    return f"plugin {', '.join(names)} is disabled (HERMES_DISABLE_PLUGINS)"


def lookup(
    home: Path, *, no_plugins: bool, load: Callable[[], PluginRegistrations]
) -> tuple[PluginConfigKeys, str]:
    """:func:`for_cli`, with the fingerprint the names are recorded under."""
    expected = fingerprint(
        no_plugins=no_plugins, disabled=env_list("HERMES_DISABLE_PLUGINS"), home=home
    )
    known = recorded(home, expected)
    if known is not None:
        return known, expected
    keys = PluginConfigKeys.of(load())
    remember(cache_file(home), expected, keys)
    return keys, expected


def recorded(home: Path, expected: str) -> PluginConfigKeys | None:
    """The names recorded for *expected*, or None (none recorded; strict mode never uses one)."""
    if env_flag("HERMES_STRICT_PLUGINS"):
        return None
    return read(cache_file(home), expected)


def record(home: Path, manager: PluginRegistrations, *, no_plugins: bool) -> None:
    """Record *manager*'s names (the applied manager of this run) whatever is recorded."""
    expected = fingerprint(
        no_plugins=no_plugins,
        disabled=env_list("HERMES_DISABLE_PLUGINS"),
        entries=manager.entry_points,
    )
    remember(cache_file(home), expected, PluginConfigKeys.of(manager))


def cache_file(home: Path) -> Path:
    return home / "cache" / "plugin-config-keys.json"


def fingerprint(
    *,
    no_plugins: bool,
    disabled: Iterable[str],
    home: Path | None = None,
    entries: Iterable[PluginEntryPoint] | None = None,
) -> str:
    """What decides the plugins' names, hashed (see the module docstring).  *entries*: the
    entry points found already, else found now (remembered in *home*, see
    :mod:`hermes_core.plugins.entry_points`)."""
    if entries is None:
        entries = hermes_entry_points(home, strict=env_flag("HERMES_STRICT_PLUGINS"))
    rows: list[object] = []
    for entry in entries:
        where: object = None
        if entry.dist_path is not None:
            with contextlib.suppress(OSError):
                stat = os.stat(entry.dist_path)
                where = [entry.dist_path, stat.st_mtime_ns, stat.st_size]
        rows.append([entry.name, entry.value, entry.dist_name, entry.dist_version, where])
    rows.sort(key=json.dumps)
    shape = {
        "hermes": __version__,
        "format": FORMAT,
        "entry_points": rows,
        "no_plugins": no_plugins,
        "disabled": sorted(disabled),
    }
    text = json.dumps(shape, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def read(path: Path, expected: str) -> PluginConfigKeys | None:
    """The remembered names for *expected*, or None (missing, unreadable, another fingerprint)."""
    data = read_record(
        path, format=FORMAT, key_field="fingerprint", expected=expected, max_bytes=_MAX_BYTES
    )
    if data is None:
        return None
    try:
        transports = tuple(_pair(item) for item in _listed(data["transports"]))
        auth = tuple(str(n) for n in _listed(data["auth"]))
        sampling = tuple(str(n) for n in _listed(data["sampling"]))
        shapes = data.get("settings") or {}
        if not isinstance(shapes, dict):
            raise TypeError("settings is not an object")
        settings = tuple(
            (str(key), SettingsShape.from_record(shape)) for key, shape in shapes.items()
        )
        auth_stdio = tuple(str(n) for n in _listed(data.get("auth_stdio") or []))
        interceptors = tuple(str(n) for n in _listed(data["interceptors"]))
    except (KeyError, TypeError, ValueError):
        return None
    return PluginConfigKeys(transports, auth, sampling, settings, auth_stdio, interceptors)


def _listed(value: object) -> list[object]:
    """*value*, a JSON array of the record; ``TypeError`` when it is something else."""
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


def _pair(item: object) -> tuple[str, str]:
    """A ``[name, key]`` entry of the record's transports."""
    name, key = _listed(item)
    return str(name), str(key)


def remember(path: Path, expected: str, keys: PluginConfigKeys) -> None:
    """Write the names for *expected* atomically; a failure only costs the next run a load."""
    payload: Mapping[str, object] = {
        "format": FORMAT,
        "fingerprint": expected,
        "transports": [list(t) for t in keys.transports],
        "auth": list(keys.auth),
        "sampling": list(keys.sampling),
        "settings": {key: shape.record() for key, shape in keys.settings},
        "auth_stdio": list(keys.auth_stdio),
        "interceptors": list(keys.interceptors),
    }
    with contextlib.suppress(OSError):
        write_record(path, payload)
