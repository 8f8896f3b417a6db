"""A server's ``oauth:`` settings for :mod:`hermes_core.auth.oauth`, and the client ID metadata
document: checked, with Figma's defaults filled in.  Imports neither ``mcp`` nor ``httpx2``
(what ``hermes mcp oauth-client-document`` needs is here)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from hermes_core.auth.errors import OAuthConfigError
from hermes_core.config.oauth import (
    DEFAULT_CLIENT_NAME,
    IDENTITY_KEYS,
    OAuthConfig,
    metadata_url_problem,
)

__all__ = [
    "CIMD_HOSTS",
    "CIMD_PORTS",
    "CLIENT_METADATA_URL_ENV",
    "DEFAULT_CLIENT_NAME",
    "FIGMA_DEFAULTS",
    "OAuthSettings",
    "client_metadata_document",
    "is_figma",
    "is_interactive",
    "oauth_settings",
]

#: The logger of ``hermes_core.auth.oauth``, where these settings were first read (its name
#: shows in ``hermes mcp serve``'s log lines).
log = logging.getLogger("hermes_core.auth.oauth")

#: Figma's registration accepts only known client names (exactly); filled in when unset.
FIGMA_DEFAULTS: Mapping[str, str] = {
    "client_name": "Claude Code",
    "scope": "mcp:connect",
    "token_endpoint_auth_method": "client_secret_post",
}
#: The loopback ports a client ID metadata document lists, as ``http://127.0.0.1:<p>/callback``
#: and ``http://localhost:<p>/callback``: a login takes the first free one.
CIMD_PORTS = range(27890, 27895)
#: The host-wide client ID metadata document: the URL where the agent published the document
#: that :func:`client_metadata_document` writes.
CLIENT_METADATA_URL_ENV = "HERMES_OAUTH_CLIENT_METADATA_URL"
#: The loopback hosts of the redirect URIs a client ID metadata document lists.
CIMD_HOSTS = ("127.0.0.1", "localhost")

OAuthSettings = OAuthConfig
"""A server's ``oauth:`` block, checked, with defaults filled in (the config model)."""


def is_interactive() -> bool:
    """Whether a person is at this process's terminal (so a browser login may start)."""
    stream = sys.stdin
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def is_figma(server: str, url: str | None) -> bool:
    """Figma's hosted MCP endpoint (or a server named like it with no other host)."""
    parts = urlsplit(url or "")
    host = (parts.hostname or "").lower()
    if host == "mcp.figma.com" or (host.endswith("figma.com") and "/mcp" in parts.path):
        return True
    return "figma" in server.lower() and (not host or host.endswith("figma.com"))


def oauth_settings(
    server: str, url: str | None, cfg: OAuthConfig | Mapping[str, Any] | None
) -> OAuthConfig:
    """The ``oauth:`` settings of *server* (the model read from ``config.yaml``, or a mapping
    of final values, checked here) with Figma's defaults filled in where unset;
    :class:`OAuthConfigError` names a bad key, never its value."""
    if isinstance(cfg, OAuthConfig):
        settings = cfg
    else:
        try:
            settings = OAuthConfig.model_validate(cfg or {}, context={"expanded": True})
        except ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            loc = tuple(error["loc"]) + tuple((error.get("ctx") or {}).get("sub", ()))
            key = ".".join(str(part) for part in loc)
            reason = error["ctx"]["reason"] if error["type"] == "hermes_config" else "is not valid"
            raise OAuthConfigError(f"MCP server '{server}': oauth.{key} {reason}") from None
    if is_figma(server, url):
        unset = {
            key: value
            for key, value in FIGMA_DEFAULTS.items()
            if key not in settings.model_fields_set or getattr(settings, key) is None
        }
        settings = settings.model_copy(update=unset)
    if settings.grant != "identity_assertion":
        for key in IDENTITY_KEYS:
            if getattr(settings, key) is not None:
                log.warning(
                    "MCP server '%s': oauth.%s is used only by grant: identity_assertion (ignored)",
                    server,
                    key,
                )
    return settings


def client_metadata_document(url: str, *, client_name: str = DEFAULT_CLIENT_NAME) -> dict[str, Any]:
    """The client ID metadata document to publish at *url* (a native public client whose
    redirect URIs are the loopback callbacks on :data:`CIMD_PORTS`)."""
    problem = metadata_url_problem(url)
    if problem is not None:
        raise OAuthConfigError(f"the client metadata document URL {problem}")
    return {
        "client_id": url,
        "client_name": client_name,
        "redirect_uris": [
            f"http://{host}:{port}/callback" for port in CIMD_PORTS for host in CIMD_HOSTS
        ],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    }
