"""A company identity provider for SEP-990 ("cross-app access") tests: RFC 8693 token exchange.

It knows the ID tokens in ``id_tokens``.  ``POST /token`` exchanges one (``subject_token``) for an
ID-JAG for the ``audience``/``resource`` asked for, and hands that ID-JAG to ``on_issue`` (the
test authorization server's ``provider.id_jags``), as a real IdP's signature would let the AS
trust it.  ``GET /.well-known/openid-configuration`` names the token endpoint.  Every token request
is kept in ``requests`` (form fields and the ``Authorization`` header).  Served by
``http.server`` on 127.0.0.1 in a thread.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote

from servers.net import free_port

__all__ = ["IdentityProvider"]

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


class IdentityProvider:
    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str | None = None,
        as_client_id: str = "",
        on_issue: Callable[[str, dict[str, str]], None] | None = None,
    ) -> None:
        """*client_id*/*client_secret*: the client at this IdP; *as_client_id*: the client at
        the MCP server's authorization server that the ID-JAGs name (their ``client_id``)."""
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.token_endpoint = f"{self.issuer}/token"
        self.client_id = client_id
        self.client_secret = client_secret
        self.as_client_id = as_client_id
        self.on_issue = on_issue
        self.id_tokens: set[str] = set()
        self.requests: list[dict[str, Any]] = []
        self.discoveries = 0
        idp = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path != "/.well-known/openid-configuration":
                    self._answer(404, {"error": "not_found"})
                    return
                idp.discoveries += 1
                self._answer(200, {"issuer": idp.issuer, "token_endpoint": idp.token_endpoint})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(parse_qsl(self.rfile.read(length).decode()))
                authorization = self.headers.get("Authorization")
                idp.requests.append({**form, "authorization": authorization})
                status, body = idp.exchange(form, authorization)
                self._answer(status, body)

            def _answer(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def exchange(self, form: dict[str, str], authorization: str | None) -> tuple[int, Any]:
        """(status, JSON body) for one token request."""

        def refuse(error: str, why: str) -> tuple[int, Any]:
            return 400, {"error": error, "error_description": why}

        if form.get("grant_type") != TOKEN_EXCHANGE:
            return refuse("unsupported_grant_type", "token exchange only")
        if form.get("client_id") != self.client_id:
            return refuse("invalid_client", "unknown client")
        if self.client_secret is not None:
            given: tuple[str, ...] = ()
            if authorization and authorization.startswith("Basic "):
                pair = base64.b64decode(authorization[6:]).decode()
                given = tuple(unquote(part) for part in pair.split(":", 1))
            if given != (self.client_id, self.client_secret):
                return 401, {"error": "invalid_client", "error_description": "bad credentials"}
        if form.get("subject_token_type") != ID_TOKEN or form.get("requested_token_type") != ID_JAG:
            return refuse("invalid_request", "ID token for ID-JAG only")
        if not form.get("audience") or not form.get("resource"):
            return refuse("invalid_request", "audience and resource are required")
        if form.get("subject_token") not in self.id_tokens:
            return refuse("invalid_grant", "the ID token is not valid")
        jag = f"jag-{secrets.token_urlsafe(16)}"
        if self.on_issue is not None:
            self.on_issue(
                jag,
                {
                    "client_id": self.as_client_id,
                    "audience": form["audience"],
                    "resource": form["resource"],
                },
            )
        return 200, {"access_token": jag, "issued_token_type": ID_JAG, "token_type": "N_A"}

    def start(self) -> IdentityProvider:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)
