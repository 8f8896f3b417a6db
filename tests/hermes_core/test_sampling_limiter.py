"""The sliding-window limiter against a reference model, on a fake clock (Hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hermes_core.sampling.limiter import SlidingWindowLimiter


def reference(limit: int, window: float, times: list[float]) -> list[bool]:
    """Admit a request when fewer than *limit* admitted ones lie in (now - window, now]."""
    admitted: list[float] = []
    answers = []
    for now in times:
        recent = [t for t in admitted if now - t < window]
        ok = len(recent) < limit
        if ok:
            admitted.append(now)
        answers.append(ok)
    return answers


@given(
    limit=st.integers(min_value=1, max_value=12),
    window=st.sampled_from([1.0, 5.0, 60.0]),
    steps=st.lists(st.floats(min_value=0, max_value=30, allow_nan=False), max_size=80),
)
def test_the_limiter_admits_exactly_what_the_reference_admits(
    limit: int, window: float, steps: list[float]
) -> None:
    now = [0.0]
    limiter = SlidingWindowLimiter(limit, window, clock=lambda: now[0])
    times, answers = [], []
    for step in steps:
        now[0] += step
        times.append(now[0])
        answers.append(limiter.acquire())
        assert limiter.in_window() <= limit
    assert answers == reference(limit, window, times)


def test_eleven_in_a_minute_then_the_window_slides() -> None:
    now = [0.0]
    limiter = SlidingWindowLimiter(10, 60.0, clock=lambda: now[0])
    assert [limiter.acquire() for _ in range(11)] == [True] * 10 + [False]
    assert limiter.retry_after() == 60.0
    now[0] = 59.999
    assert not limiter.acquire()
    now[0] = 60.0
    assert limiter.acquire()
