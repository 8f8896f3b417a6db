"""A real OAuth 2.1 authorization server and a protected MCP server, for the OAuth tests.

Built from the mcp SDK's server-side auth (``mcp.server.auth``): an in-memory
``OAuthAuthorizationServerProvider`` (clients, codes, tokens) whose authorize
step approves at once, by redirecting straight back to the client's redirect URI
with a code.  The MCP endpoint (``/mcp``) requires a bearer token from it.
Served by uvicorn on 127.0.0.1 in a thread, so tests can inspect and change
the server's state (revoke tokens, shorten their life, refuse the next login).

``OAuthServer(protected=False)`` serves the same MCP server without any auth.
``OAuthServer(identity_assertion=True)`` also accepts SEP-990's jwt-bearer grant, for the
ID-JAGs a test identity provider (``servers.idp_server``) put in ``provider.id_jags``.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import json
import math
import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    IdentityAssertionParams,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from servers.net import free_port
from servers.oauth_ext import DPoPGate, WorkloadGrant, migrating_metadata

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

__all__ = ["MemoryAuthorizationServer", "OAuthServer"]


@dataclass
class MemoryAuthorizationServer:
    """Everything an authorization server keeps, in memory, plus what the tests look at."""

    access_ttl: int = 3600
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, RefreshToken] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)
    issued: list[str] = field(default_factory=list)
    """Every secret handed out (codes, access and refresh tokens, client secrets)."""
    deny_next: bool = False
    rotate_refresh: bool = True
    """False: a refresh answers without a new refresh token (RFC 6749 §6; Google, Zoho...)."""
    refuse_registration: bool = False
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    id_jags: dict[str, dict[str, str]] = field(default_factory=dict)
    """ID-JAG → the ``client_id``, ``audience`` and ``resource`` the IdP issued it for."""
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Published client ID metadata documents, by URL (what fetching the URL would return)."""
    trusted: MemoryAuthorizationServer | None = None
    """Set when the resource moved to another authorization server: only its tokens count."""

    # -- registration ----------------------------------------------------------------
    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id in self.documents:  # a client ID metadata document: "fetch" it
            self.calls["document"] += 1
            document = self.documents[client_id]
            if document.get("client_id") != client_id:
                return None
            return OAuthClientInformationFull.model_validate(document)
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.calls["register"] += 1
        if self.refuse_registration:
            raise RegistrationError("invalid_client_metadata", "register in the console")
        if client_info.client_secret:
            self.issued.append(client_info.client_secret)
        self.clients[client_info.client_id] = client_info

    # -- authorization ---------------------------------------------------------------
    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        self.calls["authorize"] += 1
        if self.deny_next:
            self.deny_next = False
            return construct_redirect_uri(
                str(params.redirect_uri), error="access_denied", state=params.state
            )
        code = secrets.token_urlsafe(32)
        self.issued.append(code)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        found = self.codes.get(authorization_code)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.calls["token:authorization_code"] += 1
        self.token_requests.append({"grant": "authorization_code", "client": client.client_id})
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    # -- refresh -----------------------------------------------------------------------
    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.calls["token:refresh_token"] += 1
        self.token_requests.append({"grant": "refresh_token", "client": client.client_id})
        if not self.rotate_refresh:
            issued = self._issue(client.client_id, scopes, refresh_token.resource)
            self.refresh.pop(issued.refresh_token or "", None)
            return issued.model_copy(update={"refresh_token": None})
        self.refresh.pop(refresh_token.token, None)
        return self._issue(client.client_id, scopes, refresh_token.resource)

    # -- tokens ------------------------------------------------------------------------
    async def load_access_token(self, token: str) -> AccessToken | None:
        if self.trusted is not None:
            return await self.trusted.load_access_token(token)
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        """Accepts an ID-JAG the test IdP issued for this client (a real AS checks its JWT)."""
        self.calls["token:jwt_bearer"] += 1
        self.token_requests.append(
            {"grant": "jwt_bearer", "client": client.client_id, "resource": params.resource}
        )
        grant = self.id_jags.get(params.assertion)
        if grant is None or grant["client_id"] != client.client_id:
            raise TokenError(error="invalid_grant", error_description="unknown ID-JAG")
        if params.resource is not None and params.resource != grant["resource"]:
            raise TokenError(error="invalid_grant", error_description="ID-JAG resource mismatch")
        return self._issue(client.client_id, params.scopes or [], grant["resource"])

    def revoke_all(self, *, keep_refresh: bool = False) -> None:
        self.access.clear()
        if not keep_refresh:
            self.refresh.clear()

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(24)}", f"rt-{secrets.token_urlsafe(24)}"
        self.issued += [access, refresh]
        expires = math.ceil(time.time() + self.access_ttl)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=self.access_ttl,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )


