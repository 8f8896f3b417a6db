"""``hermes mcp list`` on an unchanged ``config.yaml``, without validating it again.

Validating the file needs ruamel.yaml and the pydantic config models, most of ``mcp list``'s
time.  After a full validation succeeds, what the command prints (each server's row and the
file's warnings) is written to ``$HERMES_HOME/cache/mcp-list.json`` under a key: the SHA-256 of
the file's bytes, the plugins' config-name fingerprint and names
(:mod:`hermes_core.plugins.config_keys`), the file's path and this Hermes version.  A repeat
``mcp list`` whose key matches prints the record and imports neither pydantic nor ruamel.

Any change of the file's bytes, of the plugins or of Hermes changes the key, so the file is
validated in full again and an error is reported at file:line with exit 2, never hidden by a
record (only a successful validation is ever recorded).  The record is output text only: nothing
in it is trusted to decide access, connect or run anything.  A missing, unreadable, symlinked,
oversized, malformed or foreign record is a miss; it is written atomically, mode 0600.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from hermes_core import __version__
from hermes_core.cli.common import EXIT_OK, PluginLoader
from hermes_core.home import hermes_home
from hermes_core.json_records import read_record, write_record
from hermes_core.plugins import config_keys

__all__ = [
    "cache_file",
    "key_for",
    "list_recorded",
    "print_rows",
    "read",
    "remember",
    "run_recorded",
]

FORMAT = 1
_MAX_RECORD_BYTES = 4 * 1024 * 1024
_MAX_CONFIG_BYTES = 16 * 1024 * 1024  # hermes_core.config.loader._MAX_FILE_BYTES


def cache_file(home: Path) -> Path:
    return home / "cache" / "mcp-list.json"


def key_for(config: Path, digest: str, plugins: str, names: Mapping[str, object]) -> str:
    """The record's key: the file (path, SHA-256 of its bytes), the plugins' fingerprint and
    config names, this Hermes version."""
    shape = {
        "format": FORMAT,
        "hermes": __version__,
        "config": str(config),
        "digest": digest,
        "plugins": plugins,
        "names": names,
    }
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()


def file_digest(config: Path) -> str | None:
    """SHA-256 of *config*'s bytes, or None (missing, unreadable, too large: validate)."""
    try:
        with open(config, "rb") as fh:
            raw = fh.read(_MAX_CONFIG_BYTES + 1)
    except OSError:
        return None
    if len(raw) > _MAX_CONFIG_BYTES:
        return None
    return hashlib.sha256(raw).hexdigest()


def _row(value: object) -> dict[str, object] | None:
    if not isinstance(value, dict) or set(value) != {"server", "transport", "enabled", "target"}:
        return None
    if not all(isinstance(value[k], str) for k in ("server", "transport", "target")):
        return None
    if not isinstance(value["enabled"], bool):
        return None
    return value


def read(path: Path, key: str) -> tuple[str, list[dict[str, object]], list[str]] | None:
    """The recorded (config path, rows, warnings) for *key*, or None on any doubt."""
    data = read_record(
        path, format=FORMAT, key_field="key", expected=key, max_bytes=_MAX_RECORD_BYTES
    )
    if data is None:
        return None
    where, rows, warnings = data.get("path"), data.get("rows"), data.get("warnings")
    if not isinstance(where, str) or not isinstance(rows, list) or not isinstance(warnings, list):
        return None
    checked = [_row(row) for row in rows]
    if any(row is None for row in checked) or not all(isinstance(w, str) for w in warnings):
        return None
    return where, [row for row in checked if row is not None], list(warnings)


def remember(
    path: Path, key: str, where: str, rows: Sequence[Mapping[str, object]], warnings: Sequence[str]
) -> None:
    """Write the record atomically (mode 0600); a failure only costs the next run a validation."""
    payload = {
        "format": FORMAT,
        "key": key,
        "path": where,
        "rows": [dict(row) for row in rows],
        "warnings": list(warnings),
    }
    with contextlib.suppress(OSError):
        write_record(path, payload)


def print_rows(
    where: str, rows: Sequence[Mapping[str, object]], warnings: Sequence[str], *, as_json: bool
) -> None:
    """What ``mcp list`` prints, from a validation or from a record alike."""
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if as_json:
        print(json.dumps(list(rows), indent=2))
    elif not rows:
        print(f"no MCP servers configured in {where} (add one with `hermes mcp add`)")
    else:
        for row in rows:
            flag = "" if row["enabled"] else "  (disabled)"
            print(f"{row['server']}  [{row['transport']}]  {row['target']}{flag}")


def list_recorded(*, as_json: bool, no_plugins: bool) -> bool:
    """Print ``mcp list`` from its record when the file, the plugins and Hermes are unchanged;
    False (nothing printed) when the file must be validated."""
    home = hermes_home()
    plugins = config_keys.fingerprint(
        no_plugins=no_plugins, disabled=config_keys.env_list("HERMES_DISABLE_PLUGINS"), home=home
    )
    names = config_keys.recorded(home, plugins)
    if names is None:
        return False
    config = home / "config.yaml"
    digest = file_digest(config)
    if digest is None:
        return False
    found = read(cache_file(home), key_for(config, digest, plugins, names.names()))
    if found is None:
        return False
    where, rows, warnings = found
    print_rows(where, rows, warnings, as_json=as_json)
    return True


def run_recorded(args: argparse.Namespace, plugins: PluginLoader) -> int | None:
    """``hermes mcp list`` from its record; None (nothing printed) when the file must be
    validated (:func:`hermes_core.cli.mcp_list.run`)."""
    return EXIT_OK if list_recorded(as_json=args.json, no_plugins=args.no_plugins) else None
