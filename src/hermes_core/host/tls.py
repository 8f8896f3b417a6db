"""Client certificates (mTLS) for HTTP servers, as an ``ssl.SSLContext`` for the SDK's client.

``client_cert`` takes three forms: a combined PEM path; ``[cert, key]`` or
``[cert, key, passphrase]``; or a cert path with ``client_key``.  Paths have
``~`` expanded (``${VAR}`` is expanded earlier, with the rest of the config).
Every file is checked before any connection is tried, and an error names the
server and the file — never the passphrase.
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass, field

__all__ = ["ClientCertificate", "client_certificate", "ssl_context"]


@dataclass(frozen=True)
class ClientCertificate:
    cert: str
    key: str | None = None
    passphrase: str | None = field(default=None, repr=False)


def client_certificate(
    server: str, client_cert: str | list[str] | None, client_key: str | None
) -> ClientCertificate | None:
    """The certificate the config names, with its files checked; ``ValueError`` says why not."""
    if client_cert is None:
        if client_key is not None:
            raise ValueError(f"MCP server '{server}': client_key needs client_cert")
        return None
    if isinstance(client_cert, list):
        cert, key, *rest = client_cert
        labels = ("client_cert[0]", "client_cert[1]")
        found = ClientCertificate(
            _file(server, labels[0], cert), _file(server, labels[1], key), rest[0] if rest else None
        )
        return found
    key_path = _file(server, "client_key", client_key) if client_key is not None else None
    return ClientCertificate(_file(server, "client_cert", client_cert), key_path)


def _file(server: str, label: str, path: str) -> str:
    expanded = os.path.expanduser(path.strip())
    if not os.path.isfile(expanded):
        raise ValueError(f"MCP server '{server}': {label} not found at '{expanded}'")
    if not os.access(expanded, os.R_OK):
        raise ValueError(f"MCP server '{server}': {label} at '{expanded}' is not readable")
    return expanded


def ssl_context(certificate: ClientCertificate) -> ssl.SSLContext:
    """A verifying client context presenting *certificate* (trust: the system's CA store)."""
    context = ssl.create_default_context()
    try:
        context.load_cert_chain(certificate.cert, certificate.key, certificate.passphrase)
    except ssl.SSLError as exc:
        reason = exc.reason or "the key does not match the certificate, or the passphrase is wrong"
        raise ValueError(
            f"cannot use the client certificate '{certificate.cert}': {reason}"
        ) from None
    return context
