"""What the SDK's authorization server lacks, added in front of it for the OAuth tests.

* :class:`DPoPGate` (RFC 9449): the authorization server advertises ES256 DPoP, checks the
  proof of every token request, binds the tokens it issues to the proof's key (answering
  ``token_type: DPoP``) and, with *nonce*, first answers ``use_dpop_nonce``; the MCP endpoint
  accepts a bound token only as ``Authorization: DPoP`` with a valid proof for that key and
  request (``ath``, ``htm``, ``htu``, fresh ``jti``), and, with *nonce*, only with its own
  nonce.  Proofs are checked with PyJWT, independently of the client's code.
* :class:`WorkloadGrant` (RFC 7523, workload identity): the token endpoint takes the
  jwt-bearer grant from a public client when the assertion is a JWT signed by the workload
  platform's key for this authorization server (``aud``), not expired.
* :func:`migrating_metadata`: the protected resource metadata names whatever authorization
  server the test moved the resource to (SEP-2352).

Each is ASGI middleware over ``OAuthServer.app``; what they saw is counted for the tests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import jwt

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 (EC keys)."""
    members = {k: jwk[k] for k in ("crv", "kty", "x", "y")}
    return b64url(
        hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode()).digest()
    )


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _header(scope: Scope, name: str) -> str | None:
    wanted = name.lower().encode()
    values = [v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == wanted]
    return ", ".join(values) if values else None


def _with_header(scope: Scope, name: str, value: str | None) -> Scope:
    wanted = name.lower().encode()
    headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != wanted]
    if value is not None:
        headers.append((wanted, value.encode("latin-1")))
    return {**scope, "headers": headers}


