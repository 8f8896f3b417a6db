"""``auth: oauth`` for HTTP MCP servers: the SDK's OAuth 2.1 client, set up from config.

::

    auth = build_oauth_provider("linear", "https://mcp.linear.app/mcp", cfg.oauth or {},
                                home=hermes_home(), interactive=sys.stdin.isatty())
    httpx2.AsyncClient(auth=auth)   # what the Streamable HTTP transport is given

The SDK does discovery, client registration (the pre-registered ``oauth.client_id``;
else a client ID metadata document when one is configured and the authorization server
supports them; else dynamic registration: see :func:`_client_metadata_url`), PKCE, the
token exchange, refresh and scope step-up.  Hermes supplies the token storage
(:mod:`hermes_core.auth.storage`), the browser step
(:mod:`hermes_core.auth.callback`) and the settings below.

``oauth`` keys: ``client_id``, ``client_secret``, ``scope``, ``redirect_port``,
``redirect_uri``, ``redirect_host``, ``client_name``, ``client_metadata_url``,
``cimd``, ``timeout``, ``token_endpoint_auth_method``, ``application_type``, ``grant``,
``authorization_params`` (extra query parameters for the authorization request, such as
Google's ``access_type: offline``; the flow's own parameters cannot be replaced).

Other grants (``oauth.grant``), with no browser step:

* ``client_credentials`` (machine to machine): ``client_id`` with ``client_secret`` or
  ``private_key`` (a PEM file signing ``private_key_jwt`` assertions, ``signing_algorithm``),
  and ``issuer``, the authorization server the credentials may be sent to.
* ``identity_assertion`` (SEP-990 "cross-app access", enterprise-managed authorization): the
  user's ID token from the company identity provider (``id_token``, or ``id_token_file`` read
  at each exchange) is exchanged at the IdP (``idp_token_endpoint``, or discovered from
  ``idp_issuer``; ``idp_client_id``, optional ``idp_client_secret``) for an ID-JAG
  (:mod:`hermes_core.auth.id_jag`), which the SDK's ``IdentityAssertionOAuthProvider``
  presents, with the confidential ``client_id``/``client_secret``, to the token endpoint of
  ``issuer``, the MCP server's authorization server (required: never discovered from the
  server).  Client authentication there is ``client_secret_basic`` unless
  ``token_endpoint_auth_method: client_secret_post``.
* ``jwt_bearer`` (workload identity federation, RFC 7523): the workload's own JWT
  (``assertion``, or ``assertion_file`` read at each exchange) for an access token
  (:mod:`hermes_core.auth.jwt_bearer`); ``client_id``/``client_secret`` and ``issuer`` are
  optional.

``dpop`` (``auto``, the default; ``true``; ``false``): DPoP-bound tokens (RFC 9449,
:mod:`hermes_core.auth.dpop`) for the ``authorization_code`` and ``jwt_bearer`` grants.

Importing this module imports ``mcp`` and ``httpx2``; the settings alone
(:mod:`hermes_core.auth.settings`) import neither.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import SignedJWTParameters
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.shared.auth import OAuthClientInformationFull

from hermes_core.auth.callback import BrowserFlow
from hermes_core.auth.errors import OAuthConfigError
from hermes_core.auth.grants import (
    ClientCredentialsProvider,
    IdentityAssertionProvider,
    PrivateKeyJWTProvider,
)
from hermes_core.auth.id_jag import IdJagExchange
from hermes_core.auth.jwt_bearer import JwtBearerProvider, WorkloadAssertion
from hermes_core.auth.pg_tokens import token_backend
from hermes_core.auth.provider import ClientMetadata, HermesOAuthProvider
from hermes_core.auth.settings import (
    CIMD_HOSTS,
    CIMD_PORTS,
    CLIENT_METADATA_URL_ENV,
    FIGMA_DEFAULTS,
    OAuthSettings,
    client_metadata_document,
    is_figma,
    is_interactive,
    oauth_settings,
)
from hermes_core.auth.storage import TokenStorage
from hermes_core.config.oauth import (
    DEFAULT_CLIENT_NAME,
    DEFAULT_TIMEOUT,
    LOOPBACK_HOSTS,
    OAuthConfig,
    metadata_url_problem,
)

__all__ = [
    "CIMD_PORTS",
    "CLIENT_METADATA_URL_ENV",
    "DEFAULT_CLIENT_NAME",
    "DEFAULT_TIMEOUT",
    "FIGMA_DEFAULTS",
    "OAuthSettings",
    "build_oauth_provider",
    "client_metadata_document",
    "is_figma",
    "is_interactive",
    "oauth_settings",
]

log = logging.getLogger(__name__)
_LOOPBACK_HOSTS = LOOPBACK_HOSTS


def _client_metadata_url(
    server: str, settings: OAuthSettings, storage: TokenStorage, env: Mapping[str, str]
) -> str | None:
    """The document to offer as the client ID (the SDK uses it when the authorization
    server supports client ID metadata documents), or None for dynamic registration.

    ``oauth.client_metadata_url`` is the server's own document (its redirect URIs are the
    user's business); otherwise the host-wide one in :data:`CLIENT_METADATA_URL_ENV`, which
    lists only the pinned loopback callbacks of a native public client, so a server whose
    ``oauth:`` asks for anything else (a redirect, a client name, a client secret) registers
    dynamically.  ``oauth.cimd: false`` and a pre-registered ``client_id`` turn it off, and a
    client already registered dynamically (with tokens bound to it) is kept.
    """
    if not settings.cimd or settings.client_id is not None:
        return None
    url = settings.client_metadata_url
    if url is None:
        url = env.get(CLIENT_METADATA_URL_ENV, "").strip() or None
        if url is None:
            return None
        problem = metadata_url_problem(url)
        if problem is not None:
            raise OAuthConfigError(f"{CLIENT_METADATA_URL_ENV} {problem} (got {url!r})")
        customised = (
            settings.redirect_uri is not None
            or settings.redirect_port is not None
            or settings.redirect_host not in CIMD_HOSTS
            or settings.client_name != DEFAULT_CLIENT_NAME
            or (settings.token_endpoint_auth_method or "none") != "none"
        )
        if customised:
            log.debug("MCP server '%s': oauth settings need dynamic registration", server)
            return None
    cached = storage.client_info
    if cached is not None and not storage.preregistered and cached.client_id != url:
        return None
    return url


def _pinned_port() -> int | None:
    """The first of :data:`CIMD_PORTS` free on 127.0.0.1 (None when all are taken)."""
    for port in CIMD_PORTS:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            # As the callback listener will: a port left in TIME_WAIT by a login is free.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return None


def build_oauth_provider(
    server_name: str,
    server_url: str | None,
    oauth_cfg: OAuthConfig | Mapping[str, Any] | None,
    *,
    home: Path | str,
    interactive: bool,
    browser: Callable[[str], Any] | None = None,
    out: TextIO | None = None,
    fresh: bool = False,
    paste: bool | None = None,
    env: Mapping[str, str] | None = None,
) -> HermesOAuthProvider | OAuthClientProvider | IdentityAssertionOAuthProvider | JwtBearerProvider:
    """An ``httpx2.Auth`` that logs in to *server_name* and keeps its tokens under *home*.

    *interactive* allows a browser login when one is needed; without it a server
    that asks for authorization fails at once, telling the user to run
    ``hermes mcp login``.  *fresh* ignores the saved state (it is replaced only
    when the new login succeeds).  *browser* replaces opening a browser (it is
    called with the authorization URL), *out* where instructions are printed
    (stderr), *paste* whether to read a pasted redirect URL (default: when stdin
    is a terminal), *env* where :data:`CLIENT_METADATA_URL_ENV` is read (``os.environ``).
    Raises :class:`OAuthConfigError` for a bad ``oauth:`` block.
    """
    if not server_url or urlsplit(server_url).scheme not in ("http", "https"):
        raise OAuthConfigError(f"MCP server '{server_name}': auth: oauth needs an http(s) url")
    settings = oauth_settings(server_name, server_url, oauth_cfg)

    backend = token_backend(home, server_name)  # the state database's row, with state:
    storage = TokenStorage(home, server_name, server_url=server_url, fresh=fresh, backend=backend)
    if settings.grant == "client_credentials":
        return _client_credentials_provider(server_name, server_url, settings, storage)
    if settings.grant == "identity_assertion":
        return _identity_assertion_provider(server_name, server_url, settings, storage)
    if settings.grant == "jwt_bearer":
        return _jwt_bearer_provider(server_name, server_url, settings, storage)
    environ = os.environ if env is None else env
    metadata_url, redirect_uri, listen_port = _redirect_plan(
        server_name, settings, storage, environ
    )
    metadata = _browser_client(settings, storage, redirect_uri)
    flow = BrowserFlow(
        server_name,
        extra_params=dict(settings.authorization_params),
        redirect_uri=redirect_uri,
        listen_port=listen_port,
        timeout=settings.timeout,
        interactive=interactive,
        browser=browser,
        out=out,
        paste=paste,
    )
    if metadata_url is not None:
        log.debug("MCP server '%s': offering the client ID %s", server_name, metadata_url)
    try:
        return HermesOAuthProvider(
            server_name=server_name,
            server_url=server_url,
            client_metadata=metadata,
            storage=storage,
            flow=flow,
            interactive=interactive,
            client_metadata_url=metadata_url,
            dpop=settings.dpop,
        )
    except ValueError as exc:  # the SDK's check of client_metadata_url
        raise OAuthConfigError(
            f"MCP server '{server_name}': oauth.client_metadata_url: {exc}"
        ) from None


def _redirect_plan(
    server_name: str, settings: OAuthSettings, storage: TokenStorage, environ: Mapping[str, str]
) -> tuple[str | None, str, int | None]:
    """The client metadata document's URL (None: dynamic registration), the redirect URI and
    the port the callback listener takes."""
    metadata_url = _client_metadata_url(server_name, settings, storage, environ)
    pinned = None
    if metadata_url is not None and settings.redirect_uri is None and not settings.redirect_port:
        pinned = _pinned_port()
        if pinned is None:
            log.info(
                "MCP server '%s': the callback ports %d-%d of the client metadata document are "
                "all taken; registering dynamically instead",
                server_name,
                CIMD_PORTS[0],
                CIMD_PORTS[-1],
            )
            metadata_url = None
    redirect_uri, listen_port = _redirect_target(settings, storage, pinned)
    return metadata_url, redirect_uri, listen_port


def _browser_client(
    settings: OAuthSettings, storage: TokenStorage, redirect_uri: str
) -> ClientMetadata:
    """The client metadata a browser login registers; a configured ``client_id`` is stored as
    pre-registered with the same redirect URI and endpoint authentication."""
    # RFC 7591's default for a client with a secret is HTTP Basic at the token endpoint.
    method = settings.token_endpoint_auth_method or (
        "client_secret_basic" if settings.client_secret else "none"
    )
    if settings.client_id is not None:
        storage.set_preregistered(
            OAuthClientInformationFull(
                client_id=settings.client_id,
                client_secret=settings.client_secret,
                redirect_uris=[redirect_uri],  # type: ignore[list-item]
                token_endpoint_auth_method=method,
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                scope=settings.scope,
                client_name=settings.client_name,
            )
        )
    metadata = ClientMetadata(
        client_name=settings.client_name,
        redirect_uris=[redirect_uri],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=method,  # type: ignore[arg-type]
        scope=settings.scope,
        application_type=settings.application_type,  # type: ignore[arg-type]
    )
    metadata._configured_scope = settings.scope
    return metadata


def _client_credentials_provider(
    server_name: str, server_url: str, settings: OAuthSettings, storage: TokenStorage
) -> OAuthClientProvider:
    """Machine-to-machine access (no browser): a client secret, or a key signing JWT assertions."""
    assert settings.client_id is not None
    if settings.private_key is not None:
        key_path = Path(settings.private_key).expanduser()
        try:
            pem = key_path.read_text(encoding="utf-8")
        except OSError as exc:
            raise OAuthConfigError(
                f"MCP server '{server_name}': oauth.private_key cannot be read at "
                f"'{key_path}' ({exc.strerror or exc})"
            ) from None
        signer = SignedJWTParameters(
            issuer=settings.client_id,
            subject=settings.client_id,
            signing_key=pem,
            signing_algorithm=settings.signing_algorithm,
        )
        return PrivateKeyJWTProvider(
            server_url,
            storage,
            settings.client_id,
            signer.create_assertion_provider(),
            scope=settings.scope,
            issuer=settings.issuer,
        )
    assert settings.client_secret is not None
    method = settings.token_endpoint_auth_method or "client_secret_basic"
    if method not in ("client_secret_basic", "client_secret_post"):
        raise OAuthConfigError(
            f"MCP server '{server_name}': oauth.token_endpoint_auth_method must be "
            "client_secret_basic or client_secret_post for client_credentials"
        )
    return ClientCredentialsProvider(
        server_url,
        storage,
        settings.client_id,
        settings.client_secret,
        token_endpoint_auth_method=method,  # type: ignore[arg-type]
        scope=settings.scope,
        issuer=settings.issuer,  # where the credentials may go (the SDK warns without it)
    )


def _identity_assertion_provider(
    server_name: str, server_url: str, settings: OAuthSettings, storage: TokenStorage
) -> IdentityAssertionOAuthProvider:
    """SEP-990: the ID token becomes an ID-JAG at the IdP (ours), then an access token at the
    configured authorization server (the SDK's jwt-bearer provider).  No browser, no refresh
    token: when the access token expires (or is refused) the exchange runs again."""
    assert settings.client_id is not None and settings.client_secret is not None
    assert settings.issuer is not None and settings.idp_client_id is not None
    exchange = IdJagExchange(
        server_name,
        client_id=settings.idp_client_id,
        client_secret=settings.idp_client_secret,
        token_endpoint=settings.idp_token_endpoint,
        issuer=settings.idp_issuer,
        id_token=settings.id_token,
        id_token_file=settings.id_token_file,
        scope=settings.scope,
    )
    return IdentityAssertionProvider(
        server_url,
        storage,
        settings.client_id,
        settings.client_secret,
        settings.issuer,
        exchange,
        scope=settings.scope,
        token_endpoint_auth_method=(  # RFC 6749's must-support method, as for client_credentials
            "client_secret_post"
            if settings.token_endpoint_auth_method == "client_secret_post"
            else "client_secret_basic"
        ),
    )


def _jwt_bearer_provider(
    server_name: str, server_url: str, settings: OAuthConfig, storage: TokenStorage
) -> JwtBearerProvider:
    """Workload identity (RFC 7523): the workload's own JWT for an access token."""
    source = WorkloadAssertion(server_name, text=settings.assertion, file=settings.assertion_file)

    async def assertion() -> str:
        return source.read()

    return JwtBearerProvider(
        server_name=server_name,
        server_url=server_url,
        storage=storage,
        assertion=assertion,
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        token_endpoint_auth_method=settings.token_endpoint_auth_method,
        issuer=settings.issuer,
        scope=settings.scope,
        dpop=settings.dpop,
    )


def _redirect_target(
    settings: OAuthSettings, storage: TokenStorage, pinned: int | None = None
) -> tuple[str, int | None]:
    """The redirect URI to register and send, and the loopback port to listen on (if any).

    ``redirect_uri`` wins; otherwise ``http://<redirect_host>:<port>/callback`` with
    ``redirect_port``, else the *pinned* port of a client metadata document, else the
    port a stored registration was made with (a dynamically registered client is bound
    to its redirect URI), else a free port.  The listener always binds 127.0.0.1.
    """
    cached = storage.client_info if not storage.preregistered else None
    if settings.redirect_uri is not None:
        uri = settings.redirect_uri
        parts = urlsplit(uri)
        port = settings.redirect_port
        if port is None and parts.hostname in _LOOPBACK_HOSTS:
            port = parts.port or (443 if parts.scheme == "https" else 80)
    else:
        port = settings.redirect_port or pinned or _registered_port(cached, settings.redirect_host)
        port = port or _free_port()
        uri = f"http://{_host_in_url(settings.redirect_host)}:{port}/callback"
    if cached is not None and cached.redirect_uris:
        registered = {str(u).rstrip("/") for u in cached.redirect_uris}
        if uri.rstrip("/") not in registered:
            # Registered for another redirect URI: its tokens still work (and refresh), but a
            # new login registers again, for this URI.
            storage.forget_client()
    return uri, port


def _registered_port(client: Any, host: str) -> int | None:
    for uri in getattr(client, "redirect_uris", None) or ():
        parts = urlsplit(str(uri))
        if parts.scheme == "http" and parts.hostname == host.strip("[]") and parts.port:
            return int(parts.port)
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _host_in_url(host: str) -> str:
    bare = host.strip("[]")
    try:
        return f"[{bare}]" if ipaddress.ip_address(bare).version == 6 else bare
    except ValueError:
        return bare
