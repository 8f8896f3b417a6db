"""The URL an HTTP server entry will really reach, as the policy's ``url`` rules see it.

The URL is parsed by the HTTP client itself (``httpx2.URL``), so the host the rules see is the
host it dials: IDNA-encoded the client's way (``127。0。0。1`` is ``127.0.0.1``), lower case,
credentials dropped (``https://ok.example@evil.example/`` is ``evil.example``), default ports
dropped.  Then what the client leaves to the resolver and to the server is normalised too: a
trailing dot goes, an IPv4 address in any spelling ``inet_aton`` accepts (``127.1``,
``0x7f.1``, ``2130706433``) and an IPv4-mapped IPv6 address are also written the usual way, and
the path has its dot segments resolved after percent-decoding (``/a/%2e%2e/admin`` is
``/admin``).  A URL the client cannot parse is a :class:`ValueError` (the policy refuses it).
"""

from __future__ import annotations

import ipaddress
import posixpath
import re
import socket
from dataclasses import dataclass
from fnmatch import fnmatchcase
from urllib.parse import unquote

from hermes_core.config.policy_rules import UrlRule

__all__ = ["DialTarget", "dial_target", "url_rule_matches"]

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_NUMERIC_HOST = re.compile(r"^[0-9A-Fa-fXx.]+$")


@dataclass(frozen=True)
class DialTarget:
    """Where the client connects and what it asks for, every equivalent spelling of each."""

    scheme: str
    hosts: tuple[str, ...]
    """The host as dialled (ASCII), then its other spellings (Unicode, a canonical address)."""
    port: int | None
    """``None``: the scheme's default port."""
    paths: tuple[str, ...]
    """The path as the server may read it: escapes of unreserved characters decoded and dot
    segments resolved; then, when it differs, every escape decoded and dot segments resolved."""

    def shown(self, host: str, path: str) -> str:
        """``scheme://host[:port]/path`` (an IPv6 address in brackets)."""
        where = f"[{host}]" if ":" in host else host
        return f"{self.scheme}://{where}{f':{self.port}' if self.port is not None else ''}{path}"


def dial_target(url: str) -> DialTarget:
    """What the HTTP client reaches for *url*; ``ValueError`` when it cannot parse it."""
    import httpx2  # the HTTP client: kept off the CLI's start-up path

    try:
        parsed = httpx2.URL(url.strip())
        dialled = parsed.raw_host.decode("ascii")
        shown = parsed.host
        port = parsed.port
        raw_path = parsed.raw_path.decode("ascii").partition("?")[0]
    except (httpx2.InvalidURL, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"the HTTP client cannot parse it ({exc})") from None
    scheme = parsed.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError(f"the HTTP client does not dial {scheme!r} URLs")
    if not dialled:
        raise ValueError("it names no host")
    if port == _DEFAULT_PORTS[scheme]:
        port = None  # (the client keeps an explicit default port after an upper-case scheme)
    return DialTarget(
        scheme=scheme,
        hosts=_spellings(dialled, shown),
        port=port,
        paths=_readings(raw_path or "/"),
    )


def url_rule_matches(rule: UrlRule, target: DialTarget, *, deny: bool) -> bool:
    """Whether *rule* matches *target*.  Any spelling of the host may match (they are one
    host); a path the server may read two ways must match both ways in an allow rule and
    either way in a deny rule."""
    path_test = any if deny else all
    if rule.pattern is not None:
        pattern = _normal_pattern(rule.pattern)
        return path_test(
            any(fnmatchcase(target.shown(host, path), pattern) for host in target.hosts)
            for path in target.paths
        )
    if rule.scheme is not None and not fnmatchcase(target.scheme, rule.scheme.lower()):
        return False
    if rule.host is not None:
        host_glob = rule.host.lower().rstrip(".")
        if not any(fnmatchcase(host, host_glob) for host in target.hosts):
            return False
    return rule.path is None or path_test(fnmatchcase(p, rule.path) for p in target.paths)


def _normal_pattern(pattern: str) -> str:
    """A whole-URL glob written the way :meth:`DialTarget.shown` writes URLs: scheme and host
    in lower case, no trailing dot after the host, no default port."""
    scheme, sep, rest = pattern.partition("://")
    if not sep:
        return pattern
    where, slash, path = rest.partition("/")
    scheme = scheme.lower()
    host, colon, port = where.lower().rpartition(":")
    if not colon or "]" in port or not port.isdigit():
        host, port = where.lower(), ""
    elif _DEFAULT_PORTS.get(scheme) == int(port):
        port = ""
    host = host.rstrip(".")
    return f"{scheme}://{host}{f':{port}' if port else ''}{slash}{path}"


def _spellings(dialled: str, shown: str) -> tuple[str, ...]:
    found: list[str] = []
    for host in (dialled, shown):
        host = host.lower().rstrip(".")
        if host and host not in found:
            found.append(host)
    canonical = _canonical_address(found[0]) if found else None
    if canonical is not None and canonical not in found:
        found.append(canonical)
    return tuple(found)


def _canonical_address(host: str) -> str | None:
    """The usual spelling of an IP address written another way the resolver accepts."""
    if ":" in host:
        address, _, zone = host.partition("%")
        try:
            six = ipaddress.IPv6Address(address)
        except ValueError:
            return None
        mapped = six.ipv4_mapped
        return str(mapped) if mapped is not None else six.compressed + (f"%{zone}" if zone else "")
    if not _NUMERIC_HOST.match(host):
        return None
    try:
        return socket.inet_ntoa(socket.inet_aton(host))
    except OSError:
        return None


def _readings(raw_path: str) -> tuple[str, ...]:
    normal = _without_dots(_ESCAPE.sub(_unreserved, raw_path))
    decoded = _without_dots(unquote(raw_path, errors="surrogateescape"))
    return (normal,) if decoded == normal else (normal, decoded)


def _unreserved(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else f"%{match.group(1).upper()}"


def _without_dots(path: str) -> str:
    """*path* with ``.`` and ``..`` segments resolved (never above the root), a trailing
    slash kept."""
    if not path.startswith("/"):
        path = "/" + path
    resolved = posixpath.normpath(path)
    if resolved.startswith("//"):
        resolved = "/" + resolved.lstrip("/")
    last = path.rsplit("/", 1)[-1]
    if resolved != "/" and (path.endswith("/") or last in (".", "..")):
        resolved += "/"
    return resolved
