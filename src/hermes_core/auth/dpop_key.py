"""A DPoP key (RFC 9449): one ES256 (P-256) key pair per server and the proofs it signs.

:class:`DPoPKey` is what the server's token file keeps (:mod:`hermes_core.auth.storage`) and what
:class:`~hermes_core.auth.dpop.DPoPFlow` signs proofs with.  The private part never reaches a
log, an error or a ``repr``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any

import httpx2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

__all__ = ["ALGORITHM", "DPoPKey", "access_token_hash", "b64url", "htu"]

ALGORITHM = "ES256"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_int(value: int) -> str:
    return b64url(value.to_bytes(32, "big"))


def _b64url_decode_int(text: str) -> int:
    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


def access_token_hash(token: str) -> str:
    """``ath``: base64url(SHA-256(the access token))."""
    return b64url(hashlib.sha256(token.encode("ascii", "surrogateescape")).digest())


class DPoPKey:
    """One ES256 key pair; :meth:`private_jwk` is what the token file keeps."""

    def __init__(self, key: ec.EllipticCurvePrivateKey) -> None:
        if not isinstance(key.curve, ec.SECP256R1):
            raise ValueError("a DPoP key must be on P-256 (ES256)")
        self._key = key
        numbers = key.public_key().public_numbers()
        self.public_jwk: dict[str, str] = {
            "kty": "EC",
            "crv": "P-256",
            "x": _b64url_int(numbers.x),
            "y": _b64url_int(numbers.y),
        }

    def __repr__(self) -> str:
        return f"DPoPKey(thumbprint={self.thumbprint!r})"

    @classmethod
    def generate(cls) -> DPoPKey:
        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_private_jwk(cls, jwk: Mapping[str, Any]) -> DPoPKey:
        """The key saved by :meth:`private_jwk`; ``ValueError`` when it is not one."""
        if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
            raise ValueError("not a P-256 EC key")
        try:
            x, y, d = (_b64url_decode_int(str(jwk[k])) for k in ("x", "y", "d"))
            public = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1())
            key = ec.EllipticCurvePrivateNumbers(d, public).private_key()
        except (KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"not a usable P-256 key ({type(exc).__name__})") from None
        return cls(key)

    def private_jwk(self) -> dict[str, str]:
        d = self._key.private_numbers().private_value
        return {**self.public_jwk, "d": _b64url_int(d)}

    @property
    def thumbprint(self) -> str:
        """RFC 7638 JWK thumbprint (SHA-256): what a bound token's ``cnf.jkt`` names."""
        canonical = json.dumps(
            {k: self.public_jwk[k] for k in ("crv", "kty", "x", "y")},
            separators=(",", ":"),
            sort_keys=True,
        )
        return b64url(hashlib.sha256(canonical.encode()).digest())

    def proof(
        self,
        method: str,
        url: str | httpx2.URL,
        *,
        access_token: str | None = None,
        nonce: str | None = None,
    ) -> str:
        """A DPoP proof JWT for one request (RFC 9449 §4.2)."""
        header = {"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.public_jwk}
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(24),
            "htm": method.upper(),
            "htu": htu(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = access_token_hash(access_token)
        if nonce is not None:
            claims["nonce"] = nonce
        signing_input = (
            b64url(json.dumps(header, separators=(",", ":")).encode())
            + "."
            + b64url(json.dumps(claims, separators=(",", ":")).encode())
        )
        der = self._key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        return f"{signing_input}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def htu(url: str | httpx2.URL) -> str:
    """The ``htu`` of a request: its URL without query and fragment."""
    return str(httpx2.URL(str(url)).copy_with(query=None, fragment=None))