async def _json_answer(
    send: Send, status: int, document: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(document).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


async def _captured(app: App, scope: Scope, receive: Receive) -> tuple[int, list[Any], bytes]:
    """Run *app* and return its whole answer (status, headers, body)."""
    start: dict[str, Any] = {}
    body = bytearray()

    async def capture(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        else:
            body.extend(message.get("body", b""))

    await app(scope, receive, capture)
    return int(start.get("status", 500)), list(start.get("headers", [])), bytes(body)


async def _send_whole(send: Send, status: int, headers: list[Any], body: bytes) -> None:
    headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def rewrite_json(app: App, path: str, change: Callable[[dict[str, Any]], None]) -> App:
    """*app* with the JSON answer of GET *path* (a prefix) changed by *change*."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or not str(scope.get("path", "")).startswith(path):
            await app(scope, receive, send)
            return
        status, headers, body = await _captured(app, scope, receive)
        if status == 200:
            document = json.loads(body)
            change(document)
            body = json.dumps(document).encode()
        await _send_whole(send, status, headers, body)

    return wrapped


@dataclass
class DPoPGate:
    """RFC 9449 at the token endpoint and the MCP endpoint of one ``OAuthServer``."""

    base: str
    nonce: bool = False
    seen: Counter[str] = field(default_factory=Counter)
    """``token_proof``, ``as_nonce_challenge``, ``rs_nonce_challenge``, ``dpop_request``,
    ``bearer_refused``, ``bad_proof``, ``replay``, ``unbound_token``."""
    bound: dict[str, str] = field(default_factory=dict)
    """access or refresh token → the thumbprint of the key it is bound to."""
    errors: list[str] = field(default_factory=list)
    as_nonce: str = field(default_factory=lambda: "as-" + secrets.token_urlsafe(8))
    rs_nonce: str = field(default_factory=lambda: "rs-" + secrets.token_urlsafe(8))
    _jtis: set[str] = field(default_factory=set)

    def wrap(self, app: App) -> App:
        def advertise(document: dict[str, Any]) -> None:
            document["dpop_signing_alg_values_supported"] = ["ES256"]

        app = rewrite_json(app, "/.well-known/oauth-authorization-server", advertise)

        async def gate(scope: Scope, receive: Receive, send: Send) -> None:
            path = str(scope.get("path", ""))
            if scope.get("type") == "http" and path == "/token":
                await self._token(app, scope, receive, send)
            elif scope.get("type") == "http" and path.startswith("/mcp"):
                await self._resource(app, scope, receive, send)
            else:
                await app(scope, receive, send)

        return gate

    def check(
        self, proof: str | None, method: str, url: str, *, token: str | None, nonce: str | None
    ) -> tuple[str | None, str]:
        """``(thumbprint, "")`` for a valid proof, else ``(None, why)``."""
        if not proof or "," in proof:
            return None, "no single DPoP proof"
        try:
            header = jwt.get_unverified_header(proof)
            if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256":
                return None, "typ/alg"
            jwk = header.get("jwk") or {}
            if "d" in jwk:
                return None, "private key in the proof"
            key = jwt.PyJWK(jwk, algorithm="ES256")
            claims = jwt.decode(proof, key.key, algorithms=["ES256"])
        except jwt.PyJWTError as exc:
            return None, f"signature: {exc}"
        if claims.get("htm") != method or claims.get("htu") != url:
            return None, f"htm/htu {claims.get('htm')} {claims.get('htu')}"
        if abs(time.time() - float(claims.get("iat", 0))) > 60:
            return None, "iat"
        jti = claims.get("jti")
        if not isinstance(jti, str) or jti in self._jtis:
            self.seen["replay"] += 1
            return None, "jti reused"
        self._jtis.add(jti)
        if token is not None:
            ath = b64url(hashlib.sha256(token.encode()).digest())
            if claims.get("ath") != ath:
                return None, "ath"
        if nonce is not None and claims.get("nonce") != nonce:
            return None, "nonce"
        return thumbprint(jwk), ""

    async def _token(self, app: App, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _body(receive)
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        proof = _header(scope, "dpop")
        jkt = None
        if proof is not None:
            jkt, why = self.check(proof, "POST", f"{self.base}/token", token=None, nonce=None)
            if jkt is None:
                self.seen["bad_proof"] += 1
                self.errors.append(f"token: {why}")
                await _json_answer(
                    send, 400, {"error": "invalid_dpop_proof", "error_description": why}
                )
                return
            self.seen["token_proof"] += 1
            if (
                self.nonce
                and jwt.decode(proof, options={"verify_signature": False}).get("nonce")
                != self.as_nonce
            ):
                self.seen["as_nonce_challenge"] += 1
                await _json_answer(
                    send, 400, {"error": "use_dpop_nonce"}, {"DPoP-Nonce": self.as_nonce}
                )
                return
        refresh = form.get("refresh_token")
        if refresh in self.bound and self.bound[refresh] != jkt:
            self.seen["unbound_token"] += 1
            await _json_answer(
                send, 400, {"error": "invalid_grant", "error_description": "bound refresh token"}
            )
            return
        status, headers, answer = await _captured(app, scope, _replay(body))
        if status == 200 and jkt is not None:
            document = json.loads(answer)
            document["token_type"] = "DPoP"
            for key in ("access_token", "refresh_token"):
                if isinstance(document.get(key), str):
                    self.bound[document[key]] = jkt
            answer = json.dumps(document).encode()
        await _send_whole(send, status, headers, answer)

    async def _resource(self, app: App, scope: Scope, receive: Receive, send: Send) -> None:
        authorization = _header(scope, "authorization") or ""
        scheme, _, token = authorization.partition(" ")
        metadata = f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
        if scheme.lower() == "bearer" and token in self.bound:
            self.seen["bearer_refused"] += 1
            await _json_answer(
                send, 401, {"error": "invalid_token"}, {"WWW-Authenticate": f"DPoP {metadata}"}
            )
            return
        if scheme.lower() == "dpop":
            nonce = self.rs_nonce if self.nonce else None
            proof = _header(scope, "dpop")
            method = str(scope.get("method", "GET"))
            url = f"{self.base}{scope.get('path', '')}"
            jkt, why = self.check(proof, method, url, token=token, nonce=None)
            if jkt is None or self.bound.get(token) != jkt:
                self.seen["bad_proof"] += 1
                self.errors.append(f"resource: {why or 'key is not the bound one'}")
                await _json_answer(
                    send,
                    401,
                    {"error": "invalid_token"},
                    {"WWW-Authenticate": f'DPoP error="invalid_dpop_proof", {metadata}'},
                )
                return
            sent_nonce = jwt.decode(proof or "", options={"verify_signature": False}).get("nonce")
            if nonce is not None and sent_nonce != nonce:
                self.seen["rs_nonce_challenge"] += 1
                await _json_answer(
                    send,
                    401,
                    {"error": "use_dpop_nonce"},
                    {
                        "WWW-Authenticate": f'DPoP error="use_dpop_nonce", {metadata}',
                        "DPoP-Nonce": nonce,
                    },
                )
                return
            self.seen["dpop_request"] += 1
            scope = _with_header(scope, "authorization", f"Bearer {token}")
        await app(scope, receive, send)


@dataclass
class WorkloadGrant:
    """The jwt-bearer grant for workloads: assertions signed by *public_key* (the platform's
    key), ``aud`` = this authorization server, unexpired.  The tokens are issued to client
    ``workload:<sub>``."""

    base: str
    public_key: Any
    issue: Callable[[str, list[str], str | None], Any]
    requests: list[dict[str, str]] = field(default_factory=list)

    def wrap(self, app: App) -> App:
        def advertise(document: dict[str, Any]) -> None:
            document["grant_types_supported"] = [
                *document.get("grant_types_supported", []),
                JWT_BEARER,
            ]

        app = rewrite_json(app, "/.well-known/oauth-authorization-server", advertise)

        async def grant(scope: Scope, receive: Receive, send: Send) -> None:
            if scope.get("type") != "http" or scope.get("path") != "/token":
                await app(scope, receive, send)
                return
            body = await _body(receive)
            form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
            if form.get("grant_type") != JWT_BEARER:
                await app(scope, _replay(body), send)
                return
            self.requests.append(form)
            try:
                claims = jwt.decode(
                    form.get("assertion", ""),
                    self.public_key,
                    algorithms=["ES256"],
                    audience=self.base,
                )
            except jwt.PyJWTError as exc:
                await _json_answer(
                    send, 400, {"error": "invalid_grant", "error_description": str(exc)}
                )
                return
            token = self.issue(
                f"workload:{claims['sub']}", (form.get("scope") or "").split(), form.get("resource")
            )
            await _json_answer(send, 200, token.model_dump(exclude_none=True))

        return grant


def migrating_metadata(app: App, current: Callable[[], str | None]) -> App:
    """*app* whose protected resource metadata names ``current()`` as its authorization
    server (when it returns one)."""

    def change(document: dict[str, Any]) -> None:
        issuer = current()
        if issuer is not None:
            document["authorization_servers"] = [issuer]

    return rewrite_json(app, "/.well-known/oauth-protected-resource", change)
