"""DPoP (RFC 9449, MCP SEP-1932): access tokens bound to a key only this client holds.

The ``mcp`` SDK has no DPoP (its ``OAuthToken`` accepts only ``token_type: Bearer``), so the
proofs are built here, with ``cryptography``:

* :class:`DPoPKey` (:mod:`hermes_core.auth.dpop_key`) is one ES256 (P-256) key per server,
  kept in the server's token file (0600) beside the tokens bound to it, so a token obtained
  by ``hermes mcp login`` works in the next process.  The private part never reaches a log,
  an error or a ``repr``.
* :func:`DPoPKey.proof` signs a ``dpop+jwt``: ``jti`` (fresh each time), ``htm``, ``htu``
  (the URL without query and fragment), ``iat``, and ``ath`` (the access token's hash) when a
  token is presented, ``nonce`` when the server asked for one.
* :class:`DPoPFlow` wraps a provider's auth flow (``HermesOAuthProvider``'s, around the
  SDK's OAuth client, and the jwt-bearer provider's).  It sees every request the flow sends:

  - a token request (a form POST with ``grant_type``) gets a proof in its ``DPoP`` header
    when DPoP is on (``oauth.dpop: true``), or when ``auto`` and the authorization server's
    metadata lists ES256 in ``dpop_signing_alg_values_supported``, or when the token being
    refreshed is bound.  A ``400 use_dpop_nonce`` with a ``DPoP-Nonce`` header is retried
    once with the nonce (RFC 9449 §8).  A ``token_type: DPoP`` answer is recorded as bound
    and handed to the SDK as the bearer-typed token it understands.  With
    ``oauth.dpop: true`` an unbound (Bearer) token is refused: asking for sender-constrained
    tokens never silently ends with a bearer token.
  - the request being authorized, when its token is bound, is sent with
    ``Authorization: DPoP <token>`` and a fresh proof; a ``401`` whose challenge says
    ``use_dpop_nonce`` (with a ``DPoP-Nonce``) is retried once with that nonce (RFC 9449 §9)
    and never starts a new login.

  Nonces are kept per origin (the authorization server's and the MCP server's apart), and a
  ``DPoP-Nonce`` on any answer replaces the one held.

Imported only when a server with ``auth: oauth`` is set up.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator
from urllib.parse import parse_qs

import httpx2

from hermes_core.auth.dpop_key import ALGORITHM, DPoPKey, access_token_hash, b64url
from hermes_core.auth.errors import OAuthError
from hermes_core.auth.storage import TokenStorage
from hermes_core.config.oauth import DPOP_MODES

__all__ = ["DPOP_MODES", "DPoPError", "DPoPFlow", "DPoPKey", "access_token_hash", "b64url"]

log = logging.getLogger(__name__)

#: The longest DPoP-Nonce kept (servers are untrusted input).
_MAX_NONCE = 512
_NONCE_CHALLENGE = "use_dpop_nonce"


class DPoPError(OAuthError):
    """DPoP was required (``oauth.dpop: true``) but the exchange did not give a bound token."""


def _origin(url: httpx2.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode('ascii', 'replace')}"


def _grant_type(request: httpx2.Request) -> str | None:
    """The ``grant_type`` of a token request (a form POST), else None."""
    if request.method != "POST":
        return None
    if "application/x-www-form-urlencoded" not in request.headers.get("content-type", ""):
        return None
    try:
        form = parse_qs(request.content.decode("ascii"))
    except (UnicodeDecodeError, httpx2.RequestNotRead):
        return None
    values = form.get("grant_type")
    return values[0] if values else None


def _metadata_request(request: httpx2.Request) -> bool:
    """Whether *request* fetches authorization server metadata (RFC 8414, OpenID)."""
    path = request.url.path
    return request.method == "GET" and (
        "/.well-known/oauth-authorization-server" in path
        or "/.well-known/openid-configuration" in path
    )


def _nonce_challenge(response: httpx2.Response, *, resource: bool) -> bool:
    """Whether *response* asks for a DPoP nonce (RFC 9449 §8 for a token endpoint, §9 for a
    resource): the error is ``use_dpop_nonce`` and a ``DPoP-Nonce`` header comes with it."""
    if "dpop-nonce" not in response.headers:
        return False
    if resource:
        if response.status_code != 401:
            return False
        challenge = response.headers.get("www-authenticate", "")
        return _NONCE_CHALLENGE in challenge
    if response.status_code != 400:
        return False
    try:
        body = json.loads(response.content or b"{}")
    except (ValueError, httpx2.ResponseNotRead):
        return False
    return isinstance(body, dict) and body.get("error") == _NONCE_CHALLENGE


class DPoPFlow:
    """DPoP around one provider's auth flow (see the module docstring).

    ``DPoPFlow(mode, server, storage).wrap(request, inner)`` is the flow *inner* (an auth
    flow generator for *request*) with proofs added; *storage*
    (:class:`~hermes_core.auth.storage.TokenStorage`) keeps the key and which access token is
    bound.  One per provider: the nonces it learns last as long as the provider.
    """

    def __init__(self, mode: str, server: str, storage: TokenStorage) -> None:
        if mode not in DPOP_MODES:
            raise ValueError(f"DPoP mode must be one of {', '.join(DPOP_MODES)}")
        self.dpop_mode = mode
        self.dpop_server = server
        self._dpop_storage = storage
        self._dpop_nonces: dict[str, str] = {}
        self._dpop_as_offers = False

    def __repr__(self) -> str:
        return f"DPoPFlow({self.dpop_server!r}, mode={self.dpop_mode!r})"

    async def wrap(
        self, request: httpx2.Request, inner: AsyncGenerator[httpx2.Request, httpx2.Response]
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        try:
            outgoing = await inner.__anext__()
            while True:
                if outgoing is request:
                    response = yield self._present(request)
                    self._keep_nonce(request, response)
                    if self._bound_token(request) and _nonce_challenge(response, resource=True):
                        response = yield self._present(request)
                        self._keep_nonce(request, response)
                else:
                    grant = _grant_type(outgoing)
                    if grant is not None and self._proof_wanted():
                        response = yield from_token_request(self, outgoing)
                        self._keep_nonce(outgoing, response)
                        await response.aread()
                        if _nonce_challenge(response, resource=False):
                            response = yield from_token_request(self, outgoing)
                            self._keep_nonce(outgoing, response)
                            await response.aread()
                        response = self._token_answer(response)
                    else:
                        response = yield outgoing
                        self._keep_nonce(outgoing, response)
                        if _metadata_request(outgoing) and response.status_code == 200:
                            await response.aread()
                            self._notice_metadata(response)
                outgoing = await inner.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await inner.aclose()

    # -- pieces ---------------------------------------------------------------------------
    def _proof_wanted(self) -> bool:
        if self.dpop_mode == "true" or self._dpop_as_offers:
            return True
        return self._dpop_storage.holds_bound_token

    def _notice_metadata(self, response: httpx2.Response) -> None:
        """Authorization server metadata (RFC 8414): does it take ES256 DPoP proofs?"""
        try:
            document = json.loads(response.content)
        except (ValueError, httpx2.ResponseNotRead):
            return
        algs = (
            document.get("dpop_signing_alg_values_supported")
            if isinstance(document, dict)
            else None
        )
        offers = isinstance(algs, list) and ALGORITHM in algs
        if self.dpop_mode == "auto":
            self._dpop_as_offers = offers
        if offers:
            log.debug("MCP server '%s': the authorization server takes DPoP", self.dpop_server)

    def _keep_nonce(self, request: httpx2.Request, response: httpx2.Response) -> None:
        nonce = response.headers.get("dpop-nonce")
        if nonce and len(nonce) <= _MAX_NONCE and nonce.isascii() and nonce.isprintable():
            self._dpop_nonces[_origin(request.url)] = nonce

    def _nonce_for(self, url: httpx2.URL) -> str | None:
        return self._dpop_nonces.get(_origin(url))

    def _bound_token(self, request: httpx2.Request) -> str | None:
        """The access token on *request* (as the flow set it) when it is DPoP-bound."""
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() not in ("bearer", "dpop") or not token:
            return None
        return token if self._dpop_storage.is_dpop_bound(token) else None

    def _present(self, request: httpx2.Request) -> httpx2.Request:
        token = self._bound_token(request)
        if token is None:
            request.headers.pop("dpop", None)
            return request
        key = self._dpop_storage.dpop_key()
        request.headers["Authorization"] = f"DPoP {token}"
        request.headers["DPoP"] = key.proof(
            request.method, request.url, access_token=token, nonce=self._nonce_for(request.url)
        )
        return request

    def _token_answer(self, response: httpx2.Response) -> httpx2.Response:
        """A token endpoint's answer, as the SDK can read it; the bound token is recorded."""
        if response.status_code not in (200, 201):
            return response
        try:
            body = json.loads(response.content)
        except (ValueError, httpx2.ResponseNotRead):
            return response
        if not isinstance(body, dict) or not isinstance(body.get("access_token"), str):
            return response
        token_type = str(body.get("token_type", "")).lower()
        if token_type != "dpop":
            if self.dpop_mode == "true":
                raise DPoPError(
                    f"MCP server '{self.dpop_server}': oauth.dpop is true, but the authorization "
                    f"server answered with a {body.get('token_type') or 'untyped'} token, not a "
                    "DPoP-bound one (set oauth.dpop: auto to accept bearer tokens from it)"
                )
            return response
        self._dpop_storage.mark_dpop_bound(body["access_token"])
        body["token_type"] = "Bearer"  # the SDK's OAuthToken knows no other type
        return httpx2.Response(
            response.status_code,
            headers={"content-type": "application/json"},
            content=json.dumps(body).encode(),
            request=response.request,
        )


def from_token_request(flow: DPoPFlow, request: httpx2.Request) -> httpx2.Request:
    """*request* (a token request) with a fresh proof for its token endpoint."""
    key = flow._dpop_storage.dpop_key()
    request.headers["DPoP"] = key.proof("POST", request.url, nonce=flow._nonce_for(request.url))
    return request
