"""A network failure in words: the host name did not resolve, the connection was refused,
it timed out, TLS failed, or it dropped; never an exception's class name.  Shared by the
connections' failure sentences (:mod:`hermes_core.host.connection.failures`) and every other
HTTP client of Hermes (the registries' ``hermes mcp search``)."""

from __future__ import annotations

import socket
import ssl

__all__ = ["in_chain", "lookup_failure", "network_words", "tls_failure"]


def network_words(exc: BaseException) -> str:
    """An HTTP client's connect failure in words: refused, did not resolve, timed out, TLS
    failed, or the connection dropped; never the exception's class name."""
    import httpx2

    if in_chain(exc, socket.gaierror) is not None:
        return f"the host name did not resolve ({lookup_failure(exc)})"
    if in_chain(exc, ConnectionRefusedError) is not None:
        return "the connection was refused (nothing listens on that port)"
    if tls_failure(exc):
        return "the TLS handshake failed (the certificate was not accepted)"
    if isinstance(exc, httpx2.TimeoutException) or in_chain(exc, TimeoutError) is not None:
        return "timed out"
    if isinstance(exc, httpx2.RemoteProtocolError):
        return "the server closed the connection without an answer"
    if isinstance(exc, httpx2.ReadError | httpx2.WriteError):
        return "the connection was dropped"
    text = str(exc).strip()
    if not text or text == "All connection attempts failed":
        return "the connection failed (refused, unreachable or dropped)"
    return text


def tls_failure(exc: BaseException) -> bool:
    """A TLS error, or the server's certificate failing verification behind the HTTP client's
    connect error (a server refusing *our* certificate just drops the connection)."""
    if isinstance(exc, ssl.SSLError):
        return True
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ssl.SSLCertVerificationError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def in_chain(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of *kind* among *exc*, its causes and contexts."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def lookup_failure(exc: BaseException) -> str | None:
    """Why the server's host name did not resolve (a ``socket.gaierror`` under *exc*), or
    ``None``: the name resolved, and the failure came after."""
    found = in_chain(exc, socket.gaierror)
    if found is None:
        return None
    return str(getattr(found, "strerror", None) or found)
