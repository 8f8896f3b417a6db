"""Waiting on a connection's events without leaving a task behind."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["cancel_and_wait", "until_either", "until_stopped"]

T = TypeVar("T")


async def cancel_and_wait(task: asyncio.Future[T]) -> None:
    """Cancel *task* and wait until it has ended; its outcome is retrieved, not raised (a
    cancel of the caller itself still propagates)."""
    task.cancel()
    await asyncio.wait([task])
    if not task.cancelled():
        task.exception()  # it ended on its own meanwhile: retrieved, never "never retrieved"


async def until_either(first: asyncio.Event, second: asyncio.Event, timeout: float | None) -> None:
    """Wait until *first* or *second* is set, at most *timeout* s."""
    waiters = {asyncio.ensure_future(first.wait()), asyncio.ensure_future(second.wait())}
    try:
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:  # ended here, never left pending
        for waiter in waiters:
            await cancel_and_wait(waiter)


async def until_stopped(request: Awaitable[object], timeout: float, stop: asyncio.Event) -> None:
    """Await *request* within *timeout*; *stop* set in the meantime ends the wait at once."""
    task = asyncio.ensure_future(request)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait(
            {task, stopped}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    finally:  # both are ours to end, whatever happened (a cancel of this very wait too)
        await cancel_and_wait(stopped)
        if not task.done():
            await cancel_and_wait(task)
    if task in done:
        task.result()
        return
    if stopped in done:
        return  # closing: not a failure of the server
    raise TimeoutError
