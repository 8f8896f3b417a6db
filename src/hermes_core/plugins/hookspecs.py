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
        CallInterceptor,
        CatalogManifest,
        GpuProbe,
        LocationKind,
        MessagingPlatform,
        SamplingProvider,
        TransportSpec,
        VersionSource,
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
    def version_source(self) -> Iterable[VersionSource]:
        """Add a way to read a found app's version (``version: {kind: <name>}`` in ``app.<os>``).

        When: once, when the plugin manager applies plugins, before any
        declaration is parsed, so declarations may name the new source at once
        (``requires.min_version`` then gates on what it reads).

        Cost: registering is free; ``read(ctx, path, arg)`` (a
        :class:`~hermes_core.plugins.types.VersionReader`) runs for each present
        copy when a minimum version is checked and in ``hermes apps check
        --explain``. It must read only through ``ctx`` (``ctx.host.read_range``,
        ``ctx.host.file_size``, ``ctx.host.is_file`` …), bounded: no ``open``,
        no subprocess, no network.

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import Observation, VersionSource

            def _read_version_txt(ctx, path, arg):
                # path is the found executable, e.g. /opt/acme/bin/acme;
                # the version is in /opt/acme/<arg> (arg defaults to VERSION.txt).
                version_file = ctx.join(ctx.parent(ctx.parent(path)), arg or "VERSION.txt")
                try:
                    data = ctx.host.read_range(version_file, 0, 64)
                except OSError as exc:
                    return Observation("absent", None, f"cannot read {version_file}: {exc}")
                text = data.decode("ascii", "replace").strip()
                if not text:
                    return Observation("unavailable", None, f"{version_file} is empty")
                return Observation("present", text, f"first line of {version_file}")

            @hookimpl
            def version_source():
                return [VersionSource(name="acme_version_txt", os="linux",
                                      read=_read_version_txt, arg_key="file",
                                      description="<install>/VERSION.txt")]
            ```

            and in ``plugin.yaml``::

                linux:
                  presence: executable
                  location: /opt/acme/bin/acme
                  version: { kind: acme_version_txt, file: VERSION.txt }

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.VersionSource`:
            ``name``, ``os`` (``None`` for every OS, one OS key, or a tuple),
            ``read``, and optionally ``arg_key`` (the one extra key of the
            version mapping, passed to ``read`` as ``arg``), ``needs_arg`` and
            ``description``. ``read`` answers an
            :class:`~hermes_core.plugins.types.Observation`: ``present`` with the
            version text, ``absent``, ``unavailable`` or ``error`` with a detail.

        Errors:
            A bad ``name``, ``os`` or ``arg_key``, or a ``read`` that is not
            callable, raises when the object is built (reported against the
            plugin). Two plugins (or a plugin and a built-in) providing one name is
            an error naming both; the second is skipped. A ``read`` that raises or
            returns something else is recorded as an ``error`` observation: the
            copy's version counts as unreadable, so a minimum is not met.

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
        """Add a transport to MCP servers: ``transport: <name>`` in a server entry selects it.

        When: once, when the plugin manager applies plugins; ``connect`` runs each time a
        server whose entry selects the transport connects (and reconnects).  An entry
        selects it with ``transport: <name>``, or by holding its ``config_key`` when no
        earlier-registered transport has that key (``command`` is stdio's, ``url``
        Streamable HTTP's).  The key's value, ``${VAR}`` resolved, is
        ``spec.options[config_key]``.

        Cost: registering is free; import heavy libraries inside ``connect``.

        A transport over a socket (or any byte stream) opens it and hands it to
        :func:`hermes_core.host.transports.open_byte_stream`, which frames MCP on it with
        the bounds of Hermes' stdio transport (``docs/plugins/transport.md``).  A
        ``settings`` model (pydantic) is checked against the value under ``config_key`` when
        ``config.yaml`` is read (file:line, did-you-mean); its fields not marked secret are
        shown by ``hermes mcp list``.

        Example:
            A transport that runs a stdio server with an extra environment variable, which
            an entry selects with ``transport: tagged_stdio`` (its ``command``/``args`` as
            for stdio)::

                mcp_servers:
                  local:
                    transport: tagged_stdio
                    command: my-mcp-server

            ```python
            from contextlib import asynccontextmanager

            from hermes_core.host.transports import open_stdio
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import TransportSpec

            class _WithEnv:  # the server's spec with a different env
                def __init__(self, spec, env):
                    self._spec, self.env = spec, env

                def __getattr__(self, name):
                    return getattr(self._spec, name)

            @asynccontextmanager
            async def _connect(spec, errlog):
                errlog.write(f"tagged_stdio: starting {spec.command}\\n")
                tagged = _WithEnv(spec, {**spec.env, "SERVED_BY": "tagged_stdio"})
                async with open_stdio(tagged, errlog) as streams:
                    yield streams

            @hookimpl
            def transport():
                return [TransportSpec(name="tagged_stdio", config_key="command",
                                      description="stdio with SERVED_BY set",
                                      connect=_connect)]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.TransportSpec`; ``connect`` is a
            :class:`~hermes_core.plugins.types.Connect`: ``connect(spec, errlog)`` returns an
            async context manager yielding the SDK's ``(read, write)`` streams.

        Errors:
            A name clash is an error naming both providers; a transport without
            ``connect`` is reported and not registered.  An entry naming an unregistered
            transport is a config error (file:line, exit 2) listing the registered ones.
            ``connect`` raising fails that server only, with the message.

        .. versionadded:: 0.1
        """
        raise NotImplementedError

    @_hookspec
    def auth_provider(self) -> Iterable[AuthProviderSpec]:
        """Add an auth scheme for HTTP servers, selected with ``auth: <name>``.

        When: once, when the plugin manager applies plugins; ``create`` runs each time a
        server whose entry says ``auth: <name>`` is set up (at connect and at reload),
        with the entry's settings: the mapping under the key of the provider's name,
        every string ``${VAR}``-resolved::

            mcp_servers:
              internal:
                url: https://mcp.internal.example/mcp
                auth: static_bearer
                static_bearer:
                  token: ${INTERNAL_MCP_TOKEN}

        Cost: registering is free; secrets are read only inside ``create``.

        A ``settings`` model (pydantic) is checked against the entry's settings when
        ``config.yaml`` is read: a missing block (when a field is required), an unknown key
        (did-you-mean) or a bad value is a config error at its file and line; fields typed
        ``SecretStr`` are masked where Hermes shows settings, the others are shown.

        Example:
            ```python
            import httpx2

            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import AuthContext, AuthProviderSpec

            class _Bearer(httpx2.Auth):
                def __init__(self, token):
                    self._token = token

                def auth_flow(self, request):
                    request.headers["Authorization"] = f"Bearer {self._token}"
                    yield request

            def _create(context: AuthContext) -> httpx2.Auth:
                token = context.settings.get("token")
                if not isinstance(token, str) or not token:
                    raise ValueError(f"MCP server '{context.server}': static_bearer.token "
                                     "is required")
                return _Bearer(token)

            @hookimpl
            def auth_provider():
                return [AuthProviderSpec(name="static_bearer",
                                         description="a bearer token from config",
                                         create=_create)]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.AuthProviderSpec`; ``create``
            is a :class:`~hermes_core.plugins.types.CreateAuth`: ``create(context)``
            returns an ``httpx2.Auth`` (or ``None`` when the entry's headers suffice).  A spec
            with ``stdio=True`` also serves servers without a URL: for those ``create``
            returns a mapping of environment variables for the server's process.

        Errors:
            A name clash is an error naming both providers; a provider without ``create``
            is reported and not registered.  An entry naming an unregistered provider
            (``auth: oath``) is a config error (file:line, exit 2) listing the registered
            ones: a server never connects without the auth it names.  ``auth:`` naming a
            provider without ``stdio=True`` on a server without a URL is a config error
            (file:line).  ``create`` raising fails that server only, with the message
            (``ValueError``) or with the provider, its distribution and the exception's type
            (anything else); an ``auth_flow`` raising fails the request it was authorising.

        .. versionadded:: 0.1
        """
        raise NotImplementedError

    @_hookspec
    def messaging_platform(self) -> Iterable[MessagingPlatform]:
        """Add a kind of messaging adapter, through which ``hermes mcp serve`` sends messages.

        The user selects it in ``config.yaml``: each entry of the top-level ``messaging:``
        block names an adapter and holds its settings (``${VAR}`` expanded from the
        environment and ``$HERMES_HOME/.env``).  The entry's key is the *platform* of
        ``platform:chat_id`` targets (``messages_send``, ``channels_list``)::

            messaging:
              notes:                 # targets are notes:<chat_id>
                adapter: file_inbox  # a registered messaging_platform
                folder: /srv/inbox   # the adapter's own settings

        When: once, when the plugin manager applies plugins; ``create`` runs when
        ``hermes mcp serve`` reads ``config.yaml`` (at start), and the adapter's
        ``channels``/``send`` run in a worker thread per ``channels_list``/``messages_send``.

        Cost: registering is free; ``create`` must not touch the network (check settings
        only); ``channels`` must be cheap; ``send`` may block on the network.

        Example:
            ```python
            from pathlib import Path

            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import (
                MessagingChannel, MessagingPlatform, SendReceipt)

            class FileInbox:
                \"\"\"Each ``<chat_id>.txt`` in a folder is a chat; sending appends a line.\"\"\"

                def __init__(self, folder):
                    self.folder = Path(folder)

                def channels(self):
                    return [MessagingChannel(p.stem, name=p.stem)
                            for p in sorted(self.folder.glob("*.txt"))]

                def send(self, chat_id, text):
                    if chat_id not in {c.chat_id for c in self.channels()}:
                        raise ValueError(f"no inbox named {chat_id!r}")
                    with open(self.folder / f"{chat_id}.txt", "a", encoding="utf-8") as fh:
                        fh.write(text.replace("\\n", " ") + "\\n")
                    return SendReceipt(detail="appended")

            def create_inbox(name, settings):
                if not isinstance(settings.get("folder"), str):
                    raise ValueError("folder: the inbox folder is required")
                return FileInbox(settings["folder"])

            @hookimpl
            def messaging_platform():
                return [MessagingPlatform(name="file_inbox", create=create_inbox,
                                          description="append messages to text files")]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.MessagingPlatform`; ``create``
            follows :class:`~hermes_core.plugins.types.MessagingAdapterFactory` and returns a
            :class:`~hermes_core.plugins.types.MessagingAdapter`.

        Errors:
            A name clash is an error naming both providers. In ``config.yaml``, an
            ``adapter:`` that no plugin registers is an error (file:line, exit 2) listing the
            registered ones; settings that ``create`` rejects are reported at their line.  A
            ``send`` that raises is reported to the MCP client as a failed send (nothing is
            recorded as sent).

        .. versionadded:: 0.1
        """
        raise NotImplementedError

    @_hookspec
    def catalog_entry(self) -> Iterable[CatalogManifest]:
        """Add a vetted MCP server to the catalog (``hermes mcp catalog``/``install``).

        A vendor ships its catalog entry next to its app declaration: the
        manifest (``docs/catalog.md``) installs the server, and the declaration
        registered under the same name decides whether it may be installed on
        this machine.  Hermes' own entries come through this hook too.

        When: when a command reads the catalog (``hermes mcp``, ``catalog``,
        ``install``, ``configure``, ``suggest``); not at start-up.

        Cost: must be cheap: return the text of files shipped in your package
        (:func:`hermes_core.plugins.catalog_entries_from_package`); Hermes
        parses it. No network, no subprocess.

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import CatalogManifest

            MANIFEST = '''
            manifest_version: 1
            name: acme-notes
            description: Acme's notes, searchable from Hermes
            transport:
              command: acme-notes-mcp
            tools:
              default_enabled: [search_notes, read_note]
            suggest:
              keywords: [acme notes]
            '''

            @hookimpl
            def catalog_entry():
                return [CatalogManifest(name="acme-notes", text=MANIFEST,
                                        where="acme_notes/catalog.yaml")]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.CatalogManifest`.
            ``hermes mcp catalog`` shows each with the distribution it came from.

        Errors:
            A manifest that does not parse is reported with the plugin, its
            distribution and ``where:line: key: reason``, and left out of the
            catalog (strict mode re-raises); a ``manifest_version`` newer than
            this Hermes reads is listed with a warning, never installed. Two
            providers of one entry name is an error naming both.

        .. versionadded:: 0.2
        """
        raise NotImplementedError

    @_hookspec
    def sampling_provider(self) -> Iterable[SamplingProvider]:
        """Add an LLM backend that answers MCP servers' ``sampling/createMessage`` requests.

        When: once, when the plugin manager applies plugins; ``models`` runs when a host
        with sampling enabled starts (in a worker thread) and for ``hermes mcp sampling
        models``; ``complete`` runs for each sampling request a server sends.

        Cost: registering is free; import the LLM library inside ``models``/``complete``.
        ``models`` must not call the network; ``complete`` is ``async`` and is cancelled when
        the server's ``sampling.timeout`` expires.

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import SamplingProvider
            from hermes_core.sampling.backend import Completion, ModelInfo

            def _models():
                return [ModelInfo("shout", aliases=("loud",))]

            async def _complete(request):
                last = request.messages[-1].parts[-1]
                return Completion(text=getattr(last, "text", "").upper(), model="shout",
                                  input_tokens=1, output_tokens=1)

            @hookimpl
            def sampling_provider():
                return [SamplingProvider(name="shouter", models=_models, complete=_complete,
                                         description="answers in capitals")]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.SamplingProvider`.  Config picks
            one with ``sampling.backend: <name>`` (an unknown name is an error listing the
            registered ones) and a model by a name its ``models`` lists.

        Errors:
            A name clash is an error naming both providers.  A ``models`` that raises leaves
            that backend without models (``hermes mcp status`` says why); a ``complete`` that
            raises answers the server with a JSON-RPC error and counts as an error.

        .. versionadded:: 0.2
        """
        raise NotImplementedError

    @_hookspec
    def call_interceptor(self) -> Iterable[CallInterceptor]:
        """Add a call interceptor: code that sees each tool call before it is sent and its
        result after, selected in ``config.yaml`` by name, host-wide and per server, in order::

            interceptors: [deny_delete]        # every server's calls
            mcp_servers:
              mail:
                command: mail-mcp
                interceptors: [redact_emails]  # after the host-wide ones

        When: once, when the plugin manager applies plugins; ``create`` (if given) once per
        host; ``before(call)`` before each selected call is sent (before a lazy server starts
        and before an untrusted server's approval), ``after(call, result)`` once it answered.

        Cost: ``before``/``after`` run on every call of the servers that select it: keep them
        quick (no blocking I/O in a sync one; an ``async def`` may await).

        Example:
            ```python
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import CallInterceptor, Decision

            def _deny_delete(call):
                if call.tool.startswith("delete_"):
                    return Decision.refuse(f"{call.tool} is blocked by policy")
                return None  # pass

            @hookimpl
            def call_interceptor():
                return [CallInterceptor(name="deny_delete", before=_deny_delete,
                                        description="refuses delete_* tools")]
            ```

        Returns:
            Zero or more :class:`~hermes_core.plugins.types.CallInterceptor`: ``before`` sees
            an :class:`~hermes_core.plugins.types.InterceptedCall` (server, tool, arguments,
            annotations, trust tier, URL) and returns a
            :class:`~hermes_core.plugins.types.Decision` (``allow``, ``rewrite(arguments)``,
            ``refuse(reason)``) or ``None``; ``after`` returns a replacement result or
            ``None``.  Either may be ``async``.  Built-ins registered through this hook:
            ``audit`` and ``result_budget`` (always on, outermost).
            ``docs/plugins/call_interceptor.md`` has complete examples.

        Errors:
            A name clash is an error naming both providers; an interceptor without
            ``before``, ``after`` or ``create`` is not registered.  ``interceptors:`` naming an
            unregistered one is a config error (file:line, with a did-you-mean).  An
            interceptor that raises fails that call closed, naming the interceptor; the host
            and the other calls go on.

        .. versionadded:: 0.3
        """
        raise NotImplementedError
