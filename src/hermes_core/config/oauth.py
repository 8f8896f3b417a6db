"""``oauth:``: the settings of ``auth: oauth`` for one server — the one place that knows them.

The block is validated when ``config.yaml`` is read (unknown keys and bad values are errors
at file:line, with a did-you-mean), and again once every text value's ``${VAR}`` has been
expanded at connect time (:func:`hermes_core.config.interpolate.resolve`).  A text value
that holds a ``${…}`` is checked only then; its presence counts at load, so a missing
``client_id`` for ``grant: client_credentials`` is reported before anything connects.

:mod:`hermes_core.auth.oauth` reads this model (``settings.client_id``), never a mapping.
Messages name the key and what is wrong, never the value (client secrets, ID tokens).
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from hermes_core.config.checks import deferred, fail, kind, known_keys

__all__ = [
    "APPLICATION_TYPES",
    "AUTH_METHODS",
    "DEFAULT_CLIENT_NAME",
    "DEFAULT_TIMEOUT",
    "DPOP_MODES",
    "GRANTS",
    "IDENTITY_KEYS",
    "WORKLOAD_KEYS",
    "OAuthConfig",
    "deferred",
    "metadata_url_problem",
    "secure_url",
]

DEFAULT_CLIENT_NAME = "Hermes Agent"
#: Seconds to wait for the browser step.
DEFAULT_TIMEOUT = 300.0
AUTH_METHODS = ("none", "client_secret_post", "client_secret_basic")
APPLICATION_TYPES = ("native", "web")
GRANTS = ("authorization_code", "client_credentials", "identity_assertion", "jwt_bearer")
#: ``oauth.dpop``: DPoP-bound tokens when offered, always (required), never.
DPOP_MODES = ("auto", "true", "false")
#: The keys only the jwt_bearer grant (workload identity) uses.
WORKLOAD_KEYS = ("assertion", "assertion_file")
#: The keys only the identity_assertion grant uses.
IDENTITY_KEYS = (
    "idp_issuer",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_client_secret",
    "id_token",
    "id_token_file",
)
#: Authorization request parameters the OAuth flow itself sets: never taken from config.
PROTOCOL_PARAMS = frozenset(
    {
        "response_type",
        "client_id",
        "redirect_uri",
        "state",
        "code_challenge",
        "code_challenge_method",
        "resource",
        "scope",
    }
)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def secure_url(url: str) -> bool:
    """An https URL, or an http one on this machine (where nothing crosses the network)."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 (raises for a port that is not a number)
    except ValueError:
        return False
    if not parts.hostname:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS)


