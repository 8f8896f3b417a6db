"""``hermes mcp list``: the configured servers, validated but never connected."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hermes_core.cli.common import EXIT_OK, EXIT_USAGE, PluginLoader, print_config_error
from hermes_core.cli.list_record import cache_file, key_for, print_rows, remember
from hermes_core.cli.stop import Stop
from hermes_core.config.loader import (
    LoadedConfig,
    check_interceptor_settings,
    check_interceptors,
    check_sampling_backends,
    load_config,
)
from hermes_core.config.models import ConfigError, display_url
from hermes_core.config.redact import shown_args
from hermes_core.home import hermes_home
from hermes_core.host.calls.intercept.settings import BUILTIN_BLOCKS, check_created
from hermes_core.plugins import config_keys
from hermes_core.sanitize import clean_line

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["list_servers", "run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp list [--json]``."""
    return list_servers(as_json=args.json, plugins=plugins, no_plugins=args.no_plugins)


def list_servers(
    manager: HermesPluginManager | None = None,
    *,
    as_json: bool = False,
    plugins: PluginLoader,
    no_plugins: bool = False,
) -> int:
    """The configured servers, without connecting.

    The file is validated against *manager*'s transports, auth providers and sampling
    backends; without one, against the installed plugins' names as remembered in
    ``$HERMES_HOME/cache`` (:mod:`hermes_core.plugins.config_keys`), loading the plugins
    through *plugins()* only when what decides those names changed."""

    loaded, record_key = _load_listed(manager, plugins, no_plugins)
    rows: list[dict[str, Any]] = []
    for name, cfg in loaded.config.mcp_servers.items():
        if cfg.uses_url:
            target = display_url(cfg.url or "")
        elif cfg.command is not None:
            target = " ".join([cfg.command or "", *shown_args(cfg.args)])
        elif cfg.transport == "streamable_http":  # neither: its desktop app says where
            target = _app_target(name)
        else:  # a plugin transport's own key: only what its settings model shows
            target = ", ".join(_shown(k, v) for k, v in cfg.shown_options().items()) or "-"
        rows.append(
            {
                "server": name,
                "transport": cfg.transport,
                "enabled": cfg.enabled,
                "target": target,
            }
        )
    warnings = [str(warning) for warning in loaded.warnings]
    warnings += [str(problem) for _name, problem in loaded.unavailable]
    if record_key is not None:
        cache = cache_file(loaded.path.parent)
        remember(cache, record_key, str(loaded.path), rows, warnings)
    print_rows(str(loaded.path), rows, warnings, as_json=as_json)
    return EXIT_OK


def _app_target(name: str) -> str:
    """Where a desktop app's server is reached now (its declaration's ``liveness``): the
    running app's endpoint, or ``not running`` with why (never its token)."""
    # Imported here: the platform's resolvers, for an entry that needs them only.
    from hermes_core.host.liveness.endpoint import LiveEndpoint, live_endpoint

    seen = live_endpoint(name)
    if isinstance(seen, LiveEndpoint):
        return f"the running app at {seen.url}"
    return "not running" + (f" ({seen.reason})" if seen is not None else "")


def _shown(key: str, value: object) -> str:
    if isinstance(value, dict):
        inner = ", ".join(f"{k}: {_shown_value(v)}" for k, v in value.items())
        return f"{key}: {{{inner}}}"
    return f"{key}: {_shown_value(value)}"


def _shown_value(value: object) -> str:
    return clean_line(str(value))[:200]


def _load_listed(
    manager: HermesPluginManager | None,
    plugins: PluginLoader,
    no_plugins: bool,
) -> tuple[LoadedConfig, str | None]:
    """``config.yaml`` for ``mcp list``: like :func:`hermes_core.cli.hosting.load`, without
    loading the plugins when their config names are remembered (the host factory is not
    needed to list); with the key to record what it lists under
    (:mod:`hermes_core.cli.list_record`), None when there is no file or the names come from
    *manager*.

    The remembered names are never the last word: when the file fails against them (the record
    may be stale: a hook added to an editable plugin), or uses a plugin's settings that only
    the plugin's own model can check, the plugins are loaded, the names recorded again, and
    the file checked as every other command checks it."""
    off = config_keys.plugins_off(hermes_home(), no_plugins=no_plugins)
    if manager is None:
        keys, fingerprint = config_keys.lookup(hermes_home(), no_plugins=no_plugins, load=plugins)
        try:
            loaded = _checked(keys, off)
        except ConfigError:
            loaded = None
        if loaded is not None and not _needs_plugins(loaded, keys):
            record_key = None
            if loaded.digest is not None:
                record_key = key_for(loaded.path, loaded.digest, fingerprint, keys.names())
            return loaded, record_key
        manager = plugins()
        config_keys.record(hermes_home(), manager, no_plugins=no_plugins)
    try:
        loaded = _checked(config_keys.PluginConfigKeys.of(manager), off)
        check_created(loaded, manager.call_interceptors(), hermes_home())
    except ConfigError as exc:
        print_config_error(exc)
        raise Stop(EXIT_USAGE) from None
    return loaded, None


def _checked(keys: config_keys.PluginConfigKeys, off: str) -> LoadedConfig:
    """``config.yaml`` checked against *keys* (``ConfigError`` when it does not fit)."""
    # With plugins off, an entry only a plugin can read is left out with a warning (as
    # `status` and `tools` do), never the whole listing.
    loaded = load_config(kinds=dataclasses.replace(keys.kinds(), plugins_off=off))
    check_sampling_backends(loaded, list(keys.sampling), keys.sampling_settings())
    check_interceptors(loaded, keys.interceptors)
    check_interceptor_settings(loaded, keys.interceptor_settings())
    return loaded


def _needs_plugins(loaded: LoadedConfig, keys: config_keys.PluginConfigKeys) -> bool:
    """Whether *loaded* uses settings a recorded shape cannot check in full: a plugin
    transport's, auth provider's, sampling backend's or interceptor's block whose model only
    the loaded plugin has, or the settings block of a plugin interceptor (its ``create`` may
    refuse them)."""
    recorded = {key for key, shape in keys.settings if shape.model is None}
    used = set()
    for cfg in loaded.config.mcp_servers.values():
        used.add(f"transport:{cfg.transport}")
        if cfg.auth:
            used.add(f"auth:{cfg.auth}")
    tree = loaded.tree if isinstance(loaded.tree, Mapping) else {}
    backends = tree.get("sampling_backends")
    if isinstance(backends, Mapping):
        used.update(f"sampling:{name}" for name in backends)
    blocks = {str(name) for name in tree} & set(keys.interceptors) - BUILTIN_BLOCKS
    used.update(f"interceptor:{name}" for name in blocks)
    return bool(blocks) or bool(used & recorded)
