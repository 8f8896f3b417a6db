"""What a server entry may select: the registered transports and auth providers, by name.

``config.yaml`` is validated against a :class:`ServerKinds`: ``transport: <name>`` and
``auth: <name>`` must name a registered one (unknown names are errors listing what is
registered), a transport's ``config_key`` selects it, and the keys that belong to a
transport or an auth provider are not "unknown keys".  The plugin layer hands the kinds in
(:meth:`ServerKinds.of` over the plugin manager's registrations, or the names remembered in
:mod:`hermes_core.plugins.config_keys`); without them, :data:`BUILTIN_KINDS` is used: what
the built-in plugins register through the same hooks as any plugin's (the plugin tests check
that the two agree).  This module imports nothing of the plugin layer, and nothing heavy: the
plugin layer's record of the kinds (read by every ``hermes mcp list``) builds one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from hermes_core.config.plugin_settings import SettingsShape
from hermes_core.spelling import closest

__all__ = ["BUILTIN_KINDS", "TRANSPORT_ALIASES", "ServerKinds", "TransportKey", "settings_of"]

#: Other spellings of the built-in transports' names accepted in ``transport:``.
TRANSPORT_ALIASES: Mapping[str, str] = {
    "http": "streamable_http",
    "streamablehttp": "streamable_http",
}


class TransportKey(Protocol):
    """What a transport's registration gives the config: the key that selects it."""

    @property
    def config_key(self) -> str: ...


@dataclass(frozen=True)
class ServerKinds:
    """Registered transports (name → config key, in registration order) and auth providers."""

    transports: tuple[tuple[str, str], ...]
    auth: tuple[str, ...]
    auth_stdio: tuple[str, ...] = ()
    """The auth providers that also serve servers without a URL (``AuthProviderSpec.stdio``)."""
    plugins_off: str = ""
    """Why some plugins are not loaded (``--no-plugins``, ``HERMES_DISABLE_PLUGINS``): then an
    entry that fails only on what a plugin could provide (an unknown transport or auth
    provider, an unknown key) is left out on its own instead of failing the whole file."""
    settings: tuple[tuple[str, SettingsShape], ...] = ()
    """The settings models of transports and auth providers that carry one, keyed
    ``transport:<name>`` / ``auth:<name>`` (see :mod:`hermes_core.config.plugin_settings`)."""
    blocks: tuple[str, ...] = ()
    """Top-level keys plugins own: each registered call interceptor's settings block (named
    after it), known keys of ``config.yaml`` besides Hermes core's and the agent's."""

    @classmethod
    def of(
        cls,
        transports: Mapping[str, TransportKey],
        auth_providers: Iterable[str],
        plugins_off: str = "",
    ) -> ServerKinds:
        """From the plugin manager's ``transports()`` and ``auth_providers()`` (a mapping of
        names to specs, or just the names); *plugins_off* says why plugins are not loaded."""
        stdio = (
            tuple(n for n, s in auth_providers.items() if getattr(s, "stdio", False))
            if isinstance(auth_providers, Mapping)
            else ()
        )
        return cls(
            tuple((name, str(spec.config_key)) for name, spec in transports.items()),
            tuple(auth_providers),
            stdio,
            plugins_off,
            settings_of(transports, auth_providers),
        )

    @staticmethod
    def builtin() -> ServerKinds:
        """The built-in plugins' transports and auth providers (no entry point is loaded)."""
        return BUILTIN_KINDS

    # -- transports ----------------------------------------------------------------
    @property
    def transport_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.transports)

    def transport_name(self, written: str) -> str | None:
        """The registered name *written* means (case, ``-`` and aliases forgiven), or None."""
        key = written.strip().lower().replace("-", "_")
        key = TRANSPORT_ALIASES.get(key, key)
        return key if key in self.transport_names else None

    def config_key(self, transport: str) -> str | None:
        return dict(self.transports).get(transport)

    def selectors(self) -> dict[str, str]:
        """config key → the transport it selects (the first registered with that key)."""
        chosen: dict[str, str] = {}
        for name, key in self.transports:
            chosen.setdefault(key, name)
        return chosen

    # -- auth ----------------------------------------------------------------------
    def auth_name(self, written: str) -> str | None:
        """The registered auth provider *written* names (case forgiven), or None."""
        wanted = written.strip().lower()
        return next((name for name in self.auth if name.lower() == wanted), None)

    # -- settings ------------------------------------------------------------------
    def settings_of(self, kind: str, name: str) -> SettingsShape | None:
        """The settings shape of transport or auth provider *name* (*kind*: ``transport`` or
        ``auth``), or None when it carries no model."""
        return dict(self.settings).get(f"{kind}:{name}")

    # -- messages ------------------------------------------------------------------
    def unknown_transport(self, written: str) -> str:
        return _unknown("transport", written, self.transport_names)

    def unknown_auth(self, written: str) -> str:
        return _unknown("auth provider", written, self.auth)


def settings_of(
    transports: Mapping[str, object],
    auth_providers: Iterable[str] | Mapping[str, object],
    sampling_providers: Mapping[str, object] | None = None,
    interceptors: Mapping[str, object] | None = None,
) -> tuple[tuple[str, SettingsShape], ...]:
    """The settings shapes of the registrations that carry a ``settings`` model, keyed
    ``transport:<name>``, ``auth:<name>``, ``sampling:<name>`` and ``interceptor:<name>``."""
    found: list[tuple[str, SettingsShape]] = []
    groups = [("transport", transports)]
    if isinstance(auth_providers, Mapping):
        groups.append(("auth", auth_providers))
    if sampling_providers is not None:
        groups.append(("sampling", sampling_providers))
    if interceptors is not None:
        groups.append(("interceptor", interceptors))
    for kind, specs in groups:
        for name, spec in specs.items():
            model = getattr(spec, "settings", None)
            if model is not None:
                found.append((f"{kind}:{name}", SettingsShape.of_model(model)))
    return tuple(found)


def _unknown(what: str, written: str, registered: tuple[str, ...]) -> str:
    close = closest(written.strip().lower(), list(registered))
    hint = f" (did you mean {close!r}?)" if close else ""
    written = written.strip()[:64]
    listed = ", ".join(registered) or "none"
    return (
        f"unknown {what} {written!r}{hint}; registered: {listed} "
        f"(plugins add more: `hermes plugins list`)"
    )


BUILTIN_KINDS = ServerKinds(
    transports=(("stdio", "command"), ("streamable_http", "url"), ("sse", "url")),
    auth=("headers", "oauth"),
)
"""What the built-in plugins register (``hermes_core.builtin``): the transports
stdio, streamable_http and sse, the auth providers headers and oauth (neither serves a
server without a URL)."""
