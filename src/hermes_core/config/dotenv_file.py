"""Write values into ``$HERMES_HOME/.env``: atomic, mode 0600, every other line kept.

A key already assigned has its (last, effective) assignment replaced where it
stands — an ``export`` prefix and the line's place are kept; a new key is
appended.  Comments, blank lines, other keys and their quoting are kept byte for
byte.  The file is written through a temporary file and ``os.replace`` under the
same advisory lock as ``config.yaml`` edits, and is always left with mode 0600
(it holds secrets).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from hermes_core.config.atomic_file import atomic_write, ensure_dir, locked
from hermes_core.config.errors import ConfigError
from hermes_core.config.interpolate import dotenv_entries
from hermes_core.config.loader import hermes_home

__all__ = ["dotenv_path", "update_dotenv"]

_PLAIN = re.compile(r"[A-Za-z0-9_./:@+,=-]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def dotenv_path() -> Path:
    """``$HERMES_HOME/.env``."""
    return hermes_home() / ".env"


def _quoted(value: str) -> str:
    if _PLAIN.fullmatch(value):
        return value
    escaped = (
        value.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("$", "\\$")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f'"{escaped}"'


def _spans(text: str) -> dict[str, tuple[int, int]]:
    """Each key's last assignment: (start of its value, end of its value)."""
    return {entry.key: (entry.start, entry.end) for entry in dotenv_entries(text)}


def update_dotenv(values: Mapping[str, str], path: str | os.PathLike[str] | None = None) -> None:
    """Set *values* in the ``.env`` file (default ``$HERMES_HOME/.env``)."""
    target = Path(os.path.realpath(Path(path) if path is not None else dotenv_path()))
    label = str(target)
    for name, value in values.items():
        if not _NAME.fullmatch(name):
            raise ConfigError("is not a valid variable name", path=label, key=name)
        if "\x00" in value:
            raise ConfigError("the value holds a NUL character", path=label, key=name)
    ensure_dir(target.parent)
    with locked(target, label):
        try:
            text = target.read_bytes().decode("utf-8-sig")
        except FileNotFoundError:
            text = ""
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            raise ConfigError(f"cannot read the file: {reason}", path=label) from None
        spans = _spans(text)
        edits = sorted(
            ((spans[k], _quoted(v)) for k, v in values.items() if k in spans), reverse=True
        )
        for (start, end), shown in edits:
            text = text[:start] + shown + text[end:]
        added = [f"{k}={_quoted(v)}" for k, v in values.items() if k not in spans]
        if added:
            if text and not text.endswith("\n"):
                text += "\n"
            text += "\n".join(added) + "\n"
        atomic_write(target, text.encode("utf-8"), 0o600)
