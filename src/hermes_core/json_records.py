"""Small JSON records Hermes keeps for itself under ``$HERMES_HOME/cache`` (the lazy servers'
listings, the plugins' config names, ``mcp list``'s last validation): written atomically with
mode 0600, read back only when they are plainly ours.

Standard library only and cheap to import: ``hermes mcp list`` reads a record before anything
else is loaded.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from hermes_core.regular_files import read_regular

__all__ = ["read_record", "write_record"]


def write_record(path: Path, payload: Mapping[str, object], *, ensure_ascii: bool = True) -> None:
    """Replace *path* with *payload* as JSON, atomically; the file is created 0600 (records can
    hold tool descriptions and command lines).  ``OSError`` when it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(payload, out, ensure_ascii=ensure_ascii)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_record(
    path: Path, *, format: int, key_field: str, expected: str, max_bytes: int
) -> dict[str, object] | None:
    """The JSON object in *path* when its ``format`` is *format* and its *key_field* is
    *expected*; None on any doubt: missing, a symbolic link, a FIFO or another file that is
    not regular, over *max_bytes*, not JSON, not an object, another format or key.  The caller
    still checks the shape of every other field."""
    try:
        raw = read_regular(path, max_bytes, follow_links=False)  # (a FIFO: refused at once)
    except OSError:
        return None
    try:
        if len(raw) > max_bytes:
            return None
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != format:
        return None
    if data.get(key_field) != expected:
        return None
    return data
