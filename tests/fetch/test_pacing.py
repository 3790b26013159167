"""Pacing arithmetic and the origin gate, with a fake clock (no real sleeping)."""

from __future__ import annotations

import email.utils
import random
import threading

import pytest

from anchorpath._errors import DeadlineExceeded
from anchorpath.fetch.pacing import (
    OriginGate,
    PacingPolicy,
    backoff_delay,
    next_delay,
    parse_retry_after,
)

POLICY = PacingPolicy(min_delay=2.0, delay_factor=5.0, max_delay=30.0)


@pytest.mark.parametrize(
    ("response_time", "crawl_delay", "expected"),
    [
        (0.1, None, 2.0),  # min delay
        (1.0, None, 5.0),  # factor x response time
        (10.0, None, 30.0),  # capped
        (0.1, 4.0, 4.0),  # Crawl-delay as a floor
        (0.1, 1.0, 2.0),  # never below our minimum
        (10.0, 45.0, 45.0),  # the site's explicit request beats our cap
    ],
)
def test_next_delay(response_time: float, crawl_delay: float | None, expected: float) -> None:
    assert next_delay(response_time, POLICY, crawl_delay=crawl_delay) == expected


def test_never_lowered_after_non_2xx() -> None:
    assert next_delay(0.1, POLICY, previous=20.0, ok=False) == 20.0
    assert next_delay(0.1, POLICY, previous=20.0, ok=True) == 2.0


def test_backoff_full_jitter_bounds() -> None:
    rng = random.Random(1)
    values = [backoff_delay(3, 1.0, 60.0, rng) for _ in range(200)]
    assert all(0.0 <= v <= 4.0 for v in values) and max(values) > 3.0
    assert all(backoff_delay(20, 1.0, 60.0, rng) <= 60.0 for _ in range(50))


def test_parse_retry_after() -> None:
    now = 1_700_000_000.0
    assert parse_retry_after("120", now) == 120.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now) == pytest.approx(30.0, abs=1.0)
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now) == 0.0
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None
    assert parse_retry_after("-5", now) is None


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_gate_paces_and_records() -> None:
    clock = FakeClock()
    gate = OriginGate("http://h:80", POLICY, clock=clock, sleep=clock.sleep)
    with gate.hold(1e9, "u"):
        with gate.turn(1e9, "u") as ticket:
            assert ticket.waited == 0
            clock.now += 1.0  # a 1 s response
            ticket.record(started=clock.now - 1.0, ended=clock.now, ok=True)
        assert gate.next_allowed_at == clock.now + 5.0
        with gate.turn(1e9, "u") as ticket:
            assert ticket.waited == pytest.approx(5.0) and ticket.wait_reason == "pacing"
            ticket.record(started=clock.now, ended=clock.now, ok=True)


def test_gate_deadline_raises_without_sleeping() -> None:
    clock = FakeClock()
    gate = OriginGate("http://h:80", POLICY, clock=clock, sleep=clock.sleep)
    gate.defer(clock.now + 3600, "retry-after")
    with (
        gate.hold(1e9, "u"),
        pytest.raises(DeadlineExceeded, match="retry-after"),
        gate.turn(clock.now + 60, "u"),
    ):
        pass
    assert clock.slept == []


def test_gate_unrecorded_request_still_paced() -> None:
    clock = FakeClock()
    gate = OriginGate("http://h:80", POLICY, clock=clock, sleep=clock.sleep)
    with gate.hold(1e9, "u"), pytest.raises(RuntimeError), gate.turn(1e9, "u"):
        raise RuntimeError("boom")
    assert gate.next_allowed_at >= clock.now + POLICY.min_delay


def test_turn_requires_hold() -> None:
    clock = FakeClock()
    gate = OriginGate("http://h:80", POLICY, clock=clock, sleep=clock.sleep)
    with pytest.raises(RuntimeError, match="outside hold"), gate.turn(1e9, "u"):
        pass


def test_hold_is_exclusive_across_threads() -> None:
    gate = OriginGate("http://h:80", POLICY, clock=lambda: 0.0, sleep=lambda s: None)
    inside = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with gate.hold(1e9, "u"):
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    inside.wait(5)
    import time

    other = OriginGate("x", POLICY, clock=time.monotonic, sleep=time.sleep)
    other._lock = gate._lock  # same lock, real clock, so the deadline can pass
    with pytest.raises(DeadlineExceeded, match="busy"), other.hold(time.monotonic() + 0.1, "u"):
        pass
    release.set()
    thread.join()
