"""``oauth.grant: jwt_bearer``: workload identity federation (RFC 7523, MCP SEP-1933).

A workload (a CI job, a Kubernetes pod, a cloud function) already holds a JWT its platform
issued it — a projected service-account token, a CI OIDC token — and presents it as the
``assertion`` of the jwt-bearer grant at the MCP server's authorization server, which trusts
the platform's issuer.  No browser, no client secret needed, no refresh token: when the
access token expires or is refused, the assertion is read again and exchanged again.

The SDK's jwt-bearer provider (``IdentityAssertionOAuthProvider``) serves SEP-990 only: it
requires a confidential client and a configured issuer.  A workload is usually a public
client, so this provider is Hermes' own, built from the SDK's discovery helpers
(``mcp.client.auth.utils``):

* the authorization server is ``oauth.issuer`` when set (the protected resource metadata is
  then never asked); otherwise it is discovered from the MCP server's protected resource
  metadata (RFC 9728), and the assertion is sent there only when its ``aud`` names that
  server (its issuer or token endpoint): a server that names another authorization server
  never receives a workload token meant for a different audience;
* the authorization server's metadata must name the issuer it was fetched for (RFC 8414);
* a refused exchange (``invalid_grant``, ``invalid_scope``, ``unauthorized_client``...) is
  reported with the server's error and is not retried, nor is another grant tried.

Imported only when such a server is set up (it imports ``mcp``).
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from urllib.parse import quote

import anyio
import httpx2
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    create_oauth_metadata_request,
    extract_field_from_www_auth,
    extract_resource_metadata_from_www_auth,
    extract_scope_from_www_auth,
    handle_auth_metadata_response,
    handle_protected_resource_response,
    handle_token_response_scopes,
    issuers_match,
    union_scopes,
    validate_metadata_issuer,
)
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

from hermes_core.auth.dpop import DPoPFlow
from hermes_core.auth.errors import OAuthConfigError, OAuthError
from hermes_core.auth.storage import TokenStorage
from hermes_core.sanitize import clean_text

__all__ = ["JwtBearerProvider", "WorkloadAssertion", "assertion_audiences"]

#: The longest assertion read from a file (a JWT is a few KiB at most).
_MAX_ASSERTION = 64 * 1024
#: The longest error text taken from an authorization server's answer.
_MAX_ERROR = 300


class JwtBearerError(OAuthError):
    """The authorization server refused the workload's assertion (not retried)."""


class WorkloadAssertion:
    """Where the workload's JWT comes from: ``oauth.assertion`` (text, usually ``${VAR}``)
    or ``oauth.assertion_file`` (read at every exchange: platforms rotate these files)."""

    def __init__(self, server: str, *, text: str | None, file: str | None) -> None:
        self.server = server
        self._text = text
        self._file = file

    def __repr__(self) -> str:
        source = f"file={self._file!r}" if self._file else "text=<redacted>"
        return f"WorkloadAssertion({self.server!r}, {source})"

    def read(self) -> str:
        if self._text is not None:
            return self._text
        assert self._file is not None
        path = Path(self._file).expanduser()
        try:
            with path.open("rb") as stream:
                raw = stream.read(_MAX_ASSERTION + 1)
        except OSError as exc:
            raise OAuthConfigError(
                f"MCP server '{self.server}': oauth.assertion_file cannot be read at "
                f"'{path}' ({exc.strerror or exc})"
            ) from None
        text = raw.decode("ascii", "replace").strip()
        if len(raw) > _MAX_ASSERTION or not text or text.count(".") != 2:
            raise OAuthConfigError(
                f"MCP server '{self.server}': oauth.assertion_file '{path}' does not hold a JWT"
            )
        return text


def assertion_audiences(assertion: str) -> list[str]:
    """The ``aud`` of a JWT, read without checking its signature (the authorization server
    does that); empty when there is none or the JWT cannot be read."""
    try:
        payload = assertion.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return []
    aud = claims.get("aud") if isinstance(claims, dict) else None
    if isinstance(aud, str):
        return [aud]
    if isinstance(aud, list):
        return [a for a in aud if isinstance(a, str)]
    return []


def _same_url(a: str, b: str) -> bool:
    return issuers_match(a, b) or a.rstrip("/") == b.rstrip("/")


