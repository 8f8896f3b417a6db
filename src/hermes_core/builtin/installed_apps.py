"""The app declarations that came with registry and bundle installs, declared as a plugin's.

``hermes mcp install`` of a registry ``server.json`` or a ``.mcpb`` bundle that carries a
declaration under ``_meta["dev.hermes/declaration"]`` keeps it in the install record
(``$HERMES_HOME/installs/<name>.json``, :mod:`hermes_core.catalog.registry.records`); this
built-in plugin's ``declare_app`` returns it under the server's name, so the server is gated
exactly like a server a plugin declares (parsed and registered by the plugin manager; a record
whose declaration no longer parses is reported against this plugin, ``hermes plugins list``).

A record is a file of our own making, read only when it is plainly ours (a regular file, at most
:data:`RECORD_MAX_BYTES`, the format and the name it should have); the folder is listed once per
process that loads the plugins, and at most :data:`MAX_RECORDS` records are read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from hermes_core.home import hermes_home
from hermes_core.json_records import read_record
from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import AppDeclaration

__all__ = ["MAX_RECORDS", "RECORD_FORMAT", "RECORD_MAX_BYTES", "declare_app", "records_folder"]

RECORD_FORMAT = 1
RECORD_MAX_BYTES = 64 * 1024
MAX_RECORDS = 1000
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def records_folder() -> Path:
    """``$HERMES_HOME/installs``."""
    return hermes_home() / "installs"


def _names(folder: Path) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            found = [e.name[: -len(".json")] for e in entries if e.name.endswith(".json")]
    except OSError:
        return []
    return sorted(n for n in found if _NAME.fullmatch(n))[:MAX_RECORDS]


@hookimpl
def declare_app() -> Iterable[AppDeclaration]:
    folder = records_folder()
    declared: list[AppDeclaration] = []
    for name in _names(folder):
        data = read_record(
            folder / f"{name}.json",
            format=RECORD_FORMAT,
            key_field="name",
            expected=name,
            max_bytes=RECORD_MAX_BYTES,
        )
        raw = data.get("declaration") if data is not None else None
        if not isinstance(raw, dict):
            continue
        display_name = raw.get("display_name")
        declared.append(
            AppDeclaration(
                server=name,
                app=raw.get("app"),
                requires=raw.get("requires"),
                where=f"$HERMES_HOME/installs/{name}.json",
                display_name=display_name if isinstance(display_name, str) else None,
            )
        )
    return declared
