"""Turn ``config.yaml``'s ``mcp_servers`` into the host's :class:`HostServer` list.

Variables (``${VAR}``, ``$HERMES_HOME/.env``, ``${userHome}`` …) are resolved
here, at connect time.  A server whose entry cannot be resolved keeps its
error and is reported as failed; the others connect as usual.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypedDict

from hermes_core.auth import settings as auth_settings
from hermes_core.config.call_settings import DEFAULT_MAX_RESULT_TOKENS
from hermes_core.config.client_cert import client_certificate
from hermes_core.config.interpolate import load_dotenv, resolve, resolve_host_sampling
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.loader import LoadedConfig, hermes_home
from hermes_core.config.models import ConfigError, ServerConfig
from hermes_core.config.policy_match import ServerFacts, server_refusal
from hermes_core.config.policy_rules import Policy
from hermes_core.config.sampling import SamplingConfig
from hermes_core.host.server_spec import HostServer
from hermes_core.host.setup.builtin_plugins import builtin_auth_providers
from hermes_core.host.tools.overrides import ToolOverride
from hermes_core.host.tools.schema_cache import cache_path, fingerprint
from hermes_core.json_types import json_object
from hermes_core.offers.elicitation import ElicitationSettings, elicitation_settings
from hermes_core.offers.roots import roots_of
from hermes_core.plugins.types import AuthContext, AuthProviderSpec
from hermes_core.sampling.settings import merge_sampling

__all__ = [
    "BUILTIN_AUDIT",
    "BUILTIN_BUDGET",
    "CallDefaults",
    "call_defaults",
    "config_fingerprint",
    "host_server",
    "host_servers",
    "policy_refusal",
    "server_identity",
    "with_identity_header",
]

#: The built-in interceptors' names (``hermes_core.builtin.interceptors`` registers them).
BUILTIN_AUDIT = ("audit",)
BUILTIN_BUDGET = "result_budget"

log = logging.getLogger(__name__)

#: Whether an entry (name, as written) is what a catalog entry installs (None: cannot tell).
CatalogCheck = Callable[[str, ServerConfig], "bool | None"]


def with_identity_header(name: str, headers: dict[str, str], cfg: ServerConfig) -> dict[str, str]:
    """*headers* plus the ``identity_header`` (an explicit header of that name wins)."""
    identity = cfg.identity_header
    if identity is None:
        return headers
    if any(key.lower() == identity.name.lower() for key in headers):
        log.debug("MCP server '%s': headers.%s wins over identity_header", name, identity.name)
        return headers
    if identity.value_from == "profile":
        value = os.environ.get("HERMES_PROFILE", "default")
    else:
        value = identity.value or ""
    return {**headers, identity.name: value}


def _auth(
    name: str,
    cfg: ServerConfig,
    home: Path | None,
    env: Mapping[str, str] | None,
    providers: Mapping[str, AuthProviderSpec],
) -> Any:
    """The ``httpx2.Auth`` of the entry's ``auth:`` provider (``ValueError`` when it cannot
    be made: the server is then reported as failed and never connects without it)."""
    selected = cfg.auth or ""
    spec = providers.get(selected)
    if spec is None or spec.create is None:
        kinds = ServerKinds.of({}, providers)
        raise ValueError(f"MCP server '{name}': auth: {kinds.unknown_auth(selected)}")
    environ = dict(os.environ if env is None else env)
    context = AuthContext(
        server=name,
        url=cfg.url or "",
        settings=cfg.auth_settings,
        home=home if home is not None else hermes_home(environ),
        interactive=auth_settings.is_interactive(),  # (looked up at each use: tests patch it)
        env=environ,
    )
    try:
        return spec.create(context)
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001 - a provider's bug must not break the other servers
        raise ValueError(
            f"MCP server '{name}': auth provider '{selected}' ({spec.provider}) failed: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def config_fingerprint(cfg: ServerConfig, host_sampling: object = None) -> str:
    """The schema-cache key of an entry *as written* (``${VAR}`` unresolved): where and how the
    server is reached, with the values of its env variables and headers left out, and what the
    host offers it (sampling, elicitation, roots): servers list some tools only to hosts that can
    sample or ask."""
    offers: list[object] = [cfg.sampling, host_sampling, cfg.elicitation]
    if cfg.roots:  # server-everything lists get-roots-list only to a host offering roots
        offers.append({"roots": True})
    dumped = [o.model_dump(mode="json") if hasattr(o, "model_dump") else o for o in offers]
    return fingerprint(
        transport=cfg.transport,
        command=cfg.command,
        args=list(cfg.args),
        url=cfg.url,
        env_names=list(cfg.env),
        header_names=list(cfg.headers),
        offers=json.dumps(dumped, sort_keys=True, default=str),
    )


def policy_refusal(
    policy: Policy | None,
    name: str,
    written: ServerConfig,
    resolved: ServerConfig,
    catalog_check: CatalogCheck | None = None,
) -> str | None:
    """Why the administrator's *policy* refuses the entry (``${VAR}`` resolved in *resolved*;
    *written* as in config.yaml, what the catalog check compares), or ``None``."""
    if policy is None:
        return None
    facts = ServerFacts(
        name,
        resolved.command,
        resolved.url,
        args=tuple(resolved.args),
        env=dict(resolved.env),
        cwd=resolved.cwd,
    )
    check = None if catalog_check is None else (lambda: catalog_check(name, written))
    return server_refusal(policy, facts, catalog=check)


def server_identity(cfg: ServerConfig) -> str:
    """Where an entry *as written* reaches its server (transport, command, args, url, cwd;
    ``${VAR}`` unresolved), hashed: the owner of its tools' pins."""
    return fingerprint(
        transport=cfg.transport,
        command=cfg.command,
        args=list(cfg.args),
        url=cfg.url,
        env_names=[],
        header_names=[],
        cwd=cfg.cwd,
    )


