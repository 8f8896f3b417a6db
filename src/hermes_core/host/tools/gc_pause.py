"""Registering thousands of tools without paying for the cyclic garbage collector.

Copying and repairing every input schema allocates tens of thousands of small dicts and lists.
CPython counts those allocations and, every so often, walks every tracked object in the process
(a generation-2 collection) looking for reference cycles; with a big listing in memory that walk
can cost more than the registration itself.  The registration pass creates no cycles (its values
are plain JSON trees), so :func:`paused_gc` switches the cyclic collector off for the pass and
back on after it: memory is still freed by reference counting as usual.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]

_lock = threading.Lock()
_depth = 0  # pauses in progress, in any thread
_was_enabled = True  # the collector's state before the outermost pause


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with the cyclic GC off; it is switched back on only if it was on before
    the outermost pause (nested and concurrent pauses are counted)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
