"""SEP-990 leg 1: the user's ID token becomes an ID-JAG at the identity provider (RFC 8693).

``oauth: {grant: identity_assertion}`` ("cross-app access", enterprise-managed authorization):
the user signed in to the company identity provider (IdP) once, and holds an OpenID Connect ID
token.  For an MCP server, that token is exchanged at the IdP's token endpoint for an Identity
Assertion JWT Authorization Grant (ID-JAG) addressed to the server's authorization server
(*audience*) and the server itself (*resource*): that is this module.  The SDK's
``IdentityAssertionOAuthProvider`` calls :class:`IdJagExchange` whenever it needs a grant and
presents the ID-JAG to the authorization server's token endpoint (RFC 7523 jwt-bearer) for an
access token (leg 2).

The request::

    POST <oauth.idp_token_endpoint>      (or the token_endpoint in oauth.idp_issuer's metadata)
    grant_type=urn:ietf:params:oauth:grant-type:token-exchange
    subject_token=<oauth.id_token>&subject_token_type=urn:ietf:params:oauth:token-type:id_token
    requested_token_type=urn:ietf:params:oauth:token-type:id-jag
    audience=<oauth.issuer>&resource=<the MCP server>[&scope=<oauth.scope>]
    client_id=<oauth.idp_client_id>      (+ HTTP Basic with oauth.idp_client_secret, if set)

``oauth.id_token_file`` is read at each exchange, so a tool that renews the ID token can
rewrite the file while Hermes runs.  No error message quotes the ID token, the ID-JAG or a
secret.  Imported only when such a server is set up (it imports ``httpx2``).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx2

from hermes_core.auth.errors import OAuthConfigError, OAuthError
from hermes_core.config.models import display_url
from hermes_core.config.oauth import secure_url

__all__ = ["ID_JAG_TOKEN_TYPE", "ID_TOKEN_TYPE", "TOKEN_EXCHANGE_GRANT", "IdJagExchange"]

TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
#: Seconds for each request to the identity provider.
EXCHANGE_TIMEOUT = 30.0


class IdJagExchange:
    """``await exchange(audience, resource)`` → an ID-JAG from the identity provider.

    The SDK's ``assertion_provider``: *audience* is the configured ``oauth.issuer`` (the
    authorization server the ID-JAG is for), *resource* the MCP server's resource identifier.
    Without ``token_endpoint`` the IdP's metadata is fetched once from *issuer*
    (OpenID Connect discovery, then RFC 8414), and its ``issuer`` must match.
    """

    def __init__(
        self,
        server: str,
        *,
        client_id: str,
        client_secret: str | None = None,
        token_endpoint: str | None = None,
        issuer: str | None = None,
        id_token: str | None = None,
        id_token_file: str | None = None,
        scope: str | None = None,
        timeout: float = EXCHANGE_TIMEOUT,
    ) -> None:
        if token_endpoint is None and issuer is None:
            raise ValueError("an IdP token endpoint or issuer is needed")
        if (id_token is None) == (id_token_file is None):
            raise ValueError("exactly one of id_token and id_token_file is needed")
        self.server = server
        self.client_id = client_id
        self._client_secret = client_secret
        self.token_endpoint = token_endpoint
        self.issuer = issuer
        self._id_token = id_token
        self.id_token_file = id_token_file
        self.scope = scope
        self.timeout = timeout

    def __repr__(self) -> str:
        where = self.token_endpoint or self.issuer
        return f"IdJagExchange(server={self.server!r}, idp={display_url(where or '')!r})"

    async def __call__(self, audience: str, resource: str) -> str:
        subject = self._subject_token()
        async with httpx2.AsyncClient(timeout=self.timeout, follow_redirects=False) as client:
            endpoint = self.token_endpoint or await self._discover(client)
            data = {
                "grant_type": TOKEN_EXCHANGE_GRANT,
                "subject_token": subject,
                "subject_token_type": ID_TOKEN_TYPE,
                "requested_token_type": ID_JAG_TOKEN_TYPE,
                "audience": audience,
                "resource": resource,
                "client_id": self.client_id,
            }
            if self.scope:
                data["scope"] = self.scope
            headers = {"Accept": "application/json"}
            if self._client_secret is not None:
                # RFC 6749 section 2.3.1: each part form-encoded, then base64 of "id:secret".
                pair = f"{quote(self.client_id, safe='')}:{quote(self._client_secret, safe='')}"
                headers["Authorization"] = f"Basic {base64.b64encode(pair.encode()).decode()}"
            try:
                response = await client.post(endpoint, data=data, headers=headers)
            except httpx2.HTTPError as exc:
                raise self._error(
                    f"the identity provider's token endpoint {display_url(endpoint)} could not be "
                    f"reached ({type(exc).__name__})"
                ) from None
        body = _json(response)
        if response.status_code != 200:
            raise self._error(
                f"the identity provider refused the ID-JAG token exchange "
                f"(HTTP {response.status_code}{_oauth_error(body)}); "
                "check oauth.id_token (is it current?), oauth.idp_client_id and oauth.issuer"
            )
        token = body.get("access_token") if body is not None else None
        if not isinstance(token, str) or not token:
            raise self._error("the identity provider's token exchange answer has no access_token")
        issued = body.get("issued_token_type") if body is not None else None
        if issued != ID_JAG_TOKEN_TYPE:
            raise self._error(
                f"the identity provider issued a {issued or 'token of no stated type'}, "
                f"not an ID-JAG ({ID_JAG_TOKEN_TYPE})"
            )
        return token

    def _subject_token(self) -> str:
        if self._id_token is not None:
            return self._id_token
        assert self.id_token_file is not None
        path = Path(self.id_token_file).expanduser()
        try:
            token = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            raise OAuthConfigError(
                f"MCP server '{self.server}': oauth.id_token_file cannot be read at '{path}' "
                f"({reason})"
            ) from None
        if not token:
            raise OAuthConfigError(
                f"MCP server '{self.server}': oauth.id_token_file '{path}' is empty"
            )
        return token

    async def _discover(self, client: httpx2.AsyncClient) -> str:
        """The token endpoint from ``oauth.idp_issuer``'s metadata (kept for later exchanges)."""
        assert self.issuer is not None
        issuer = self.issuer.rstrip("/")
        parts = urlsplit(issuer)
        origin = f"{parts.scheme}://{parts.netloc}"
        for url in (
            f"{issuer}/.well-known/openid-configuration",
            f"{origin}/.well-known/oauth-authorization-server{parts.path}",
        ):
            try:
                response = await client.get(url, headers={"Accept": "application/json"})
            except httpx2.HTTPError:
                continue
            metadata = _json(response) if response.status_code == 200 else None
            if metadata is None:
                continue
            if str(metadata.get("issuer", "")).rstrip("/") != issuer:
                raise self._error(
                    f"the identity provider metadata at {display_url(url)} is for another issuer "
                    "than oauth.idp_issuer"
                )
            endpoint = metadata.get("token_endpoint")
            if not isinstance(endpoint, str) or not secure_url(endpoint):
                raise self._error(
                    f"the identity provider metadata at {display_url(url)} has no https "
                    "token_endpoint"
                )
            self.token_endpoint = endpoint
            return endpoint
        raise self._error(
            f"no identity provider metadata found for oauth.idp_issuer {display_url(issuer)}; "
            "set oauth.idp_token_endpoint"
        )

    def _error(self, what: str) -> OAuthError:
        return OAuthError(f"MCP server '{self.server}': {what}")


def _json(response: httpx2.Response) -> dict[str, Any] | None:
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _oauth_error(body: dict[str, Any] | None) -> str:
    """``: invalid_grant (Invalid ID token)`` from an RFC 6749 error answer, kept short."""
    if body is None or not isinstance(body.get("error"), str):
        return ""
    text = f": {body['error'][:80]}"
    description = body.get("error_description")
    if isinstance(description, str) and description:
        text += f" ({description[:200]})"
    return text