class OAuthServer:
    """The authorization server and the MCP server on one port, run by uvicorn in a thread."""

    def __init__(
        self,
        *,
        protected: bool = True,
        identity_assertion: bool = False,
        cimd: bool = False,
        dpop: bool = False,
        dpop_nonce: bool = False,
        workload_key: Any = None,
    ) -> None:
        """*dpop*: DPoP-bound tokens (``servers.oauth_ext.DPoPGate``; *dpop_nonce* adds
        nonces at both ends); *workload_key*: the public key of a workload platform whose JWTs
        the token endpoint takes in the jwt-bearer grant (``servers.oauth_ext.WorkloadGrant``).
        """
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/mcp"
        self.provider = MemoryAuthorizationServer()
        self.mcp_requests = 0
        if protected:
            mcp = MCPServer(
                "oauth-test",
                auth_server_provider=self.provider,
                auth=AuthSettings(
                    issuer_url=self.base,  # type: ignore[arg-type]
                    resource_server_url=self.url,  # type: ignore[arg-type]
                    validate_token_resource=False,
                    client_registration_options=ClientRegistrationOptions(enabled=True),
                    revocation_options=RevocationOptions(enabled=True),
                    identity_assertion_enabled=identity_assertion,
                ),
            )
        else:
            mcp = MCPServer("oauth-test")

        @mcp.tool()
        def whoami() -> str:
            """The OAuth client this call was authorized for."""
            token = get_access_token()
            return token.client_id if token is not None else "anonymous"

        self.sessions: set[str] = set()
        """Every MCP session ID the server handed out."""
        self.forgotten: set[str] = set()
        self.app = _forgetful(mcp.streamable_http_app(), self)
        if cimd:  # the SDK's server does not say so itself
            self.app = _advertise_cimd(self.app)
        self.workload: WorkloadGrant | None = None
        if workload_key is not None:
            self.workload = WorkloadGrant(self.base, workload_key, self.provider._issue)
            self.app = self.workload.wrap(self.app)
        self.dpop: DPoPGate | None = None
        if dpop:
            self.dpop = DPoPGate(self.base, nonce=dpop_nonce)
            self.app = self.dpop.wrap(self.app)
        self.moved_to: OAuthServer | None = None
        self.app = migrating_metadata(
            self.app, lambda: self.moved_to.base if self.moved_to is not None else None
        )
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="oauth-server", daemon=True)

    def add_client(
        self,
        client_id: str,
        secret: str,
        redirect_uri: str,
        method: str = "client_secret_basic",
        grant_types: list[str] | None = None,
    ) -> None:
        """A client registered beforehand (in the provider's console, as it were).

        HTTP Basic is the token-endpoint method a registration gets by default (RFC 7591).
        """
        self.provider.clients[client_id] = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=secret,
            redirect_uris=[redirect_uri],  # type: ignore[list-item]
            token_endpoint_auth_method=method,  # type: ignore[arg-type]
            grant_types=grant_types or ["authorization_code", "refresh_token"],
            response_types=["code"],
        )

    def move_to(self, other: OAuthServer) -> None:
        """SEP-2352: from now on this resource names *other* as its authorization server in
        its protected resource metadata and accepts only the tokens *other* issued."""
        self.moved_to = other
        self.provider.trusted = other.provider

    def forget_sessions(self) -> None:
        """Act as a restarted server would: every session so far is unknown from now on."""
        self.forgotten |= self.sessions

    def start(self) -> OAuthServer:
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the OAuth test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)


def _advertise_cimd(app: Any) -> Any:
    """ASGI middleware: the authorization server metadata gains
    ``client_id_metadata_document_supported: true``."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or not str(scope.get("path", "")).startswith(
            "/.well-known/oauth-authorization-server"
        ):
            await app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        body = bytearray()

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            body.extend(message.get("body", b""))
            if message.get("more_body"):
                return
            data = bytes(body)
            if start.get("status") == 200:
                document = json.loads(data)
                document["client_id_metadata_document_supported"] = True
                data = json.dumps(document).encode()
            headers = [
                (k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"
            ]
            headers.append((b"content-length", str(len(data)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": data})

        await app(scope, receive, capture)

    return wrapped


def _forgetful(app: Any, server: OAuthServer) -> Any:
    """ASGI middleware: notes the session IDs handed out, and presents a forgotten one to the
    SDK's server as an ID it never issued (so it answers as for an expired session)."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        headers = []
        for key, value in scope.get("headers", []):
            if key.lower() == b"mcp-session-id" and value.decode() in server.forgotten:
                value = b"forgotten-" + value
            headers.append((key, value))
        scope = {**scope, "headers": headers}

        async def noting(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                for key, value in message.get("headers", []):
                    if key.lower() == b"mcp-session-id":
                        server.sessions.add(value.decode())
            await send(message)

        await app(scope, receive, noting)

    return wrapped
