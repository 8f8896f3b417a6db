"""A server's log as the host keeps it: the last lines of its stderr (and HTTP notes), bounded.

Each connection used to keep the whole of a server's stderr in a temporary file
that grew for as long as the host ran (a 50 MB line became a 52-million-character
``last_error``).  :class:`ServerLog` keeps at most :data:`MAX_LINES` lines and
:data:`MAX_CHARS` characters (each line at most :data:`MAX_LINE_CHARS`) and
forgets the oldest.  It offers the small file-like surface transports use:
``write``, ``flush`` and positions (``seek(0, 2)`` gives the end, ``seek(mark)``
then ``read()`` what was written since *mark*, as far as it is still kept).

The text is only ever shown (the tail of a failed server's stderr), never interpreted: what
our transports note about the server travels beside it as records, in :attr:`ServerLog.diagnostics`
(see :mod:`hermes_core.host.connection.diagnostics`).
"""

from __future__ import annotations

import io
from collections import deque

from hermes_core.host.connection.diagnostics import Diagnostics

__all__ = ["MAX_CHARS", "MAX_LINES", "MAX_LINE_CHARS", "ServerLog"]

MAX_LINES = 200
MAX_CHARS = 64 * 1024
MAX_LINE_CHARS = 4096


class ServerLog(io.TextIOBase):
    """The bounded tail of a server's stderr; see the module docstring."""

    def __init__(self, diagnostics: Diagnostics | None = None) -> None:
        self.diagnostics = diagnostics if diagnostics is not None else Diagnostics()
        """The connection's records (HTTP errors, our transports' notes)."""
        self._lines: deque[tuple[int, str]] = deque()  # (position, line with its "\n")
        self._chars = 0
        self._partial = ""
        self.end = 0
        """The position after the last whole line written (``seek(0, 2)`` without the call)."""
        self._position = 0
        self._closed = False

    # -- writing ------------------------------------------------------------------------------
    def write(self, text: str) -> int:
        if self._closed:
            raise ValueError("write to a closed server log")
        written = len(text)
        start = 0
        while True:
            end = text.find("\n", start)
            if end < 0:
                room = max(0, MAX_LINE_CHARS - len(self._partial))
                self._partial += text[start:][:room]
                break
            piece = (self._partial + text[start:end])[:MAX_LINE_CHARS]
            self._partial = ""
            self._keep(piece + "\n")
            start = end + 1
        return written

    def _keep(self, line: str) -> None:
        self._lines.append((self.end, line))
        self.end += len(line)
        self._chars += len(line)
        while self._lines and (len(self._lines) > MAX_LINES or self._chars > MAX_CHARS):
            _, dropped = self._lines.popleft()
            self._chars -= len(dropped)

    def flush(self) -> None:
        """Nothing to flush: it lives in memory."""

    # -- reading ------------------------------------------------------------------------------
    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        self._position = self.end if whence == 2 else max(0, int(offset))
        return self._position

    def tell(self) -> int:
        return self._position

    def read(self, size: int | None = -1) -> str:
        text = "".join(line for position, line in self._lines if position >= self._position)
        if self._partial and self.end >= self._position:
            text += self._partial
        self._position = self.end
        return text

    def fileno(self) -> int:
        raise io.UnsupportedOperation("a server log has no file descriptor")

    def close(self) -> None:
        self._closed = True
        self._lines.clear()
        self._partial = ""
        self._chars = 0

    @property
    def closed(self) -> bool:
        return self._closed
