"""The legacy conversation index ``$HERMES_HOME/sessions/sessions.json`` (read only).

Older gateways kept only an index of their chats in this file: a JSON object from session
key to its details.  It is read when ``state.db`` holds no conversations.  Keys starting with
``_`` are bookkeeping and skipped; so is any entry that is not an object.  A file that is
missing, unreadable, not JSON or nested more than 64 levels deep reads as no conversations (and
says so in the log).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path

from hermes_core.nesting import json_text_depth
from hermes_core.regular_files import read_regular
from hermes_core.sessions.models import Conversation

__all__ = ["legacy_index_path", "read_legacy_index"]

log = logging.getLogger(__name__)
_MAX_BYTES = 32 * 1024 * 1024
# An index is an object of objects of plain values; far deeper is not one.  Checked on the text
# before parsing, so the answer does not depend on how deep the caller's stack is.
MAX_DEPTH = 64


def legacy_index_path(home: Path) -> Path:
    return home / "sessions" / "sessions.json"


def read_legacy_index(path: Path) -> list[Conversation]:
    """The conversations listed in *path*, most recently updated first."""
    try:
        raw = read_regular(path, _MAX_BYTES)  # a FIFO: refused at once, not waited on
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("%s: cannot read the file (%s)", path, exc.strerror or type(exc).__name__)
        return []
    if len(raw) > _MAX_BYTES:
        log.warning("%s: larger than %d bytes; not read", path, _MAX_BYTES)
        return []
    try:
        text = raw.decode("utf-8-sig")
        if json_text_depth(text) > MAX_DEPTH:
            log.warning("%s: nested more than %d levels deep; not read", path, MAX_DEPTH)
            return []
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        log.warning("%s: not valid JSON (%s)", path, type(exc).__name__)
        return []
    if not isinstance(data, dict):
        log.warning("%s: expected a JSON object of sessions", path)
        return []
    found = [
        _conversation(str(key), entry)
        for key, entry in data.items()
        if not str(key).startswith("_") and isinstance(entry, dict)
    ]
    found.sort(key=lambda c: c.updated_at, reverse=True)
    return found


def _conversation(key: str, entry: dict[str, object]) -> Conversation:
    updated = _time(entry.get("updated_at"))
    return Conversation(
        session_key=key,
        platform=_text(entry.get("platform")),
        chat_id=_text(entry.get("chat_id") or entry.get("session_id")),
        chat_type=_text(entry.get("chat_type")),
        title=_text(entry.get("display_name") or entry.get("chat_name")),
        user_name=_text(entry.get("user_name")),
        created_at=_time(entry.get("created_at")) or updated,
        updated_at=updated,
        input_tokens=_count(entry.get("input_tokens")),
        output_tokens=_count(entry.get("output_tokens")),
        source="sessions.json",
    )


def _text(value: object) -> str:
    """A text field: a string, or a number written as one; anything else (a list nested a
    thousand deep, whose ``str()`` would recurse) is no text."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _time(value: object) -> float:
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):  # not a time, or one no clock reaches
        return 0.0
    return 0.0
