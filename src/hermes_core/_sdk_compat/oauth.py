"""The SDK's OAuth client provider with the private hooks Hermes needs, under names of its own
(see :mod:`hermes_core._sdk_compat`; importing this module imports ``mcp.client.auth``)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
)

__all__ = ["OAuthProviderBase"]


class OAuthProviderBase(OAuthClientProvider):
    """``OAuthClientProvider`` with the private hooks Hermes needs, under names of its own.

    ``HermesOAuthProvider`` (``hermes_core.auth.provider``) builds on this class and never
    names an SDK-private attribute itself: it overrides :meth:`after_initialize` and
    :meth:`around_auth_flow`, calls :meth:`forget_initialization`, :meth:`refresh_request`,
    :meth:`accept_refresh` and :meth:`authorize`, and reads or sets the provider's state
    (the SDK's ``context``) through the properties below.  What they rely on is
    :data:`OAUTH_PROVIDER_INTERNALS` and :data:`OAUTH_PROVIDER_CONTEXT`, checked by
    :func:`missing` and the canary test.
    """

    # -- hooks for subclasses -------------------------------------------------------------
    async def after_initialize(self) -> None:
        """Called each time the SDK (re)loads tokens and client info from storage."""

    def around_auth_flow(
        self,
        request: httpx2.Request,
        sdk_flow: Callable[[], AsyncGenerator[httpx2.Request, httpx2.Response]],
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The auth flow for *request*: by default the SDK's (``sdk_flow()`` starts it)."""
        return sdk_flow()

    # -- the SDK's private hooks, routed to the ones above ---------------------------------
    async def _initialize(self) -> None:
        await super()._initialize()
        await self.after_initialize()

    def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        return self.around_auth_flow(
            request, lambda: super(OAuthProviderBase, self)._auth_flow(request)
        )

    # -- private operations, public names ---------------------------------------------------
    def forget_initialization(self) -> None:
        """Make the next request reload tokens and client info from storage."""
        self._initialized = False

    async def refresh_request(self) -> httpx2.Request:
        """The token endpoint request that refreshes the access token."""
        return await self._refresh_token()

    async def accept_refresh(self, response: httpx2.Response) -> bool:
        """Take the refresh answer; whether it gave new tokens (they are stored)."""
        return await self._handle_refresh_response(response)

    def authorize(self, request: httpx2.Request) -> None:
        """Put the current access token on *request*."""
        self._add_auth_header(request)

    # -- the provider's state (the SDK's ``context``) --------------------------------------
    @property
    def current_tokens(self) -> OAuthToken | None:
        return self.context.current_tokens

    @property
    def token_expiry_time(self) -> float | None:
        return self.context.token_expiry_time

    @token_expiry_time.setter
    def token_expiry_time(self, value: float | None) -> None:
        self.context.token_expiry_time = value

    @property
    def oauth_metadata(self) -> OAuthMetadata | None:
        return self.context.oauth_metadata

    @oauth_metadata.setter
    def oauth_metadata(self, value: OAuthMetadata | None) -> None:
        self.context.oauth_metadata = value

    @property
    def client_metadata_url(self) -> str | None:
        return self.context.client_metadata_url

    @property
    def client_info(self) -> OAuthClientInformationFull | None:
        return self.context.client_info

    @property
    def client_metadata(self) -> OAuthClientMetadata:
        return self.context.client_metadata

    def can_refresh_token(self) -> bool:
        return bool(self.context.can_refresh_token())
