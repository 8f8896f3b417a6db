"""Where a registry or bundle install came from: ``$HERMES_HOME/installs/NAME.json``.

``hermes mcp update`` reads these to find a newer version; ``install`` writes one after the
entry is in ``config.yaml``, with the app declaration the ``server.json`` or bundle carried
(the built-in plugin :mod:`hermes_core.builtin.installed_apps` registers it in every process,
as a plugin's; ``hermes mcp remove`` forgets the record).  A record is of our own making,
never an authority for where a server came from: it is used only while ``mcp_servers.NAME``
exists, and a record that is not plainly ours is ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from hermes_core.builtin.installed_apps import RECORD_FORMAT, RECORD_MAX_BYTES, records_folder
from hermes_core.json_records import read_record, write_record

__all__ = [
    "InstallRecord",
    "forget_record",
    "load_record",
    "records",
    "replaced_entry",
    "save_record",
]

_FORMAT = RECORD_FORMAT
_MAX_BYTES = RECORD_MAX_BYTES


@dataclass(frozen=True)
class InstallRecord:
    name: str
    """The ``mcp_servers`` key."""
    kind: str
    """``registry`` or ``bundle`` (a ``.mcpb`` file or URL given directly)."""
    version: str
    package: str
    """``npm``, ``pypi``, ``oci``, ``mcpb`` or ``remote``."""
    server: str = ""
    """The registry's server name (``io.github.acme/weather``)."""
    registry: str = ""
    """The registry's base URL."""
    source: str = ""
    """The bundle's file or URL (``kind: bundle``)."""
    sha256: str = ""
    declaration: Mapping[str, object] | None = field(default=None, compare=False)
    """The app declaration from ``_meta`` (``{"app": …, "requires": …}``), as written."""


def _folder() -> Path:
    return records_folder()


def save_record(record: InstallRecord) -> None:
    write_record(_folder() / f"{record.name}.json", {"format": _FORMAT, **asdict(record)})


def forget_record(name: str) -> None:
    """Remove the record of *name* (its server was removed); an absent one is not an error."""
    path = _folder() / f"{name}.json"
    with contextlib.suppress(OSError):
        path.unlink()


def load_record(name: str) -> InstallRecord | None:
    data = read_record(
        _folder() / f"{name}.json", format=_FORMAT, key_field="name", expected=name,
        max_bytes=_MAX_BYTES,
    )  # fmt: skip
    if data is None:
        return None
    declaration = data.get("declaration")
    fields = {k: data.get(k) for k in InstallRecord.__dataclass_fields__ if k != "declaration"}
    if not all(isinstance(v, str) for v in fields.values()):
        return None
    if declaration is not None and not isinstance(declaration, dict):
        return None
    return InstallRecord(**fields, declaration=declaration)  # type: ignore[arg-type]


def records() -> list[InstallRecord]:
    """Every readable record, by name."""
    try:
        names = sorted(p.stem for p in _folder().glob("*.json") if p.is_file())
    except OSError:
        return []
    found = [load_record(name) for name in names]
    return [r for r in found if r is not None]


def replaced_entry(
    configured: Mapping[str, object], name: str, origin: str
) -> dict[str, object] | None:
    """The configured entry *name* when an install from *origin* (the registry server name or
    the bundle's name) may replace it, ``None`` when there is none; ``ValueError`` when an
    entry of that name came from elsewhere."""
    previous = configured.get(name)
    if previous is None:
        return None
    record = load_record(name)
    if record is None or record.server != origin:
        raise ValueError(
            f"mcp_servers.{name} already exists and was not installed from {origin}: "
            "choose another name with --name, or remove it first"
        )
    return previous if isinstance(previous, dict) else {}
