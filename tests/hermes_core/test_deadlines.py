"""The connection's deadline queue: one loop timer for all of a connection's requests."""

from __future__ import annotations

import asyncio

import pytest

from hermes_core.host.connection.deadlines import Deadlines


async def _waiter(gate: asyncio.Event) -> str:
    try:
        await gate.wait()
    except asyncio.CancelledError:
        return "cancelled"
    return "answered"


def test_a_deadline_that_passes_cancels_its_task_and_only_its_task() -> None:
    async def scenario() -> None:
        deadlines = Deadlines()
        answered, waiting = asyncio.Event(), asyncio.Event()
        first = asyncio.create_task(_waiter(answered))
        second = asyncio.create_task(_waiter(waiting))
        await asyncio.sleep(0)
        one = deadlines.start(first, 0.05)
        two = deadlines.start(second, 0.05)
        answered.set()
        assert await first == "answered"
        deadlines.finish(one)
        assert await second == "cancelled"  # its deadline passed
        assert two.expired and not one.expired
        deadlines.finish(two)
        deadlines.finish(two)  # again: nothing
        assert not deadlines._queue

    asyncio.run(scenario())


def test_a_shorter_timeout_than_the_requests_before_it_still_falls_first() -> None:
    async def scenario() -> None:
        deadlines = Deadlines()
        long_gate, short_gate = asyncio.Event(), asyncio.Event()
        slow = asyncio.create_task(_waiter(long_gate))
        quick = asyncio.create_task(_waiter(short_gate))
        await asyncio.sleep(0)
        long_deadline = deadlines.start(slow, 3600)
        short_deadline = deadlines.start(quick, 0.05)  # out of order: a timer of its own
        assert short_deadline.timer is not None
        assert await quick == "cancelled"
        assert short_deadline.expired and not long_deadline.expired
        long_gate.set()
        assert await slow == "answered"
        deadlines.finish(long_deadline)
        deadlines.close()

    asyncio.run(scenario())


def test_answers_behind_a_slow_request_do_not_pile_up() -> None:
    async def scenario() -> None:
        deadlines = Deadlines()
        gate = asyncio.Event()
        slow = asyncio.create_task(_waiter(gate))
        await asyncio.sleep(0)
        head = deadlines.start(slow, 3600)
        current = asyncio.current_task()
        assert current is not None
        for _ in range(10_000):
            deadlines.finish(deadlines.start(current, 3600))
        assert len(deadlines._queue) <= 200  # compacted, not 10,001
        assert deadlines._queue[0] is head
        gate.set()
        await slow
        deadlines.finish(head)
        assert not deadlines._queue
        deadlines.close()
        assert deadlines._timer is None

    asyncio.run(scenario())


@pytest.mark.parametrize("count", [1, 50])
def test_every_deadline_in_a_burst_passes(count: int) -> None:
    async def scenario() -> None:
        deadlines = Deadlines()
        gate = asyncio.Event()
        tasks = [asyncio.create_task(_waiter(gate)) for _ in range(count)]
        await asyncio.sleep(0)
        started = [deadlines.start(task, 0.02 + i * 0.001) for i, task in enumerate(tasks)]
        assert await asyncio.gather(*tasks) == ["cancelled"] * count
        assert all(d.expired for d in started)
        for d in started:
            deadlines.finish(d)
        assert not deadlines._queue

    asyncio.run(scenario())


def test_a_short_deadline_after_a_long_one_was_answered_arms_the_timer_for_itself() -> None:
    async def scenario() -> None:
        deadlines = Deadlines()
        current = asyncio.current_task()
        assert current is not None
        deadlines.finish(deadlines.start(current, 3600))  # a listing answered at once
        gate = asyncio.Event()
        call = asyncio.create_task(_waiter(gate))
        await asyncio.sleep(0)
        short = deadlines.start(call, 0.05)
        assert short.timer is None  # queued, not a timer of its own
        assert deadlines._timer is not None and deadlines._timer.when() <= short.when
        assert await call == "cancelled"
        assert short.expired
        deadlines.finish(short)
        deadlines.close()

    asyncio.run(scenario())
