"""Per-origin pacing: pure delay arithmetic plus the one gate every request passes through.

The rule (Heritrix defaults, AutoThrottle's "never lower after a failure")::

    next_allowed_at = end of last request + min(max(min_delay, delay_factor * response_time),
                                                max_delay)
    ... raised to Crawl-delay when the site asks for more (a site's explicit request beats our cap)
    ... never below the previous delay after a non-2xx answer
    ... never before a server's Retry-After, or our backoff after 429/503/5xx/network errors

:class:`OriginGate` holds that state for one origin. A request may only be sent with a
:class:`Ticket` from :meth:`OriginGate.turn`, which first waits for ``next_allowed_at`` (or raises
:class:`DeadlineExceeded` without sleeping when the wait would pass the deadline) and afterwards
records when the request ended. Holding the gate (:meth:`OriginGate.hold`) keeps one request in
flight per origin.
"""

from __future__ import annotations

import email.utils
import math
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from anchorpath._errors import DeadlineExceeded

__all__ = [
    "OriginGate",
    "PacingPolicy",
    "Ticket",
    "backoff_delay",
    "next_delay",
    "parse_retry_after",
]


@dataclass(frozen=True)
class PacingPolicy:
    """Per-origin pacing knobs (seconds)."""

    min_delay: float = 2.0
    delay_factor: float = 5.0
    max_delay: float = 30.0


def next_delay(
    response_time: float,
    policy: PacingPolicy,
    *,
    crawl_delay: float | None = None,
    previous: float | None = None,
    ok: bool = True,
) -> float:
    """Seconds to wait after a request that took ``response_time`` seconds.

    ``max(min_delay, delay_factor * response_time)`` capped at ``max_delay``; a robots.txt
    ``Crawl-delay`` is a floor (even above the cap: the site asked for it). After a non-2xx
    answer (``ok=False``) the delay never drops below ``previous``.
    """
    delay = min(
        max(policy.min_delay, policy.delay_factor * max(response_time, 0.0)), policy.max_delay
    )
    delay = max(delay, policy.min_delay)  # a max_delay below min_delay must not lower the floor
    if crawl_delay is not None and crawl_delay > delay:
        delay = crawl_delay
    if not ok and previous is not None and previous > delay:
        delay = previous
    return delay


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Exponential backoff with full jitter: uniform in ``[0, min(cap, base * 2**(attempt-1))]``."""
    ceiling = min(cap, base * (2 ** max(attempt - 1, 0)))
    return rng.uniform(0.0, ceiling)


def parse_retry_after(value: str | None, now_wall: float) -> float | None:
    """``Retry-After`` (RFC 9110 §10.2.3) as seconds from now: delta-seconds or an HTTP-date.

    Returns None for a missing or unparsable value; a date in the past gives 0.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.isdigit():
        return float(int(text))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None  # HTTP-dates are always GMT; a zone-less value is not one
    return max(0.0, when.timestamp() - now_wall)


class Ticket:
    """Permission to send one request to an origin; records the request's end on the gate."""

    def __init__(self, gate: OriginGate, waited: float, reason: str | None) -> None:
        self.gate = gate
        self.waited = waited
        self.wait_reason = reason
        self.recorded = False

    def record(self, *, started: float, ended: float, ok: bool) -> None:
        """Set the origin's next allowed time from this request's timing and outcome."""
        self.gate._record(started=started, ended=ended, ok=ok)
        self.recorded = True


class OriginGate:
    """The single pacing state of one origin ``scheme://host:port``."""

    def __init__(
        self,
        origin: str,
        policy: PacingPolicy,
        *,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
    ) -> None:
        self.origin = origin
        self.policy = policy
        self.crawl_delay: float | None = None
        self.next_allowed_at = -math.inf
        self.next_reason: str = "pacing"
        self.delay: float = 0.0
        self.consecutive_429 = 0
        self._clock = clock
        self._sleep = sleep
        # Re-entrant so a robots.txt fetch can take turns while the page fetch holds the gate.
        self._lock = threading.RLock()
        self._owner: int | None = None
        self._depth = 0

    @contextmanager
    def hold(self, deadline: float, url: str) -> Iterator[None]:
        """Own the origin (one request in flight); DeadlineExceeded if not free by ``deadline``."""
        timeout = deadline - self._clock()
        if math.isinf(timeout) or timeout > 1e6:
            timeout = 1e6
        if timeout <= 0 or not self._lock.acquire(timeout=timeout):
            raise DeadlineExceeded(f"{url}: origin {self.origin} busy past the deadline", url=url)
        self._owner = threading.get_ident()
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
            self._lock.release()

    def defer(self, until: float, reason: str) -> None:
        """Push the next allowed time to ``until`` (never earlier than it already is)."""
        if until > self.next_allowed_at:
            self.next_allowed_at = until
            self.next_reason = reason

    @contextmanager
    def turn(self, deadline: float, url: str) -> Iterator[Ticket]:
        """Wait for the origin's next allowed time, then yield a :class:`Ticket` to send once."""
        if self._owner != threading.get_ident():
            raise RuntimeError(f"{self.origin}: turn() outside hold()")  # programming error
        now = self._clock()
        wait = max(0.0, self.next_allowed_at - now)
        reason = self.next_reason if wait > 0 else None
        if now + wait > deadline:
            raise DeadlineExceeded(
                f"{url}: would wait {wait:.1f}s ({self.next_reason}) past the deadline", url=url
            )
        waited = 0.0
        while True:
            remaining = self.next_allowed_at - self._clock()
            if remaining <= 0:
                break
            self._sleep(remaining)
            waited += remaining
        ticket = Ticket(self, waited, reason)
        try:
            yield ticket
        finally:
            if not ticket.recorded:
                # The request failed in an unexpected way: pace conservatively anyway.
                end = self._clock()
                self._record(started=end, ended=end, ok=False)

    def _record(self, *, started: float, ended: float, ok: bool) -> None:
        self.delay = next_delay(
            ended - started, self.policy, crawl_delay=self.crawl_delay, previous=self.delay, ok=ok
        )
        self.next_allowed_at = max(self.next_allowed_at, ended + self.delay)
        self.next_reason = "pacing"