def host_server(
    name: str,
    cfg: ServerConfig,
    *,
    display_name: str | None = None,
    error: str | None = None,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    cache_key: str | None = None,
    auth_providers: Mapping[str, AuthProviderSpec] | None = None,
    sampling_defaults: SamplingConfig | None = None,
    identity: str | None = None,
    policy: Policy | None = None,
    interceptors: tuple[str, ...] = (),
    max_result_tokens: int = DEFAULT_MAX_RESULT_TOKENS,
) -> HostServer:
    """The host's view of one resolved entry; *auth_providers* are the registered ones
    (default: the built-in ones), whose ``create`` makes the entry's ``auth``.
    *interceptors* run before the entry's own (the built-ins and the host-wide list);
    *max_result_tokens* is the host-wide budget, which the entry's own replaces."""
    tools = cfg.tools
    certificate = None
    auth = None
    connect_timeout = cfg.connect_timeout
    headers = dict(cfg.headers)
    elicitation = ElicitationSettings()
    if error is None:
        try:
            elicitation = elicitation_settings(name, cfg.elicitation)
        except ValueError as exc:
            error = str(exc)
    if cfg.uses_url and error is None:
        try:
            certificate = client_certificate(name, cfg.client_cert, cfg.client_key)
            if cfg.auth is not None:
                providers = auth_providers
                if providers is None:
                    providers = builtin_auth_providers()
                auth = _auth(name, cfg, home, env, providers)
                if getattr(auth, "interactive", False) and not getattr(auth, "has_tokens", True):
                    # A first login happens inside initialize: give the browser step its time.
                    connect_timeout = max(connect_timeout, auth.callback_timeout + 30.0)
        except ValueError as exc:
            error = str(exc)
        headers = with_identity_header(name, headers, cfg)
    elif cfg.auth is not None and error is None:  # a provider serving local servers (stdio)
        try:
            providers = auth_providers
            if providers is None:
                providers = builtin_auth_providers()
            auth = _auth(name, cfg, home, env, providers)
            if auth is not None and not _env_mapping(auth):
                raise ValueError(
                    f"MCP server '{name}': auth provider '{cfg.auth}' returned a "
                    f"{type(auth).__name__} for a server without a url (it must return a "
                    "mapping of environment variables)"
                )
        except ValueError as exc:
            error = str(exc)
    return HostServer(
        name=name,
        command=cfg.command,
        args=list(cfg.args),
        env=dict(cfg.env),
        cwd=cfg.cwd,
        url=cfg.url,
        headers=headers,
        transport=cfg.transport,
        sse_fallback=cfg.transport == "streamable_http" and cfg.requested_transport is None,
        timeout=cfg.timeout,
        connect_timeout=connect_timeout,
        enabled=cfg.enabled,
        supports_parallel_tool_calls=cfg.supports_parallel_tool_calls,
        include=tuple(tools.include) if tools.include is not None else None,
        exclude=tuple(tools.exclude or ()),
        resources=tools.resources,
        prompts=tools.prompts,
        overrides=overrides_of(name, cfg),
        idle_timeout_seconds=cfg.idle_timeout_seconds,
        max_message_bytes=cfg.max_message_bytes,
        max_lifetime_seconds=cfg.max_lifetime_seconds,
        keepalive_interval=cfg.keepalive_interval,
        breaker_threshold=cfg.circuit_breaker.threshold,
        breaker_cooldown=cfg.circuit_breaker.cooldown,
        trust=cfg.trust,
        lazy=cfg.lazy,
        always_load=cfg.always_load,
        pin=cfg.pin,
        identity=identity,
        policy=policy,
        schema_cache=cache_path(home / "cache" / "mcp-tools", name)
        if cfg.lazy and home is not None
        else None,
        fingerprint=cache_key if cfg.lazy else None,
        client_certificate=certificate,
        auth=auth,
        elicitation=elicitation,
        options=cfg.options,
        sampling=merge_sampling(sampling_defaults, cfg.sampling),
        roots=roots_of(cfg.roots) if error is None else (),  # unresolved: not started
        interceptors=tuple(dict.fromkeys((*interceptors, *cfg.interceptors))),
        max_result_tokens=max_result_tokens
        if cfg.max_result_tokens is None
        else cfg.max_result_tokens,
        display_name=display_name,
        config_error=error,
    )


