"""A client certificate (mTLS, :mod:`hermes_core.config.client_cert`) as an ``ssl.SSLContext``
for the SDK's HTTP client."""

from __future__ import annotations

import ssl

from hermes_core.config.client_cert import ClientCertificate

__all__ = ["ssl_context"]


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
