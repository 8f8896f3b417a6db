"""Client certificates (mTLS) for HTTP servers, as the config names them.

``client_cert`` takes three forms: a combined PEM path; ``[cert, key]`` or
``[cert, key, passphrase]``; or a cert path with ``client_key``.  Paths have
``~`` expanded (``${VAR}`` is expanded earlier, with the rest of the config).
Every file is checked before any connection is tried, and an error names the
server and the file — never the passphrase.  The host turns one into an ``ssl.SSLContext``
(:func:`hermes_core.host.transports.tls.ssl_context`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

__all__ = ["ClientCertificate", "client_certificate"]


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
