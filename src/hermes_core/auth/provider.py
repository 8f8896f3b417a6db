"""The SDK's ``OAuthClientProvider`` with what Hermes adds around it.

* Cold start: the stored absolute expiry and authorization-server metadata are
  restored, so an expired access token is refreshed before it is sent, at the
  real token endpoint (not a guessed ``/token``).
* Another process's login (the token file changed on disk) is picked up before
  the next request.
* A 401 for a token that should still be valid is first answered with a
  refresh; only when that fails is a new login needed.
* Not interactive: a server asking for authorization fails at once with "run
  ``hermes mcp login <server>``", before any discovery or client registration.
* A configured ``oauth.scope`` is what gets requested (a scope step-up adds to it).
* A refused dynamic client registration says what to configure instead.
* DPoP-bound tokens (``oauth.dpop``), around all of the above: :mod:`hermes_core.auth.dpop`.

Imported only when an ``auth: oauth`` server is set up (it imports ``mcp``).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

import httpx2
from mcp.client.auth import OAuthRegistrationError
from mcp.client.auth.utils import extract_field_from_www_auth, union_scopes
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from pydantic import PrivateAttr

from hermes_core._sdk_compat.oauth import OAuthProviderBase
from hermes_core.auth.callback import BrowserFlow
from hermes_core.auth.dpop import DPoPFlow
from hermes_core.auth.errors import OAuthCallbackError, OAuthLoginRequired
from hermes_core.auth.storage import TokenStorage

__all__ = ["REFRESH_MARGIN", "ClientMetadata", "HermesOAuthProvider"]

#: A token expiring within this many seconds is about to be refreshed: the refresh lock is
#: taken first (with the state database, one replica refreshes; the others reuse its tokens).
REFRESH_MARGIN = 5.0


class _QuietFlowErrors(logging.Filter):
    """The SDK logs every failed login with a traceback; the error reaches the user anyway
    (as the server's error, with what to do), so that record is demoted to DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "OAuth flow error" and record.levelno > logging.DEBUG:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


_SDK_LOGGER = logging.getLogger("mcp.client.auth.oauth2")
if not any(isinstance(f, _QuietFlowErrors) for f in _SDK_LOGGER.filters):
    _SDK_LOGGER.addFilter(_QuietFlowErrors())


class ClientMetadata(OAuthClientMetadata):
    """Client metadata whose ``scope``, when configured, is not replaced by the SDK's choice.

    The SDK picks the scope to request from the server's challenge or metadata;
    with ``oauth.scope`` set, the configured scope is requested instead, plus,
    on a scope step-up (403 ``insufficient_scope``), the scope challenged for.
    """

    _configured_scope: str | None = PrivateAttr(default=None)
    _step_up: bool = PrivateAttr(default=False)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "scope" and self._configured_scope is not None:
            value = union_scopes(self._configured_scope, value) if self._step_up else None
            value = value or self._configured_scope
        super().__setattr__(name, value)


class HermesOAuthProvider(OAuthProviderBase):
    # The SDK's OAuthClientProvider, through hermes_core._sdk_compat.OAuthProviderBase: every
    # private hook and attribute of the SDK's is reached there (its canary test checks them).
    """An ``httpx2.Auth`` for one MCP server (see the module docstring)."""

    def __init__(
        self,
        *,
        server_name: str,
        server_url: str,
        client_metadata: ClientMetadata,
        storage: TokenStorage,
        flow: BrowserFlow,
        interactive: bool,
        client_metadata_url: str | None = None,
        dpop: str = "auto",
    ) -> None:
        super().__init__(
            server_url=server_url,
            client_metadata=client_metadata,
            storage=storage,
            redirect_handler=flow.redirect,
            callback_handler=self._callback,
            client_metadata_url=client_metadata_url,
        )
        self.server_name = server_name
        self.token_storage = storage
        self.flow = flow
        self.interactive = interactive
        self.dpop = DPoPFlow(dpop, server_name, storage)
        """DPoP (``oauth.dpop``): around everything below (:mod:`hermes_core.auth.dpop`)."""
        storage.metadata_source = lambda: self.oauth_metadata

    def __repr__(self) -> str:
        return f"HermesOAuthProvider({self.server_name!r})"

    @property
    def has_tokens(self) -> bool:
        """Whether tokens are saved for this server (they may still need a refresh)."""
        return self.token_storage.has_tokens

    @property
    def login_in_progress(self) -> bool:
        """Whether a browser login is under way (from showing the URL until tokens are saved)."""
        return self.flow.waiting

    @property
    def callback_timeout(self) -> float:
        return self.flow.timeout

    async def _callback(self) -> AuthorizationCodeResult:
        try:
            result = await self.flow.callback()
        except OAuthCallbackError as exc:
            url = self.client_metadata_url
            client = self.client_info
            if url is None or client is None or client.client_id != url or not exc.timed_out:
                raise
            # A refused client ID metadata document shows only in the browser.
            raise OAuthCallbackError(
                f"{exc} This login offered the client ID metadata document {url}; if the "
                "authorization server refused it, set `oauth.cimd: false` for this server "
                "to register dynamically instead.",
                timed_out=True,
            ) from None
        return AuthorizationCodeResult(code=result.code or "", state=result.state, iss=result.iss)

    async def after_initialize(self) -> None:
        if self.current_tokens is not None:
            # The SDK would treat a loaded token as valid forever; use its saved expiry.
            self.token_expiry_time = self.token_storage.expires_at
        if self.oauth_metadata is None:
            self.oauth_metadata = self.token_storage.oauth_metadata

    def around_auth_flow(
        self,
        request: httpx2.Request,
        sdk_flow: Callable[[], AsyncGenerator[httpx2.Request, httpx2.Response]],
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        return self.dpop.wrap(request, self._flow(request, sdk_flow))

    async def _flow(
        self,
        request: httpx2.Request,
        sdk_flow: Callable[[], AsyncGenerator[httpx2.Request, httpx2.Response]],
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self.token_storage.reload_if_changed():
            self.forget_initialization()
        async with contextlib.AsyncExitStack() as held:
            locked = self._refresh_due()
            if locked:
                # One process refreshes at a time (replicas sharing the state database): the
                # others wait, then find the new tokens another one saved.
                await held.enter_async_context(self.token_storage.refresh_lock())
                if self.token_storage.reload_if_changed():
                    self.forget_initialization()
            flow = sdk_flow()
            first_answer = True
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    if outgoing is request and first_answer:
                        first_answer = False
                        if response.status_code == 401 and self.can_refresh_token():
                            # The server refused a token we thought valid (revoked, clock skew,
                            # a shorter life than announced): a refresh may be all that is
                            # needed, where the SDK would go straight to a new browser login.
                            if not locked:  # not taken above: taken now
                                await held.enter_async_context(self.token_storage.refresh_lock())
                                locked = True
                            refresh_response = yield await self.refresh_request()
                            if await self.accept_refresh(refresh_response):
                                self.authorize(request)
                                response = yield request
                                if response.status_code not in (401, 403):
                                    return
                        self._notice_challenge(response)
                    try:
                        outgoing = await flow.asend(response)
                    except OAuthRegistrationError as exc:
                        # *response* is the registration answer the SDK just refused.
                        hint = _registration_hint(self.server_name, exc, response.status_code)
                        raise OAuthRegistrationError(hint) from exc
            except StopAsyncIteration:
                return
            finally:
                self.flow.waiting = False  # a login started by this request is over, anyway
                await flow.aclose()

    def _refresh_due(self) -> bool:
        """Whether the saved access token expires within :data:`REFRESH_MARGIN` seconds (a
        refresh is then near)."""
        expires = self.token_storage.expires_at
        return expires is not None and expires - time.time() < REFRESH_MARGIN

    def _notice_challenge(self, response: httpx2.Response) -> None:
        step_up = (
            response.status_code == 403
            and extract_field_from_www_auth(response, "error") == "insufficient_scope"
        )
        if response.status_code != 401 and not step_up:
            return
        if not self.interactive:
            reason = (
                "more scope is needed"
                if step_up
                else "the saved authorization was refused or has expired"
                if self.token_storage.has_tokens
                else "no saved tokens"
            )
            raise OAuthLoginRequired(self.server_name, reason)
        metadata = self.client_metadata
        if isinstance(metadata, ClientMetadata):
            metadata._step_up = step_up


def _registration_hint(server: str, exc: Exception, status: int) -> str:
    """What to do when the authorization server answered a registration with *status*
    (a registration it accepted but the SDK cannot use keeps the SDK's own sentence)."""
    if status in (200, 201):
        return str(exc)
    hint = (
        f"MCP server '{server}' refused dynamic client registration (HTTP {status}). "
        "Some providers only accept clients created in their console: create an OAuth "
        "client there and set `oauth.client_id` (and `oauth.client_secret`) for this server"
    )
    if status == 403:
        hint += (
            "; some allow registration only for known client names, which `oauth.client_name` sets"
        )
    return hint + f", then run `hermes mcp login {server}`."
