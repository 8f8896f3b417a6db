"""Reading ``config.yaml`` into the host's servers, against the registered transports, auth
providers and sampling backends (the built-in ones, or a plugin manager's)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

from hermes_core.config.errors import ConfigError
from hermes_core.config.interpolate import load_dotenv, resolve
from hermes_core.config.kinds import ServerKinds, settings_of
from hermes_core.config.loader import (
    LoadedConfig,
    check_interceptor_settings,
    check_interceptors,
    check_sampling_backends,
    hermes_home,
    load_config,
)
from hermes_core.config.models import ServerConfig
from hermes_core.config.policy import load_policy
from hermes_core.config.policy_rules import Policy
from hermes_core.config.secret_keys import credentials_in
from hermes_core.host.calls.audit import AuditSetup
from hermes_core.host.calls.audit_pg import audit_sink_for
from hermes_core.host.calls.intercept.builtin import BUILTIN_INTERCEPTORS
from hermes_core.host.calls.intercept.settings import check_created, settings_shapes, validated
from hermes_core.host.calls.intercept.table import InterceptorTable
from hermes_core.host.calls.secrets_guard import SECRETS_GUARD, GuardSetup
from hermes_core.host.decision_files import Stamp, decision_files, stamps_of
from hermes_core.host.server_spec import HostServer
from hermes_core.host.setup.builtin_plugins import (
    builtin_auth_providers,
    builtin_interceptors,
    builtin_transports,
)
from hermes_core.host.setup.from_config import (
    CatalogCheck,
    host_server,
    host_servers,
    policy_refusal,
)
from hermes_core.host.setup.sampling_settings import with_backend_settings
from hermes_core.host.transports import Opener
from hermes_core.pgstate import Database, database_for, remember_state
from hermes_core.plugins.manager import HermesPluginManager, get_plugin_manager
from hermes_core.plugins.types import (
    AuthProviderSpec,
    CallInterceptor,
    InterceptorSetup,
    SamplingProvider,
    TransportSpec,
)

__all__ = ["ConfigSource"]

#: The built-in guard's registration (a plugin's interceptor of that name gets no credentials).
BUILTIN_GUARD = next(i for i in BUILTIN_INTERCEPTORS if i.name == SECRETS_GUARD)
#: The built-in audit log's registration (given the state database's sink with ``state:``).
BUILTIN_AUDIT = next(i for i in BUILTIN_INTERCEPTORS if i.name == "audit")


class ConfigSource:
    """Loads ``config.yaml`` against the registered transports and auth providers and builds
    the host's servers from it (a :class:`~hermes_core.host.setup.factory.HostFactory` builds
    hosts from one)."""

    def __init__(
        self,
        transports: Mapping[str, TransportSpec] | None = None,
        auth_providers: Mapping[str, AuthProviderSpec] | None = None,
        *,
        display_names: Mapping[str, str] | None = None,
        sampling_providers: Mapping[str, SamplingProvider] | None = None,
        plugins_off: str = "",
        interceptors: Mapping[str, CallInterceptor] | None = None,
    ) -> None:
        """*transports*/*auth_providers* default to the built-in ones (no plugins);
        *display_names* are the app declarations' names, shown in errors;
        *sampling_providers* are the LLM backends servers may sample (none built in);
        *interceptors* are the call interceptors ``interceptors:`` may name (default: the
        built-in ``audit`` and ``result_budget``)."""
        self.transports: dict[str, TransportSpec] = dict(
            builtin_transports() if transports is None else transports
        )
        self.auth_providers: dict[str, AuthProviderSpec] = dict(
            builtin_auth_providers() if auth_providers is None else auth_providers
        )
        self.display_names: dict[str, str] = dict(display_names or {})
        self.registered_sampling: dict[str, SamplingProvider] = dict(sampling_providers or {})
        """The sampling backends as registered (``sampling_providers``: bound to their
        ``sampling_backends:`` settings by the last :meth:`load_config`)."""
        self.sampling_providers: dict[str, SamplingProvider] = dict(self.registered_sampling)
        self.catalog_check: CatalogCheck | None = None
        """Whether an entry is what a catalog entry installs (the policy's ``catalog_only``);
        the ``hermes`` command sets it from the catalog, without it such a policy refuses all."""
        self._policy: tuple[Policy | None] | None = None
        self.interceptors: dict[str, CallInterceptor] = dict(
            builtin_interceptors() if interceptors is None else interceptors
        )
        self.kinds = dataclasses.replace(
            ServerKinds.of(self.transports, self.auth_providers, plugins_off),
            blocks=tuple(self.interceptors),
        )
        self.loaded: LoadedConfig | None = None
        """The config :meth:`load_config` read last (the interceptors' settings come from it)."""
        self._owned_manager: HermesPluginManager | None = None
        self.stamps: dict[Path, Stamp] = {}
        """The stamps of the config, ``.env`` and policy files as :meth:`load_config` last
        found them, before reading (a host's config watcher starts from them)."""

    @classmethod
    def from_manager(cls, manager: HermesPluginManager) -> Self:
        """With everything *manager* collected (its plugins' transports, auth providers and
        sampling backends)."""
        return cls(
            manager.transports(),
            manager.auth_providers(),
            display_names=manager.display_names,
            sampling_providers=manager.sampling_providers(),
            plugins_off=_plugins_off(manager),
            interceptors=manager.call_interceptors(),
        )

    @classmethod
    def from_plugins(cls, *, no_plugins: bool = False) -> Self:
        """With the installed plugins, loaded as the ``hermes`` command loads them.

        What the plugins registered with ``hermes_platform`` (location kinds, version sources,
        GPU probes, app declarations) belongs to this factory: :meth:`close` (or leaving a
        ``with`` block) removes it again, so factories and ``check_plugin`` can follow each other
        in one process in any order."""
        manager = get_plugin_manager(no_plugins=no_plugins)
        source = cls.from_manager(manager)
        source._owned_manager = manager
        return source

    def close(self) -> None:
        """Undo what :meth:`from_plugins` registered with ``hermes_platform`` (a factory made
        :meth:`from_manager` leaves its manager to its owner).  Idempotent."""
        manager, self._owned_manager = self._owned_manager, None
        if manager is not None:
            manager.unapply()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- config ----------------------------------------------------------------------
    def load_config(
        self, path: str | os.PathLike[str] | None = None, *, strict: bool = True
    ) -> LoadedConfig:
        """``config.yaml`` (default ``$HERMES_HOME/config.yaml``) validated against the
        registered transports, auth providers and sampling backends (unknown names:
        ``ConfigError``)."""
        stamps = stamps_of(decision_files(path))  # before reading: a later edit is seen
        loaded = load_config(path, strict=strict, kinds=self.kinds)
        self._check_sampling_backends(loaded)
        self.sampling_providers = with_backend_settings(self.registered_sampling, loaded)
        self._policy = (load_policy(),)  # a wrong policy file is an error here
        self._check_interceptors(loaded)
        remember_state(hermes_home(), loaded.config.state)  # for OAuth token storage
        self.loaded = loaded
        self.stamps = stamps
        return loaded

    @property
    def policy(self) -> Policy | None:
        """The administrator's policy in force (read once; ``ConfigError`` when it is wrong)."""
        if self._policy is None:
            self._policy = (load_policy(),)
        return self._policy[0]

    def _check_interceptors(self, loaded: LoadedConfig) -> None:
        """Every name under ``interceptors:`` must be registered (file:line), and each
        interceptor's settings block must suit it (its model, or its ``create``)."""
        check_interceptors(loaded, self.interceptors)
        check_interceptor_settings(loaded, settings_shapes(self.interceptors))
        check_created(loaded, self.interceptors, hermes_home())

    def interceptor_table(
        self, loaded: LoadedConfig | None = None, *, env: Mapping[str, str] | None = None
    ) -> InterceptorTable:
        """The registered interceptors for a host, each set up on first use with its
        settings: the top-level block of *loaded* (default: the config read last) named after
        it (``audit:``; ``results:`` for ``result_budget``)."""
        chosen = loaded if loaded is not None else self.loaded
        home = hermes_home(env)
        extra = dict(chosen.config.model_extra or {}) if chosen is not None else {}
        blocks: dict[str, Any] = {}
        if chosen is not None:
            blocks["audit"] = chosen.config.audit.model_dump()
            blocks["result_budget"] = chosen.config.results.model_dump()

        def setup(name: str) -> InterceptorSetup:
            settings = blocks.get(name, extra.get(name))
            given = settings if isinstance(settings, Mapping) else {}
            spec = self.interceptors.get(name)
            if name == SECRETS_GUARD and spec is BUILTIN_GUARD:
                return GuardSetup(home, given, credentials=self._credentials(chosen, env))
            db = self.state_database(chosen)
            if name == "audit" and spec is BUILTIN_AUDIT and db is not None:
                return AuditSetup(
                    home, given, validated=validated(spec, given), sink=audit_sink_for(db)
                )
            return InterceptorSetup(
                home, given, validated=validated(spec, given) if spec is not None else None
            )

        return InterceptorTable(self.interceptors, setup)

    def state_database(self, loaded: LoadedConfig | None = None) -> Database | None:
        """The state database ``state:`` names in *loaded* (default: the config read last,
        else read now); ``None`` without ``state:`` (the SQLite files under ``$HERMES_HOME``)."""
        chosen = loaded if loaded is not None else self.loaded
        if chosen is None:
            chosen = self.load_config(strict=False)
        state = chosen.config.state
        return database_for(state) if state is not None else None

    @staticmethod
    def _credentials(
        loaded: LoadedConfig | None, env: Mapping[str, str] | None
    ) -> dict[str, dict[str, str]]:
        """Every configured server's credential values (``${VAR}`` resolved), for the
        built-in ``secrets_guard`` only."""
        if loaded is None:
            return {}
        environ = dict(os.environ if env is None else env)
        dotenv = load_dotenv(hermes_home(environ) / ".env")
        found: dict[str, dict[str, str]] = {}
        for name, cfg in loaded.config.mcp_servers.items():
            try:
                resolved = resolve(name, cfg, env=environ, dotenv=dotenv, workspace=os.getcwd())
            except ConfigError:
                resolved = cfg  # (it fails to start; its literal values still count)
            found[name] = credentials_in(
                env=resolved.env, headers=resolved.headers, url=resolved.url, args=resolved.args
            )
        return found

    def _check_sampling_backends(self, loaded: LoadedConfig) -> None:
        """``sampling.backend`` must name a registered backend (file:line, listing them), and
        ``sampling_backends:`` fit the backends' settings models."""
        shapes = {
            key.removeprefix("sampling:"): shape
            for key, shape in settings_of({}, [], self.registered_sampling)
        }
        check_sampling_backends(loaded, list(self.registered_sampling), shapes)

    def servers(
        self,
        loaded: LoadedConfig | None = None,
        *,
        env: Mapping[str, str] | None = None,
        only: str | None = None,
    ) -> list[HostServer]:
        """The host's servers for *loaded* (default: :meth:`load_config`), ``${VAR}``
        resolved and each ``auth:`` provider's ``create`` called."""
        return host_servers(
            loaded if loaded is not None else self.load_config(),
            env=env,
            display_names=self.display_names,
            only=only,
            auth_providers=self.auth_providers,
            policy=self.policy,
            catalog_check=self.catalog_check,
        )

    def server(
        self,
        name: str,
        resolved: ServerConfig,
        *,
        home: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> HostServer:
        """The host's view of one already resolved entry (``hermes mcp add``'s probe, the
        catalog's): one the administrator's policy refuses is built failed with the rule as its
        error, never started (``catalog_only`` is for the callers, which hold the entry as
        written: this one is resolved)."""
        return host_server(
            name,
            resolved,
            error=self._probe_refusal(name, resolved),
            display_name=self.display_names.get(name),
            home=home if home is not None else hermes_home(env),
            env=env,
            auth_providers=self.auth_providers,
        )

    def refused(
        self, name: str, cfg: ServerConfig, env: Mapping[str, str] | None = None
    ) -> str | None:
        """Why the administrator's policy refuses the entry *cfg* (as written; ``${VAR}``
        resolved where it can be), one sentence naming the rule; ``None`` when it may run.
        What ``add``, ``install`` and ``import`` ask before writing (``ConfigError``: the
        policy file is wrong)."""
        policy = self.policy
        if policy is None:
            return None
        environ = dict(os.environ if env is None else env)
        try:
            dotenv = load_dotenv(hermes_home(environ) / ".env")
            resolved = resolve(name, cfg, env=environ, dotenv=dotenv, workspace=os.getcwd())
        except ConfigError:
            resolved = cfg
        refusal = policy_refusal(policy, name, cfg, resolved, self.catalog_check)
        if refusal is None:
            return None
        return f"MCP server '{name}' is refused by the administrator's policy: {refusal}"

    def _probe_refusal(self, name: str, resolved: ServerConfig) -> str | None:
        try:
            policy = self.policy
        except ConfigError as exc:
            return str(exc)
        refusal = policy_refusal(policy, name, resolved, resolved, lambda _name, _entry: True)
        if refusal is None:
            return None
        return f"MCP server '{name}' is refused by the administrator's policy: {refusal}"

    @property
    def openers(self) -> dict[str, Opener]:
        """Transport name → its ``connect``, for every registered transport."""
        return {name: spec.connect for name, spec in self.transports.items() if spec.connect}

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(transports={list(self.transports)}, "
            f"auth_providers={list(self.auth_providers)})"
        )


def _plugins_off(manager: HermesPluginManager) -> str:
    """Why some installed plugins are not loaded, in words ("" when all are)."""
    off = [r for r in manager.plugins() if r.status == "disabled"]
    if not off:
        return ""
    if any(r.reason == "--no-plugins" for r in off):
        return "plugins are off (--no-plugins)"
    names = ", ".join(r.name for r in off)
    return f"plugin {names} is disabled (HERMES_DISABLE_PLUGINS)"
