"""Runtime-file liveness (``liveness.kind: server_json``), read locally only.

A vendor app that serves MCP itself writes a small JSON file (pid, loopback
URL, token).  Hermes re-reads it on every call; nothing is cached.  Only the
file's scheme, host and port are trusted: the path always comes from the
declaration's ``endpoint_path``, and anything that is not plain loopback
``http`` is refused.  The token never appears in ``repr`` or ``as_dict``.

This module opens no socket: dialling the endpoint belongs to ``hermes_core``.
It is not used by ``availability``.
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass, field

from hermes_platform.resolver.app import AppDef
from hermes_platform.resolver.locating import LocateContext
from hermes_platform.resolver.versions import Observation

__all__ = ["Endpoint", "LocalProbe", "compose_endpoint", "endpoint", "probe_local", "read_session"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
_MAX_RUNTIME_FILE = 64 * 1024
_MAX_PID = 2**31 - 1


@dataclass(frozen=True)
class Session:
    """What the runtime file says (the token is kept out of ``repr``)."""

    pid: int | None
    url: str
    token: str = field(repr=False)


@dataclass(frozen=True)
class Endpoint:
    """A live local endpoint; ``repr`` shows no token."""

    url: str
    token: str = field(repr=False)

    def as_dict(self) -> dict[str, str]:
        return {"url": self.url, "token": "<redacted>" if self.token else ""}


@dataclass(frozen=True)
class LocalProbe:
    """``running`` (pid check) and ``endpoint`` (composed URL), read without a socket."""

    running: Observation
    endpoint: Observation

    def __bool__(self) -> bool:
        raise TypeError("LocalProbe is not a boolean; read .running or .endpoint")


def read_session(app: AppDef, ctx: LocateContext | None = None) -> Session | None:
    """Read the runtime file; ``None`` when missing, unreadable or not a JSON object."""
    if app.liveness_kind != "server_json" or not app.liveness_path:
        return None
    ctx = ctx or LocateContext(app.os_family)
    path = ctx.expand(app.liveness_path)
    if not ctx.is_absolute(path):
        return None
    if not ctx.host.is_file(path):  # a FIFO or a device: opening one could block
        return None
    try:
        raw = ctx.host.read_range(path, 0, _MAX_RUNTIME_FILE + 1)
        if len(raw) > _MAX_RUNTIME_FILE:
            return None
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    pid = data.get(app.liveness_pid_key)
    valid_pid = pid if type(pid) is int and 0 < pid <= _MAX_PID else None
    url = data.get(app.liveness_url_key)
    token = data.get(app.liveness_token_key)
    return Session(
        valid_pid, url if isinstance(url, str) else "", token if isinstance(token, str) else ""
    )


def compose_endpoint(url: str, endpoint_path: str) -> Observation:
    """Take scheme, host and port from *url*; the path from the declaration."""
    if not url:
        return Observation("unavailable", None, "no url in runtime file")
    try:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return Observation("unavailable", None, "malformed endpoint")
    if parts.scheme != "http" or parts.username is not None or parts.password is not None:
        return Observation("unavailable", None, "endpoint must be plain http without userinfo")
    if host not in LOOPBACK_HOSTS:
        return Observation("unavailable", None, "endpoint must be loopback")
    if port is None or not 1 <= port <= 65535:
        return Observation("unavailable", None, "endpoint needs a numeric port")
    netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    composed = f"http://{netloc}{endpoint_path}"
    try:  # re-verify: the declared path must not move the host
        again = urllib.parse.urlsplit(composed)
        same = (
            again.scheme == "http"
            and again.hostname == host
            and again.port == port
            and again.username is None
            and not again.query
            and not again.fragment
        )
    except ValueError:
        return Observation("unavailable", None, "malformed endpoint path")
    if not same:
        return Observation("unavailable", None, "endpoint path must stay on loopback")
    return Observation("present", composed)


def probe_local(app: AppDef, ctx: LocateContext | None = None) -> LocalProbe:
    """Pid liveness and endpoint composition; never opens a socket."""
    if app.liveness_kind != "server_json":
        return LocalProbe(Observation("not_checked"), Observation("not_checked"))
    ctx = ctx or LocateContext(app.os_family)
    session = read_session(app, ctx)
    if session is None:
        return LocalProbe(
            Observation("absent", "false", "runtime file missing or unreadable"),
            Observation("absent"),
        )
    if session.pid is None:
        running = Observation("unavailable", None, "no valid pid in runtime file")
    elif ctx.host.pid_alive(session.pid):
        running = Observation("present", "true")
    else:
        running = Observation("absent", "false", f"process {session.pid} is not running")
    return LocalProbe(running, compose_endpoint(session.url, app.endpoint_path))


def endpoint(app: AppDef, ctx: LocateContext | None = None) -> Endpoint | None:
    """The live endpoint (URL and token) when the app runs and advertises one, else ``None``."""
    ctx = ctx or LocateContext(app.os_family)
    session = read_session(app, ctx)
    if session is None or session.pid is None or not ctx.host.pid_alive(session.pid):
        return None
    composed = compose_endpoint(session.url, app.endpoint_path)
    if composed.state != "present" or composed.value is None:
        return None
    return Endpoint(composed.value, session.token)
