"""Where a declared desktop app serves MCP right now: its runtime file read into a
:class:`LiveEndpoint`, or a :class:`NotRunning` with the reason.

A vendor's app that serves MCP itself (``app.<os>.liveness: {kind: server_json, ...}`` in its
declaration) writes a small JSON file while it runs: its pid, a loopback URL and a token.
:func:`live_endpoint` reads that file through ``hermes_platform``'s host seam, bounded and
suspicious:

* the file must be a regular file (a FIFO, a device or a folder is refused: reading one could
  block or never end) that is not a symbolic link, at most :data:`MAX_RUNTIME_FILE` bytes;
* it must hold a JSON object with a pid in 1…2³¹−1 that is alive (and is not this process);
* the URL's scheme, host and port are taken from it only when it is plain ``http`` on a
  loopback address; the path always comes from the declaration (``endpoint_path``);
* the token is kept out of ``repr``, of every reason and of every status.

Opening no socket: dialling is the host's (:mod:`hermes_core.host.liveness.follow`).  Doctor
and the status commands read a server's liveness here too.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from hermes_core.host.liveness.words import app_label, not_running_sentence
from hermes_platform import declared
from hermes_platform.declaration_model import Declaration
from hermes_platform.host import current_host, os_family
from hermes_platform.host.seam import Host
from hermes_platform.resolver.app import AppDef
from hermes_platform.resolver.liveness import compose_endpoint
from hermes_platform.resolver.locating import LocateContext

__all__ = [
    "MAX_RUNTIME_FILE",
    "LiveEndpoint",
    "NotRunning",
    "app_label",
    "has_liveness",
    "live_endpoint",
    "liveness_app",
    "not_running_sentence",
    "read_endpoint",
]

#: The largest runtime file read (a bigger one is refused unread).
MAX_RUNTIME_FILE = 64 * 1024
_MAX_PID = 2**31 - 1
_MAX_TOKEN = 4096


@dataclass(frozen=True)
class LiveEndpoint:
    """The running app's MCP endpoint: the composed loopback URL and the token (never shown)."""

    url: str
    token: str = field(repr=False)
    pid: int = 0

    running = True

    @property
    def key(self) -> tuple[str, str, int]:
        """What makes two observations the same endpoint (a new port, token or pid is not)."""
        return (self.url, self.token, self.pid)

    def as_dict(self) -> dict[str, object]:
        return {"url": self.url, "pid": self.pid, "token": "<redacted>" if self.token else ""}


@dataclass(frozen=True)
class NotRunning:
    """The app is not running, or its runtime file cannot be used: *reason* says why (no
    secret in it)."""

    reason: str
    running = False

    @property
    def key(self) -> None:
        return None


Observation = LiveEndpoint | NotRunning


def liveness_app(decl: Declaration | None, os_name: str | None = None) -> AppDef | None:
    """The declaration's app block for this OS when it has ``liveness: server_json``."""
    if decl is None:
        return None
    app = decl.app_for(os_name or os_family())
    if app is None or app.liveness_kind != "server_json" or not app.liveness_path:
        return None
    return app


def has_liveness(decl: Declaration | None) -> bool:
    """Whether *decl* has ``liveness: server_json`` for this OS."""
    return liveness_app(decl) is not None


def live_endpoint(
    server: str, decl: Declaration | None = None, host: Host | None = None
) -> Observation | None:
    """Where *server*'s declared app serves now (``None``: its declaration has no liveness on
    this OS).  *decl* defaults to the registered declaration, *host* to the platform's."""
    if decl is None:
        decl = declared.lookup(server)
    app = liveness_app(decl)
    if app is None:
        return None
    return read_endpoint(app, host or current_host())


def read_endpoint(app: AppDef, host: Host) -> Observation:
    """Read *app*'s runtime file on *host*: see the module docstring for what is refused."""
    ctx = LocateContext(app.os_family, host)
    path = ctx.expand(app.liveness_path)
    if not ctx.is_absolute(path):
        return NotRunning("its runtime file's path does not expand to an absolute path")
    if not host.exists(path):
        return NotRunning("no runtime file (the app is not running)")
    if _is_link(host, path):
        return NotRunning("its runtime file is a symbolic link; refused")
    if not host.is_file(path):
        return NotRunning("its runtime file is not a regular file; refused")
    try:
        size = host.file_size(path)
        if size > MAX_RUNTIME_FILE:
            return NotRunning(f"its runtime file is over {MAX_RUNTIME_FILE} bytes; refused")
        raw = host.read_range(path, 0, MAX_RUNTIME_FILE + 1)
    except OSError:
        return NotRunning("its runtime file could not be read")
    if len(raw) > MAX_RUNTIME_FILE:
        return NotRunning(f"its runtime file is over {MAX_RUNTIME_FILE} bytes; refused")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return NotRunning("its runtime file is not JSON (being written, or damaged)")
    if not isinstance(data, dict):
        return NotRunning("its runtime file is not a JSON object")
    pid = data.get(app.liveness_pid_key)
    if type(pid) is not int or not 0 < pid <= _MAX_PID:
        return NotRunning(f"its runtime file has no valid '{app.liveness_pid_key}'")
    if pid == os.getpid():
        return NotRunning(f"its runtime file names this process (pid {pid}); refused")
    if not host.pid_alive(pid):
        return NotRunning(f"process {pid} named by its runtime file is not running")
    url = data.get(app.liveness_url_key)
    composed = compose_endpoint(url if isinstance(url, str) else "", app.endpoint_path)
    if composed.state != "present" or composed.value is None:
        return NotRunning(f"its runtime file's '{app.liveness_url_key}': {composed.detail}")
    token = data.get(app.liveness_token_key)
    if token is None:
        token = ""
    if not isinstance(token, str) or len(token) > _MAX_TOKEN or not _header_safe(token):
        return NotRunning(f"its runtime file's '{app.liveness_token_key}' is not a usable token")
    return LiveEndpoint(composed.value, token, pid)


def _header_safe(token: str) -> bool:
    return all(0x21 <= ord(ch) <= 0x7E for ch in token)


def _is_link(host: Host, path: str) -> bool:
    is_link = getattr(host, "is_link", None)
    return bool(is_link(path)) if callable(is_link) else False