def overrides_of(name: str, cfg: ServerConfig) -> dict[str, ToolOverride]:
    """The entry's ``tools.overrides`` as the host applies them, each with its keys' lines."""
    overrides: dict[str, ToolOverride] = {}
    for tool, given in cfg.tools.overrides.items():
        base = f"tools.overrides.{tool}"
        lines: dict[str, int] = {}
        for sub in ("", *type(given).model_fields):
            line = cfg.line_of(f"{base}.{sub}" if sub else base)
            if line is not None:
                lines[sub] = line
        for kind, values in (("arguments", given.arguments), ("defaults", given.defaults)):
            for key in values:
                line = cfg.line_of(f"{base}.{kind}.{key}")
                if line is not None:
                    lines[f"{kind}.{key}"] = line
        overrides[tool] = ToolOverride(
            tool=tool,
            name=given.name,
            title=given.title,
            description=given.description,
            fixed=json_object(given.arguments),
            defaults=json_object(given.defaults),
            annotations=dict(given.annotations),
            max_result_tokens=given.max_result_tokens,
            key=f"mcp_servers.{name}.{base}",
            source=cfg.source,
            lines=lines,
        )
    return overrides


class CallDefaults(TypedDict):
    """The host-wide keys of every server's calls (:func:`host_server`'s keywords)."""

    interceptors: tuple[str, ...]
    max_result_tokens: int


def call_defaults(loaded: LoadedConfig) -> CallDefaults:
    """The host-wide keys of every server's calls, as :func:`host_server` takes them: the
    built-in interceptors (``audit`` unless ``audit.enabled: false``, ``result_budget``) and
    the ``interceptors:`` list, and ``max_result_tokens``."""
    config = loaded.config
    builtin = (*BUILTIN_AUDIT[: int(config.audit.enabled)], BUILTIN_BUDGET)
    return {
        "interceptors": (*builtin, *config.interceptors),
        "max_result_tokens": config.max_result_tokens,
    }


def _env_mapping(value: object) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def unavailable_server(name: str, problem: ConfigError) -> HostServer:
    """A server left out of the configuration because it needs a plugin that is not loaded:
    it is listed, failed with the reason, and never connected."""
    return HostServer(name=name, transport="unavailable", config_error=str(problem))


def host_servers(
    loaded: LoadedConfig,
    *,
    env: Mapping[str, str] | None = None,
    display_names: Mapping[str, str] | None = None,
    only: str | None = None,
    auth_providers: Mapping[str, AuthProviderSpec] | None = None,
    policy: Policy | None = None,
    catalog_check: CatalogCheck | None = None,
) -> list[HostServer]:
    """Every configured server (or just *only*), variables resolved (see
    :class:`hermes_core.host.setup.factory.HostFactory` for the registered auth providers).

    A server the administrator's *policy* refuses is kept with the refusal as its error and
    never started; *catalog_check(name, entry)* says whether an entry (as written) is what a
    catalog entry installs (``catalog_only``)."""
    environ = dict(os.environ if env is None else env)
    home = hermes_home(environ)
    dotenv = load_dotenv(home / ".env")
    names = display_names or {}
    servers = []
    sampling_error: ConfigError | None = None
    host_sampling = loaded.config.sampling
    try:
        host_sampling = resolve_host_sampling(loaded, env=environ, dotenv=dotenv)
    except ConfigError as exc:  # every server inherits the block: each fails with its reason
        sampling_error = exc
    calls = call_defaults(loaded)
    for name, cfg in loaded.config.mcp_servers.items():
        if only is not None and name != only:
            continue
        try:
            if sampling_error is not None:
                raise sampling_error
            resolved = resolve(name, cfg, env=environ, dotenv=dotenv, workspace=os.getcwd())
        except ConfigError as exc:
            servers.append(
                host_server(
                    name,
                    cfg,
                    display_name=names.get(name),
                    error=str(exc),
                    sampling_defaults=host_sampling,
                    **calls,
                )
            )
            continue
        refused = policy_refusal(policy, name, cfg, resolved, catalog_check)
        if refused is not None:
            servers.append(
                host_server(
                    name,
                    cfg,
                    display_name=names.get(name),
                    error=f"MCP server '{name}' is refused by the administrator's policy: "
                    f"{refused}",
                    sampling_defaults=host_sampling,
                )
            )
            continue
        key = config_fingerprint(cfg, loaded.config.sampling) if cfg.lazy else None
        servers.append(
            host_server(
                name,
                resolved,
                policy=policy,
                identity=server_identity(cfg),
                display_name=names.get(name),
                home=home,
                env=environ,
                cache_key=key,
                auth_providers=auth_providers,
                sampling_defaults=host_sampling,
                **calls,
            )
        )
    for name, problem in loaded.unavailable:
        if only is None or name == only:
            servers.append(unavailable_server(name, problem))
    return servers
