"""Running a plugin's code: contained, described, and named when it is slow.

Every call into a plugin (its import, a hook, a locator or a GPU probe on the
fake hosts) goes through :func:`call_plugin`:

- ``SystemExit`` and ``KeyboardInterrupt`` raised by plugin code become
  :class:`PluginExit` (an ordinary ``Exception``), so a plugin calling
  ``sys.exit()`` cannot end a Hermes command silently.  Ctrl-C while a
  plugin's code runs therefore stops that plugin, not the command: it is
  reported and skipped, and the command carries on.
- A call still running after ``HERMES_PLUGIN_WAIT_NOTICE`` seconds (default 3)
  is named on stderr, once: ``hermes: waiting for plugin X, hook Y``.  One
  watchdog thread, started at the first call, sleeps on a condition until a
  call is in progress; arming it costs a lock and no thread per call.

:func:`describe` turns what a plugin raised into the text of its report,
with the file and line of the failing frame.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TypeVar

__all__ = ["PluginExit", "call_plugin", "code_origin", "describe", "failing_frame", "watching"]

T = TypeVar("T")
_DEFAULT_NOTICE_SECONDS = 3.0


class PluginExit(Exception):
    """Plugin code raised ``SystemExit`` or ``KeyboardInterrupt``; the original is ``.exc``."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(_exit_text(exc))
        self.exc = exc


def _exit_text(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})" if exc.code is not None else "called sys.exit()"
    return "raised KeyboardInterrupt (Ctrl-C, or the plugin raised it)"


def _notice_seconds() -> float:
    raw = os.environ.get("HERMES_PLUGIN_WAIT_NOTICE", "")
    try:
        value = float(raw) if raw.strip() else _DEFAULT_NOTICE_SECONDS
    except ValueError:
        return _DEFAULT_NOTICE_SECONDS
    return value if value > 0 else _DEFAULT_NOTICE_SECONDS


class _Watchdog:
    """One daemon thread that names the plugin call in progress once it runs too long."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._serial = 0
        # (serial, plugin, hook, deadline) of each call in progress, by thread.
        self._running: dict[int, tuple[int, str, str, float]] = {}
        self._thread: threading.Thread | None = None

    @contextmanager
    def watching(self, plugin: str, hook: str) -> Iterator[None]:
        me = threading.get_ident()
        with self._cond:
            outer = self._running.get(me)
            self._serial += 1
            self._running[me] = (self._serial, plugin, hook, time.monotonic() + _notice_seconds())
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="hermes-plugin-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify()
        try:
            yield
        finally:
            with self._cond:
                if outer is None:
                    self._running.pop(me, None)
                else:
                    self._running[me] = outer

    def _watch(self) -> None:
        announced: set[int] = set()
        with self._cond:
            while True:
                waiting = [c for c in self._running.values() if c[0] not in announced]
                if not waiting:
                    announced &= {c[0] for c in self._running.values()}
                    self._cond.wait()
                    continue
                serial, plugin, hook, deadline = min(waiting, key=lambda c: c[3])
                remaining = deadline - time.monotonic()
                if remaining > 0:
                    self._cond.wait(remaining)
                    continue
                announced.add(serial)
                what = "importing it" if hook == "import" else f"hook {hook}"
                advice = f"HERMES_DISABLE_PLUGINS={plugin} skips it"
                try:
                    sys.stderr.write(f"hermes: waiting for plugin {plugin}, {what} ({advice})\n")
                    sys.stderr.flush()
                except (OSError, ValueError):  # stderr closed: nothing to tell
                    pass


_WATCHDOG = _Watchdog()


def watching(plugin: str, hook: str) -> AbstractContextManager[None]:
    """Context manager: name *plugin* and *hook* on stderr if the block runs too long."""
    return _WATCHDOG.watching(plugin, hook)


def call_plugin(plugin: str, hook: str, function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` under the watchdog; SystemExit/KeyboardInterrupt become PluginExit."""
    with _WATCHDOG.watching(plugin, hook):
        try:
            return function(*args)
        except (SystemExit, KeyboardInterrupt) as exc:
            raise PluginExit(exc) from None


def code_origin(code: object) -> tuple[str, ...]:
    """The files of the distribution-level package that *code* (a function) belongs to:
    the package's folders, or the module's file for a top-level module."""
    name = getattr(code, "__module__", None)
    module = sys.modules.get(name.split(".")[0]) if isinstance(name, str) else None
    if module is None:
        return ()
    folders = getattr(module, "__path__", None)
    if folders is not None:
        return tuple(os.path.join(os.path.abspath(f), "") for f in folders)
    file = getattr(module, "__file__", None)
    return (os.path.abspath(file),) if isinstance(file, str) else ()


def failing_frame(exc: BaseException, within: tuple[str, ...] = ()) -> str | None:
    """``file:line`` of the frame that failed (for a SyntaxError, of the bad line).

    The innermost frame inside *within* (the plugin's own files) wins, so a
    failure deep in a library still points at the plugin's line that called it.
    """
    if isinstance(exc, PluginExit):
        exc = exc.exc
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return f"{exc.filename}:{exc.lineno}"
    here = os.path.abspath(__file__)
    innermost: str | None = None
    own: str | None = None
    for frame, line in traceback.walk_tb(exc.__traceback__):
        filename = frame.f_code.co_filename
        path = os.path.abspath(filename)
        if filename.startswith("<") or path == here:
            continue  # <frozen importlib._bootstrap>, exec'd strings, this module
        innermost = f"{filename}:{line}"
        if any(path == w or path.startswith(w) for w in within):
            own = innermost
    return own or innermost


def describe(exc: BaseException, *, verb: str = "raised ", within: tuple[str, ...] = ()) -> str:
    """What a plugin did wrong, with where: ``raised ValueError: bad (at /x/plugin.py:12)``
    (``verb=""`` leaves out the ``raised``; an exit reads ``called sys.exit(3)`` either way)."""
    text = str(exc) if isinstance(exc, PluginExit) else f"{verb}{type(exc).__name__}: {exc}"
    where = failing_frame(exc, within)
    return f"{text} (at {where})" if where else text
