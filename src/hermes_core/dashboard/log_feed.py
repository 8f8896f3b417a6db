"""The Log pane's feed: the servers' log messages (``notifications/message``, which the host
sends to the loggers ``hermes.mcp.<server>``) and the changes of the tool list (each server's
tools added and removed), newest last, each with a sequence number the page polls after.

The dashboard asks for every level (the host drops messages below the logger's level; a
terminal's ``hermes`` keeps its own).  The lines are already cleaned and bounded by
:mod:`hermes_core.host.server_notifications`; the feed keeps the last :data:`KEEP`."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import TypedDict

from hermes_core.host.tools.registry import ToolRegistry

__all__ = ["KEEP", "LogFeed", "LogLine"]

#: How many lines the pane can show.
KEEP = 500
#: How many names one list-change line names.
_NAMED = 20
_PARENT = "hermes.mcp"


class LogLine(TypedDict):
    """One line of the pane (sent to the page as JSON)."""

    seq: int
    time: str
    kind: str
    server: str
    level: str
    text: str


class _Handler(logging.Handler):
    def __init__(self, feed: LogFeed) -> None:
        super().__init__(logging.DEBUG)
        self.feed = feed

    def emit(self, record: logging.LogRecord) -> None:
        try:
            server = record.name.removeprefix(_PARENT + ".")
            self.feed.add("log", server, record.levelname.lower(), record.getMessage())
        except Exception:  # noqa: BLE001 - a display must never break logging
            self.handleError(record)


class LogFeed:
    """The lines of the Log pane (thread-safe: log records come from any thread)."""

    def __init__(self) -> None:
        self._lines: deque[LogLine] = deque(maxlen=KEEP)
        self._seq = 0
        self._lock = threading.Lock()
        self._handler = _Handler(self)
        self._known: dict[str, set[str]] = {}
        self._level: int | None = None

    def __repr__(self) -> str:
        return f"LogFeed({len(self._lines)} lines)"

    @property
    def last(self) -> int:
        return self._seq

    def add(self, kind: str, server: str, level: str, text: str) -> None:
        with self._lock:
            self._seq += 1
            self._lines.append(
                {
                    "seq": self._seq,
                    "time": time.strftime("%H:%M:%S"),
                    "kind": kind,
                    "server": server,
                    "level": level,
                    "text": text.removeprefix("MCP server log "),
                }
            )

    def after(self, seq: int) -> list[LogLine]:
        with self._lock:
            return [line for line in self._lines if line["seq"] > seq]

    def attach(self, registry: ToolRegistry) -> None:
        """Follow the servers' loggers and *registry*'s changes."""
        parent = logging.getLogger(_PARENT)
        self._level = parent.level
        parent.setLevel(logging.DEBUG)
        parent.addHandler(self._handler)
        self._known = self._names(registry)
        registry.add_listener(lambda: self._changed(registry))

    def detach(self) -> None:
        parent = logging.getLogger(_PARENT)
        parent.removeHandler(self._handler)
        if self._level is not None:
            parent.setLevel(self._level)

    @staticmethod
    def _names(registry: ToolRegistry) -> dict[str, set[str]]:
        names: dict[str, set[str]] = {}
        for entry in registry.snapshot():
            names.setdefault(entry.server, set()).add(entry.tool)
        return names

    def _changed(self, registry: ToolRegistry) -> None:
        now = self._names(registry)
        for server in sorted(set(now) | set(self._known)):
            added = sorted(now.get(server, set()) - self._known.get(server, set()))
            gone = sorted(self._known.get(server, set()) - now.get(server, set()))
            said = [
                f"{word} {', '.join(names[:_NAMED])}" + (" …" if len(names) > _NAMED else "")
                for word, names in (("added", added), ("removed", gone))
                if names
            ]
            if said:
                self.add("tools", server, "info", f"tools changed: {'; '.join(said)}")
        self._known = now
