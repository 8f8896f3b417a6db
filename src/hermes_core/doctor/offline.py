"""What doctor can tell about a server without connecting it: its config entry, its runner, its
``${VAR}`` references, its declared app, its OAuth token and its pins waiting for review.
Everything here reads; nothing is written or started."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from hermes_core.auth.storage import token_path
from hermes_core.config.interpolate import CONTEXT_VARIABLES
from hermes_core.config.loader import LoadedConfig
from hermes_core.doctor.app_state import app_findings
from hermes_core.doctor.findings import ServerReport, Severity
from hermes_core.doctor.pins import waiting_reviews
from hermes_core.host.server_spec import HostServer
from hermes_core.regular_files import read_regular
from hermes_platform import declared
from hermes_platform.runners import missing_runner

__all__ = ["offline_report"]

_REFERENCE = re.compile(r"\$\$\{|\$\{([^}]*)\}")
_MAX_TOKEN_FILE = 1024 * 1024
_MAX_VALUES = 1000


def offline_report(
    name: str,
    raw: Mapping[str, object],
    server: HostServer | None,
    loaded: LoadedConfig,
    *,
    home: Path,
    environ: Mapping[str, str],
    dotenv: Mapping[str, str],
) -> ServerReport:
    """The findings about server *name* (*raw*: its entry as written; *server*: as the host
    would run it, ``None`` when the entry does not validate)."""
    transport = server.transport if server is not None else _transport_of(raw)
    enabled = raw.get("enabled", True) is not False
    report = ServerReport(name, transport, enabled)
    line = loaded.line_of(f"mcp_servers.{name}")
    where = f"{loaded.path}" + (f" line {line}" if line else "")
    if not enabled:
        report.connection = "disabled"
        report.may_connect = False
        report.add(
            "enabled", Severity.WARNING, "disabled in config.yaml", f"hermes mcp enable {name}"
        )
    _config(report, loaded, server, where)
    _variables(report, raw, environ, dotenv)
    if server is not None and server.transport == "stdio" and server.command:
        _runner(report, server.command, environ)
    decl = declared.lookup(name)
    if decl is not None:
        app_findings(report, decl, server.display_name if server else None)
    if raw.get("auth") == "oauth":
        _oauth(report, home, server.url if server is not None else raw.get("url"))
    _pins(report, home)
    return report


def _transport_of(raw: Mapping[str, object]) -> str:
    transport = raw.get("transport")
    if isinstance(transport, str):
        return transport
    return "streamable_http" if "url" in raw else "stdio"


def _config(
    report: ServerReport, loaded: LoadedConfig, server: HostServer | None, where: str
) -> None:
    prefix = f"mcp_servers.{report.server}"
    errors = [
        e
        for e in loaded.errors
        if e.key == prefix or e.key.startswith((f"{prefix}.", f"{prefix}["))
    ] + [e for n, e in loaded.unavailable if n == report.server]
    for error in errors:
        report.add("config", Severity.PROBLEM, str(error), f"fix the entry in {where}")
    if errors:
        return
    if server is None:
        report.add(
            "config",
            Severity.PROBLEM,
            f"{prefix} is not a valid entry",
            f"fix the entry in {where}",
        )
    elif server.config_error is not None and " is not set (" not in server.config_error:
        report.add("config", Severity.PROBLEM, server.config_error, f"fix the entry in {where}")


def _strings(value: object, depth: int = 0) -> Iterator[str]:
    if depth > 16:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in list(value.values())[:_MAX_VALUES]:
            yield from _strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value[:_MAX_VALUES]:
            yield from _strings(item, depth + 1)


def _variables(
    report: ServerReport,
    raw: Mapping[str, object],
    environ: Mapping[str, str],
    dotenv: Mapping[str, str],
) -> None:
    unset: list[str] = []
    for text in _strings(raw):
        for match in _REFERENCE.finditer(text):
            inner = match.group(1)
            if inner is None or inner in CONTEXT_VARIABLES or ":-" in inner:
                continue
            variable = inner.strip().removeprefix("env:").strip()
            known = variable in environ or variable in dotenv
            if variable and not known and variable not in unset:
                unset.append(variable)
    for variable in unset:
        report.add(
            "variables",
            Severity.PROBLEM,
            f"${{{variable}}} is not set (not in the environment or $HERMES_HOME/.env)",
            f"add {variable}=… to $HERMES_HOME/.env (or export it), then run doctor again",
        )


def _runner(report: ServerReport, command: str, environ: Mapping[str, str]) -> None:
    missing = missing_runner(command, env=environ)
    if missing is not None:
        report.add("runner", Severity.PROBLEM, missing.sentence, missing.how)
        return
    found = shutil.which(command, path=environ.get("PATH")) or command
    report.add("runner", Severity.OK, f"{command} found ({found})")


def _oauth(report: ServerReport, home: Path, url: object) -> None:
    name = report.server
    login = f"hermes mcp login {name}"
    try:
        data = json.loads(read_regular(token_path(home, name), _MAX_TOKEN_FILE, follow_links=False))
    except FileNotFoundError:
        report.add("auth", Severity.PROBLEM, "OAuth: not signed in (no token)", login)
        return
    except (OSError, ValueError):
        report.add("auth", Severity.PROBLEM, "OAuth: the token file cannot be read", login)
        return
    tokens = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(tokens, dict) or not isinstance(tokens.get("access_token"), str):
        report.add("auth", Severity.PROBLEM, "OAuth: not signed in (no token)", login)
        return
    saved_for = data.get("server_url")
    if (
        isinstance(saved_for, str)
        and isinstance(url, str)
        and saved_for.rstrip("/") != url.rstrip("/")
    ):
        report.add("auth", Severity.PROBLEM, "OAuth: the token was saved for another URL", login)
        return
    refreshable = isinstance(tokens.get("refresh_token"), str)
    expires = data.get("expires_at")
    if isinstance(expires, int | float) and expires <= time.time():
        if refreshable:
            # Refreshing writes the token file: doctor leaves it to the next real connection.
            report.add(
                "auth",
                Severity.WARNING,
                "OAuth: the token expired; it is refreshable (Hermes refreshes it on the "
                "next connection)",
                None,
            )
        else:
            report.add(
                "auth", Severity.PROBLEM, "OAuth: the token expired and cannot be refreshed", login
            )
        report.may_connect = False
        return
    left = (
        f", expires in {int(expires - time.time())} s" if isinstance(expires, int | float) else ""
    )
    more = "; refreshable" if refreshable else ""
    report.add("auth", Severity.OK, f"OAuth: token present{left}{more}")


def _pins(report: ServerReport, home: Path) -> None:
    waiting = waiting_reviews(home, report.server)
    if waiting is None:
        report.add(
            "pins", Severity.WARNING, "trust.db cannot be read", f"hermes mcp trust {report.server}"
        )
    elif waiting:
        shown = ", ".join(waiting[:5]) + (" …" if len(waiting) > 5 else "")
        report.add(
            "pins",
            Severity.PROBLEM,
            f"{len(waiting)} changed tool definition(s) waiting for review: {shown}",
            f"hermes mcp trust {report.server}",
        )