def metadata_url_problem(url: str) -> str | None:
    """Why *url* cannot be a client ID metadata document's URL (which is the client ID), or None."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        return "must be an https URL"
    if parts.path in ("", "/"):
        return "must have a path (such as /oauth/client-metadata.json)"
    if parts.username is not None or parts.password is not None or parts.fragment:
        return "must not contain a user name, password or #fragment"
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        return "must not contain . or .. path segments"
    return None


def valid_host(host: str) -> bool:
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare)
        return True
    except ValueError:
        pass
    labels = bare.rstrip(".").split(".")
    return all(
        label and len(label) < 64 and label.replace("-", "").isalnum() and label[0] != "-"
        for label in labels
    )


_TEXT_KEYS = (
    "client_id",
    "client_secret",
    "redirect_uri",
    "redirect_host",
    "client_name",
    "client_metadata_url",
    "token_endpoint_auth_method",
    "application_type",
    "flow",
    "grant",
    "issuer",
    "private_key",
    "signing_algorithm",
    *IDENTITY_KEYS,
    *WORKLOAD_KEYS,
)


class OAuthConfig(BaseModel):
    """A server's ``oauth:`` block (defaults filled in; secrets kept out of ``repr``)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, hide_input_in_errors=True, populate_by_name=True
    )

    client_id: str | None = None
    """A client registered in advance (else the client ID metadata document, else dynamic
    registration)."""
    client_secret: str | None = Field(default=None, repr=False)
    scope: str | None = Field(default=None, validation_alias=AliasChoices("scope", "scopes"))
    """The scopes to request (text, or a list joined with spaces; ``scopes:`` is accepted)."""
    redirect_port: int | None = None
    redirect_uri: str | None = None
    redirect_host: str = "127.0.0.1"
    client_name: str = DEFAULT_CLIENT_NAME
    client_metadata_url: str | None = None
    cimd: bool = True
    """Offer a client ID metadata document when the authorization server supports them."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds to wait for the browser step."""
    token_endpoint_auth_method: str | None = None
    application_type: str = "native"
    flow: str | None = None
    """Only ``browser`` (the device flow is not supported)."""
    grant: str = "authorization_code"
    issuer: str | None = None
    """The authorization server credentials may be sent to (client_credentials,
    identity_assertion)."""
    private_key: str | None = Field(default=None, repr=False)
    """A PEM file signing ``private_key_jwt`` assertions (client_credentials)."""
    signing_algorithm: str = "ES256"
    idp_issuer: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = Field(default=None, repr=False)
    id_token: str | None = Field(default=None, repr=False)
    id_token_file: str | None = None
    authorization_params: dict[str, str] = Field(default_factory=dict)
    """Extra query parameters for the authorization request (``access_type: offline``)."""
    dpop: str = "auto"
    """DPoP-bound tokens (RFC 9449): ``auto`` when the authorization server offers them,
    ``true`` required (a bearer token is refused), ``false`` never asked for."""
    assertion: str | None = Field(default=None, repr=False)
    """The workload's JWT (``grant: jwt_bearer``); usually ``"${VAR}"``."""
    assertion_file: str | None = None
    """A file holding the workload's JWT, read at every exchange (``grant: jwt_bearer``)."""

    # ----------------------------------------------------------------- keys

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        known = [*cls.model_fields, "scopes"]
        return known_keys(value, known, shape="a mapping of oauth settings")

    # ----------------------------------------------------------------- values

    @field_validator(*_TEXT_KEYS, mode="before")
    @classmethod
    def _text(cls, value: object, info: ValidationInfo) -> str | None:
        field = cls.model_fields[str(info.field_name)]
        if value is None:
            return field.default if isinstance(field.default, str) else None
        if not isinstance(value, str):
            raise fail(f"must be text (got {kind(value)})")
        text = value.strip()
        if not text:
            return field.default if isinstance(field.default, str) else None
        if deferred(text, info):
            return text
        problem = _text_problem(str(info.field_name), text)
        if problem:
            raise fail(problem)
        return text

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: object) -> str | None:
        if value is None:
            return None
        if isinstance(value, list | tuple):
            if not all(isinstance(item, str) for item in value):
                raise fail("must be text or a list of scopes as text")
            return " ".join(item.strip() for item in value if item.strip()) or None
        if not isinstance(value, str):
            raise fail(f"must be text or a list of scopes (got {kind(value)})")
        return value.strip() or None

    @field_validator("redirect_port", mode="before")
    @classmethod
    def _port(cls, value: object) -> int | None:
        if value is None:
            return None
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
            raise fail("must be a port number from 1 to 65535")
        return value

    @field_validator("cimd", mode="before")
    @classmethod
    def _cimd(cls, value: object) -> bool:
        if value is None:
            return True
        if not isinstance(value, bool):
            raise fail("must be true or false")
        return value

    @field_validator("dpop", mode="before")
    @classmethod
    def _dpop(cls, value: object, info: ValidationInfo) -> str:
        if value is None:
            return "auto"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str) and deferred(value.strip(), info):
            return value.strip()
        if isinstance(value, str) and value.strip().lower() in DPOP_MODES:
            return value.strip().lower()
        raise fail("must be true, false or auto")

    @field_validator("timeout", mode="before")
    @classmethod
    def _timeout(cls, value: object) -> float:
        if value is None:
            return DEFAULT_TIMEOUT
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail("must be a positive number of seconds")
        if not math.isfinite(value) or value <= 0:
            raise fail("must be a positive number of seconds")
        return float(value)

    @field_validator("authorization_params", mode="before")
    @classmethod
    def _params(cls, value: object) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise fail("must be a mapping of parameter names to values")
        params: dict[str, str] = {}
        for key, item in value.items():
            if not isinstance(key, str) or not key.strip():
                raise fail("must have text parameter names")
            if key in PROTOCOL_PARAMS:
                what = "oauth.scope sets it" if key == "scope" else "the OAuth flow sets it"
                raise fail(f"cannot be set here ({what})", key)
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                raise fail("must be text or a number", key)
            params[key] = str(item)
        return params

    # ----------------------------------------------------------------- whole block

    @model_validator(mode="after")
    def _together(self, info: ValidationInfo) -> OAuthConfig:
        if self.client_secret is not None and self.client_id is None:
            raise fail("needs oauth.client_id", "client_secret")
        if deferred(self.grant, info):
            return self  # which keys are needed is known once the grant is
        if self.grant == "client_credentials":
            if self.client_id is None:
                raise fail("is required for the client_credentials grant", "client_id")
            if self.private_key is None and self.client_secret is None:
                raise fail(
                    "or oauth.private_key is required for client_credentials", "client_secret"
                )
        if self.grant == "identity_assertion":
            self._identity_assertion(info)
        if self.grant == "jwt_bearer":
            self._jwt_bearer(info)
        else:
            for key in WORKLOAD_KEYS:
                if getattr(self, key) is not None:
                    raise fail("is used only by grant: jwt_bearer", key)
        if self.dpop == "true" and self.grant in ("client_credentials", "identity_assertion"):
            raise fail(
                f"is not supported with grant: {self.grant} (only authorization_code and "
                "jwt_bearer take DPoP-bound tokens here)",
                "dpop",
            )
        return self

    def _jwt_bearer(self, info: ValidationInfo) -> None:
        """What ``grant: jwt_bearer`` (workload identity) needs."""
        if (self.assertion is None) == (self.assertion_file is None):
            raise fail(
                "or oauth.assertion_file (one of them) is required for the jwt_bearer grant",
                "assertion",
            )
        if self.private_key is not None:
            raise fail("is not supported by the jwt_bearer grant", "private_key")
        issuer = self.issuer
        if issuer is not None and not deferred(issuer, info) and not secure_url(issuer):
            raise fail("must be an https URL (http only on this machine)", "issuer")

    def _identity_assertion(self, info: ValidationInfo) -> None:
        """What ``grant: identity_assertion`` needs (the error names the first key missing)."""
        needed = "is required for the identity_assertion grant"
        if self.client_id is None:
            raise fail(f"{needed} (the client registered at the MCP server's AS)", "client_id")
        if self.client_secret is None:
            raise fail(f"{needed} (only confidential clients may use it)", "client_secret")
        if self.private_key is not None:
            raise fail("is not supported by the identity_assertion grant", "private_key")
        method = self.token_endpoint_auth_method
        if method not in (None, "client_secret_basic", "client_secret_post") and not deferred(
            method, info
        ):
            raise fail(
                "must be client_secret_basic or client_secret_post for identity_assertion",
                "token_endpoint_auth_method",
            )
        if self.issuer is None:
            raise fail(
                f"{needed} (the issuer URL of the MCP server's authorization server)", "issuer"
            )
        if self.idp_token_endpoint is None and self.idp_issuer is None:
            raise fail(f"(or oauth.idp_issuer) {needed}", "idp_token_endpoint")
        for key in ("issuer", "idp_token_endpoint", "idp_issuer"):
            value = getattr(self, key)
            if value is not None and not deferred(value, info) and not secure_url(value):
                raise fail("must be an https URL (http only on this machine)", key)
        if self.idp_client_id is None:
            raise fail(f"{needed} (this client's ID at the identity provider)", "idp_client_id")
        if self.id_token is None and self.id_token_file is None:
            raise fail(f"(or oauth.id_token_file) {needed}", "id_token")
        if self.id_token is not None and self.id_token_file is not None:
            raise fail("and oauth.id_token cannot both be set", "id_token_file")

    # ----------------------------------------------------------------- reading

    def strings(self) -> dict[str, str]:
        """Every text setting that is set, by key path (``authorization_params.prompt``):
        what ``${VAR}`` expansion walks."""
        found = {
            key: value
            for key in ("scope", "dpop", *_TEXT_KEYS)
            if key in self.model_fields_set and isinstance(value := getattr(self, key), str)
        }
        for name, value in self.authorization_params.items():
            found[f"authorization_params.{name}"] = value
        return found

    def written(self) -> dict[str, object]:
        """The keys set in config, as they would be written back (``export``, ``AuthContext``)."""
        return self.model_dump(exclude_unset=True)


def _text_problem(key: str, text: str) -> str | None:
    """Why one text setting's value cannot be used (``None`` when it can)."""
    if key == "flow" and text.lower() != "browser":
        return "must be browser (the device flow is not supported)"
    if key == "redirect_uri":
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "must be an http(s) URL such as https://host/callback"
        if parts.scheme == "http" and parts.hostname not in LOOPBACK_HOSTS:
            return "must use https unless it points at this machine"
    if key == "redirect_host" and not valid_host(text):
        return "must be a host name such as localhost or 127.0.0.1"
    if key == "token_endpoint_auth_method" and text not in AUTH_METHODS:
        return f"must be one of {', '.join(AUTH_METHODS)}"
    if key == "application_type" and text not in APPLICATION_TYPES:
        return "must be native or web"
    if key == "grant" and text not in GRANTS:
        return f"must be one of {', '.join(GRANTS)}"
    if key == "client_metadata_url":
        return metadata_url_problem(text)
    return None
