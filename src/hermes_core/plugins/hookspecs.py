"""The Hermes hooks. These docstrings are the hook reference.

Every hook is a *registration* hook: it takes no arguments and returns an
iterable of frozen registration objects (:mod:`hermes_core.plugins.types`).
Hermes calls each plugin's implementation on its own, once per plugin
manager, validates every object it returns and records where it came from.

A plugin is a module (or object) holding ``@hookimpl`` functions, published
through the ``hermes.plugins`` entry-point group::

    [project.entry-points."hermes.plugins"]
    acme = "acme_hermes.plugin"
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from hermes_core.plugins.types import (
        AppDeclaration,
        AuthProviderSpec,
        GpuProbe,
        LocationKind,
        TransportSpec,
    )

PROJECT = "hermes"
_hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

__all__ = ["PROJECT", "HermesSpecs", "hookimpl"]


class HermesSpecs:
    """All Hermes hook specifications."""

    @_hookspec
    def declare_app(self) -> Iterable[AppDeclaration]:
        """Declare which desktop app an MCP server fronts and what it needs.

        When: once, when the plugin manager applies plugins (CLI start, host start).

        Cost: must be cheap: no subprocess, no network. Reading a ``plugin.yaml``
        shipped inside the package is fine (see
        :func:`hermes_core.plugins.declarations_from_package`).

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import AppDeclaration

            @hookimpl
            def declare_app():
                return [AppDeclaration(
                    server="acme-studio",
                    app={"linux": {"presence": "executable",
                                   "location": [{"kind": "command", "name": "acme-studio"}]}},
                    requires={"app": True},
                    where="acme/plugin.yaml",
                )]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.AppDeclaration`.

        Errors:
            A declaration that does not parse is reported with the plugin, its
            distribution and the parser's message (file, key path, reason) and
            is not registered; other declarations of the plugin still are.
            Strict mode re-raises.

        .. versionadded:: 0.1
        """
        raise NotImplementedError

    @_hookspec
    def location_kind(self) -> Iterable[LocationKind]:
        """Add a kind of place where apps are found (``{kind: <name>, ...}`` in ``location``).

        When: once, when the plugin manager applies plugins, before any
        declaration is parsed, so declarations may use the new kind at once.

        Cost: registering is free; the ``locate`` callable runs on every
        evaluation and must only stat through ``ctx`` (no spawning, no network).

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import LocationKind

            def _opt(ctx, location):
                return [ctx.join("/opt", location.value, "bin", location.value)]

            @hookimpl
            def location_kind():
                return [LocationKind(name="opt_package", os="linux", key="package",
                                     presence="executable", locate=_opt)]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.LocationKind`.

        Errors:
            Two plugins (or a plugin and a built-in) providing one kind name is
            an error naming both; the second is skipped. A locator that raises
            at evaluation time is recorded in ``explain`` and counts as "not found".

        .. versionadded:: 0.1
        """
        raise NotImplementedError

    @_hookspec
    def gpu_probe(self) -> Iterable[GpuProbe]:
        """Add a source of the GPU vendor for one OS, merged into ``gpu_class()``.

        When: once, when the plugin manager applies plugins; ``read(host)`` runs
        the first time ``gpu_class()`` is asked (then cached for the process).

        Cost: ``read`` must only read through the host seam it is given: no
        subprocess, no driver library.

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import GpuProbe

            def _read(host):
                return "nvidia" if host.exists("/dev/nvidia0") else None

            @hookimpl
            def gpu_probe():
                return [GpuProbe(name="linux-dev-nvidia", os="linux", read=_read)]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.GpuProbe`. ``read``
            answers a GPU class or ``None`` (nothing to say); answers merge by
            priority nvidia > amd > intel > apple_silicon > none > unknown.

        Errors:
            A ``read`` that raises counts as ``unknown``; a name clash is an
            error naming both providers.

        .. versionadded:: 0.1
        """
        raise NotImplementedError

    @_hookspec
    def transport(self) -> Iterable[TransportSpec]:
        """Add a transport to MCP servers, chosen by the shape of a config entry.

        When: once, when the plugin manager applies plugins; ``connect`` runs
        when a configured server of that shape connects.

        Cost: registering is free; import heavy libraries inside ``connect``.

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import TransportSpec

            @hookimpl
            def transport():
                return [TransportSpec(name="unix_socket", config_key="socket",
                                      description="MCP over a Unix socket")]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.TransportSpec`.

        Errors:
            A name clash is an error naming both providers.

        .. versionadded:: 0.1
        """
        raise NotImplementedError

    @_hookspec
    def auth_provider(self) -> Iterable[AuthProviderSpec]:
        """Add an auth scheme for HTTP servers, selected with ``auth: <name>``.

        When: once, when the plugin manager applies plugins; ``create`` runs
        when a server using it connects.

        Cost: registering is free; secrets are read only inside ``create``.

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import AuthProviderSpec

            @hookimpl
            def auth_provider():
                return [AuthProviderSpec(name="vault_token",
                                         description="a bearer token read from Vault")]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.AuthProviderSpec`.

        Errors:
            A name clash is an error naming both providers.

        .. versionadded:: 0.1
        """
        raise NotImplementedError
