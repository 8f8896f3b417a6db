"""Every check of every configured server (or one), in one place: the offline checks first,
then one bounded, parallel connection attempt for those worth connecting."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.loader import LoadedConfig, hermes_home
from hermes_core.doctor.findings import ServerReport
from hermes_core.doctor.live import connect_all
from hermes_core.doctor.offline import offline_report
from hermes_core.host.setup.factory import HostFactory
from hermes_core.yaml_lines import plain

__all__ = ["DEFAULT_TIMEOUT", "diagnose"]

DEFAULT_TIMEOUT = 20.0
"""Seconds each server is given to connect."""


def diagnose(
    factory: HostFactory,
    loaded: LoadedConfig,
    names: list[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[ServerReport]:
    """One report per server of *names* (each configured in *loaded*), in that order."""
    written = loaded.tree.get("mcp_servers") if loaded.tree is not None else None
    entries: Mapping[str, object] = plain(written) if isinstance(written, dict) else {}
    environ = dict(os.environ)
    home = hermes_home(environ)
    dotenv = load_dotenv(home / ".env")
    servers = {s.name: s for s in factory.servers(loaded)}
    reports: dict[str, ServerReport] = {}
    for name in names:
        raw = entries.get(name)
        reports[name] = offline_report(
            name,
            raw if isinstance(raw, dict) else {},
            servers.get(name),
            loaded,
            home=home,
            environ=environ,
            dotenv=dotenv,
        )
    wanted = [servers[n] for n in names if n in servers and servers[n].config_error is None]
    asyncio.run(connect_all(wanted, reports, transports=factory.source.openers, timeout=timeout))
    return [reports[n] for n in names]