class JwtBearerProvider(httpx2.Auth):
    """``grant: jwt_bearer`` (see the module docstring), with DPoP as ``oauth.dpop`` says."""

    requires_response_body = True
    interactive = False  # never a browser login to wait for

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = self.dpop.wrap(request, self._exchange_flow(request))
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def __init__(
        self,
        *,
        server_name: str,
        server_url: str,
        storage: TokenStorage,
        assertion: Callable[[], Awaitable[str]],
        client_id: str | None = None,
        client_secret: str | None = None,
        token_endpoint_auth_method: str | None = None,
        issuer: str | None = None,
        scope: str | None = None,
        dpop: str = "auto",
    ) -> None:
        self.server_name = server_name
        self.server_url = server_url
        self.token_storage = storage
        self._assertion = assertion
        self._client_id = client_id
        self._client_secret = client_secret
        self._method = token_endpoint_auth_method or (
            "client_secret_basic" if client_secret else "none"
        )
        self._issuer = issuer
        self._scope = scope
        self._resource = resource_url_from_server_url(server_url)
        self._token_endpoint: str | None = None
        self._lock = anyio.Lock()
        self.dpop = DPoPFlow(dpop, server_name, storage)

    def __repr__(self) -> str:
        return f"JwtBearerProvider({self.server_name!r})"

    @property
    def has_tokens(self) -> bool:
        return self.token_storage.has_tokens

    async def _current_token(self) -> str | None:
        self.token_storage.reload_if_changed()
        tokens = await self.token_storage.get_tokens()
        expires = self.token_storage.expires_at
        if tokens is None or (expires is not None and time.time() > expires - 5):
            return None
        return tokens.access_token

    async def _exchange_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        async with self._lock:
            token = await self._current_token()
            if token is not None:
                request.headers["Authorization"] = f"Bearer {token}"
            response = yield request
            step_up = (
                response.status_code == 403
                and extract_field_from_www_auth(response, "error") == "insufficient_scope"
            )
            if response.status_code != 401 and not step_up:
                return
            challenged = extract_scope_from_www_auth(response)
            scope = union_scopes(self._scope, challenged) if step_up else self._scope or challenged

            issuer = self._issuer
            if issuer is None:
                # RFC 9728: which authorization server protects this resource.
                prm = None
                urls = build_protected_resource_metadata_discovery_urls(
                    extract_resource_metadata_from_www_auth(response), self.server_url
                )
                for url in urls:
                    prm = await handle_protected_resource_response(
                        (yield create_oauth_metadata_request(url))
                    )
                    if prm is not None:
                        break
                if prm is None:
                    raise JwtBearerError(
                        f"MCP server '{self.server_name}' publishes no protected resource "
                        "metadata naming its authorization server; set oauth.issuer"
                    )
                if prm.resource is not None and not check_resource_allowed(
                    requested_resource=self._resource, configured_resource=str(prm.resource)
                ):
                    raise JwtBearerError(
                        f"MCP server '{self.server_name}': its metadata is for another resource "
                        f"({prm.resource})"
                    )
                issuer = str(prm.authorization_servers[0])
                if scope is None and prm.scopes_supported:
                    scope = " ".join(prm.scopes_supported)

            token_endpoint = None
            for url in build_oauth_authorization_server_metadata_discovery_urls(issuer, issuer):
                ok, asm = await handle_auth_metadata_response(
                    (yield create_oauth_metadata_request(url))
                )
                if not ok:
                    break
                if asm is not None:
                    validate_metadata_issuer(asm, issuer)
                    token_endpoint = str(asm.token_endpoint)
                    break
            if token_endpoint is None:
                raise JwtBearerError(
                    f"MCP server '{self.server_name}': no authorization server metadata at {issuer}"
                )

            assertion = await self._assertion()
            if self._issuer is None:
                self._check_audience(assertion, issuer, token_endpoint)
            answer = yield self._token_request(token_endpoint, assertion, scope)
            if answer.status_code != 200:
                await answer.aread()
                raise JwtBearerError(_refusal(self.server_name, answer))
            tokens = await handle_token_response_scopes(answer)
            if tokens.scope is None:
                tokens.scope = scope
            tokens.refresh_token = None  # never used: the assertion is exchanged again
            await self.token_storage.set_tokens(tokens)
            request.headers["Authorization"] = f"Bearer {tokens.access_token}"
            yield request

    def _check_audience(self, assertion: str, issuer: str, token_endpoint: str) -> None:
        """A discovered authorization server gets the workload token only when the token is
        addressed to it (its issuer or its token endpoint)."""
        audiences = assertion_audiences(assertion)
        if not any(_same_url(aud, issuer) or _same_url(aud, token_endpoint) for aud in audiences):
            raise JwtBearerError(
                f"MCP server '{self.server_name}' names the authorization server "
                f"{issuer}, but the workload token is for "
                f"{', '.join(audiences) or 'no audience'}; it is not sent there "
                "(set oauth.issuer to trust that server explicitly)"
            )

    def _token_request(self, endpoint: str, assertion: str, scope: str | None) -> httpx2.Request:
        data = {
            "grant_type": JWT_BEARER_GRANT_TYPE,
            "assertion": assertion,
            "resource": self._resource,
        }
        if scope:
            data["scope"] = scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if self._client_id is not None:
            data["client_id"] = self._client_id
            if self._client_secret is not None and self._method == "client_secret_basic":
                pair = f"{quote(self._client_id, safe='')}:{quote(self._client_secret, safe='')}"
                headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
            elif self._client_secret is not None:
                data["client_secret"] = self._client_secret
        return httpx2.Request("POST", endpoint, data=data, headers=headers)


def _refusal(server: str, answer: httpx2.Response) -> str:
    try:
        body = json.loads(answer.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        error = clean_text(body["error"])[:_MAX_ERROR]
        detail = body.get("error_description")
        if isinstance(detail, str) and detail.strip():
            error += f": {clean_text(detail)[:_MAX_ERROR]}"
    else:
        error = f"HTTP {answer.status_code}"
    return (
        f"MCP server '{server}': the authorization server refused the workload token "
        f"({error}); not retried"
    )
